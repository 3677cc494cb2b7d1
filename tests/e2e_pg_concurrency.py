#!/usr/bin/env python3
"""Concurrency and crash harness of the PostgreSQL backend (docs/postgresql.md,
issue 40): many client processes, each with its own connection, increment
one counter under EXPECT VERSION on a throwaway server.

Every increment is one KML command that also creates a Tick concept named
by the client: the counter and the ticks must agree (no half-applied
command), every tick a client saw acknowledged must exist (no lost
acknowledged write), and with nothing killed the counter equals the
acknowledged increments (no lost update).

  phase 1: WORKERS clients for SECONDS, nothing killed;
  phase 2: the same while clients are killed with SIGKILL and the server is
           stopped immediately (a crash) and started again.

Usage: e2e_pg_concurrency.py BUILD_DIR [WORKERS] [SECONDS]
       e2e_pg_concurrency.py worker KIP URL ID SECONDS ACK_FILE   (internal)
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
from fixtures import Checks  # noqa: E402

READ = 'FIND(?c.attributes.n, ?c.metadata._version) WHERE { ?c {type: "Counter", name: "c"} }'
STEP = ('UPSERT { CONCEPT ?c { {type: "Counter", name: "c"} EXPECT VERSION :v SET ATTRIBUTES { n: :n } } '
        'CONCEPT ?t { {type: "Tick", name: :tick} } }')
SCHEMA = ('UPSERT { CONCEPT ?a { {type: "$ConceptType", name: "Counter"} SET ATTRIBUTES { description: "a counter" } } '
          'CONCEPT ?b { {type: "$ConceptType", name: "Tick"} SET ATTRIBUTES { description: "one increment" } } } '
          'WITH METADATA { source: "e2e_pg_concurrency", author: "$system" }')


def call(kip, url, command, params=None, readonly=False, timeout=30):
    req = {"command": command}
    if params:
        req["parameters"] = params
    try:
        r = subprocess.run([kip, "--db", url, "call"] + (["--readonly"] if readonly else []), input=json.dumps(req),
                           capture_output=True, text=True, timeout=timeout)
        return json.loads(r.stdout) if r.stdout.strip() else {"error": {"code": "EXIT", "message": r.stderr}}
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        return {"error": {"code": "CLIENT", "message": str(e)}}


def worker(kip, url, wid, seconds, ack_file):
    end = time.time() + float(seconds)
    seq = 0
    with open(ack_file, "a") as acks:
        while time.time() < end:
            r = call(kip, url, READ, readonly=True)
            res = r.get("result")
            if not res or not res[0]:
                time.sleep(0.05)
                continue
            n, v = res[0][0], res[1][0]
            seq += 1
            tick = f"w{wid}-{seq}"
            r = call(kip, url, STEP, {"v": v, "n": n + 1, "tick": tick})
            if "error" not in r:
                acks.write(tick + "\n")
                acks.flush()
            elif r["error"].get("code") not in ("KIP_3005", "KIP_4001"):
                time.sleep(0.05)  # the server is away: try again shortly


def state(kip, url):
    n = call(kip, url, READ, readonly=True)["result"][0][0]
    ticks = set()
    cursor = None
    while True:
        cmd = 'FIND(?t.name) WHERE { ?t {type: "Tick"} } LIMIT 1000' + (' CURSOR :c' if cursor else '')
        r = call(kip, url, cmd, {"c": cursor} if cursor else None, readonly=True)
        ticks.update(r["result"])
        cursor = r.get("next_cursor")
        if not cursor:
            break
    return n, ticks


def run_phase(kip, url, tmp, workers, seconds, cluster=None, crash=False):
    procs, ack_files = [], []
    for w in range(workers):
        f = os.path.join(tmp, f"acks-{crash}-{w}")
        ack_files.append(f)
        procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker", kip, url, f"{int(crash)}{w}",
                                       str(seconds), f]))
    killed = 0
    if crash:
        start = time.time()
        victims = random.sample(range(workers), 2)
        plan = sorted(random.uniform(0.1, 0.4) * seconds for _ in victims)  # kills first, then the crash
        stopped = False
        while time.time() - start < seconds:
            t = time.time() - start
            if victims and t >= plan[0]:
                plan.pop(0)
                procs[victims.pop()].send_signal(signal.SIGKILL)
                killed += 1
            if not stopped and not victims and t >= seconds / 2:
                cluster.stop("immediate")  # a crash of the server mid-writes
                time.sleep(1)
                cluster.start()
                stopped = True
            time.sleep(0.05)
    for p in procs:
        p.wait()
    acked = []
    for f in ack_files:
        if os.path.exists(f):
            acked += [line.strip() for line in open(f) if line.strip()]
    return acked, killed


def main(argv):
    if argv and argv[0] == "worker":
        worker(*argv[1:6])
        return 0
    build = os.path.abspath(argv[0])
    workers = int(argv[1]) if len(argv) > 1 else 8
    seconds = float(argv[2]) if len(argv) > 2 else 40
    kip = os.path.join(build, "kip")
    checks = Checks(600)
    check = checks.check
    with pg_cluster.throwaway("kip-pgconc-") as (cluster, tmp):
        url = cluster.url() + "?nexus=counter"
        check("schema", "error" not in call(kip, url, SCHEMA))
        init = call(kip, url, 'UPSERT { CONCEPT ?c { {type: "Counter", name: "c"} SET ATTRIBUTES { n: 0 } } } '
                              'WITH METADATA { source: "e2e_pg_concurrency", author: "$system" }')
        check("counter", "error" not in init, init)

        acked, _ = run_phase(kip, url, tmp, workers, seconds)
        n, ticks = state(kip, url)
        print(f"phase 1: {workers} clients x {seconds:g} s: {len(acked)} acknowledged increments, counter {n}")
        check("some increments acknowledged", len(acked) > workers, len(acked))
        check("no lost update (counter == acknowledged increments)", n == len(acked), f"{n} != {len(acked)}")
        check("no half-applied command (counter == ticks)", n == len(ticks), f"{n} != {len(ticks)}")
        check("every acknowledged tick exists", set(acked) <= ticks, sorted(set(acked) - ticks)[:5])

        before = n
        acked2, killed = run_phase(kip, url, tmp, workers, seconds / 2, cluster, crash=True)
        n, ticks = state(kip, url)
        print(f"phase 2: {killed} clients killed, the server stopped immediately once: "
              f"{len(acked2)} acknowledged increments, counter {before} -> {n}")
        check("clients were killed and the server crashed", killed == 2)
        check("no half-applied command after the crashes (counter == ticks)", n == len(ticks), f"{n} != {len(ticks)}")
        check("no lost acknowledged write", set(acked2) <= ticks, sorted(set(acked2) - ticks)[:5])
        check("no increment beyond what was sent", n - before >= len(acked2), f"{n - before} < {len(acked2)}")
    checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
