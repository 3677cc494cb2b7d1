#!/usr/bin/env python3
"""End-to-end tests of the $system sleep cycle (docs/sleep.md).

  e2e_sleep.py BUILD_DIR fixture
      ../shared/sleep: import messy.kip, run one cycle with the clock at the
      fixture's reference time and no hook, run it again on the result, and
      score with the fixture's check.py (prints the per-class table; PASS
      required).
  e2e_sleep.py BUILD_DIR crash [TRIALS]
      kill the cycle with SIGKILL at random moments (default 50 trials); the
      rerun must converge to the state an uninterrupted cycle leaves
      (knowledge compared by identity; the cycle's own report and $system's
      log keys excepted).
"""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "fixture"
KIP = os.path.join(BUILD, "kip")
HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from fixtures import shared_dir  # noqa: E402  (tests/fixtures.py)

SHARED = shared_dir("sleep")
NOW = "2026-11-20T00:00:00Z"


def kip(db, *args, check=True):
    r = subprocess.run([KIP, "--db", db, *args], capture_output=True, text=True, timeout=600)
    if check and r.returncode != 0:
        sys.exit(f"kip {' '.join(args)} failed ({r.returncode}): {r.stderr[-2000:]}")
    return r


def copy_db(src, dst):
    for sfx in ("", "-wal", "-shm"):
        if os.path.exists(dst + sfx):
            os.remove(dst + sfx)
        if os.path.exists(src + sfx):
            shutil.copy(src + sfx, dst + sfx)


def fixture(tmp):
    before, after, after2 = (os.path.join(tmp, n) for n in ("before.db", "after.db", "after2.db"))
    kip(before, "import", "-q", os.path.join(SHARED, "messy.kip"))
    copy_db(before, after)
    r = kip(after, "sleep", "--now", NOW)
    sys.stderr.write(r.stderr)
    copy_db(after, after2)
    kip(after2, "sleep", "--now", NOW, "-q")
    r = subprocess.run([sys.executable, os.path.join(SHARED, "check.py"), "--kip", KIP, "--score", before, after, after2,
                        "--expected", os.path.join(SHARED, "expected.json")], capture_output=True, text=True)
    print(r.stdout)
    print(r.stderr, file=sys.stderr)
    ok = r.returncode == 0 and "RESULT: PASS" in r.stdout
    # nothing changed since: the record decides (--check) and the next night's cycle skips its phases
    c = kip(after2, "sleep", "--check", "--now", "2026-11-21T00:00:00Z", check=False)
    n = kip(after2, "sleep", "--now", "2026-11-21T00:00:00Z")
    unchanged = (c.returncode in (0, 3) and "its record decides" in c.stdout
                 and "nothing changed since the cycle of " + NOW in n.stderr and "flagged [" in n.stderr)
    print(("ok" if unchanged else "FAIL") + " unchanged memory: --check by the record, the next cycle skips its phases",
          "" if unchanged else (c.stdout, n.stderr[-1500:]))
    return 0 if ok and unchanged else 1


EXEMPT_TYPES = {"SleepCycle"}
SYSTEM_LOG_KEYS = {"last_sleep_cycle", "maintenance_log"}
VOLATILE_META = {"_version", "_updated_at"}


def state(db):
    """knowledge of a nexus by identity: concepts by (type, name), links by
    their endpoints' identities; volatile keys dropped"""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT id, type, name, subject, predicate, object, attributes, metadata FROM element").fetchall()
    con.close()
    by_id = {r[0]: r for r in rows}
    memo = {}

    def ident(i, depth=0):
        if i in memo:
            return memo[i]
        r = by_id.get(i)
        if r is None:
            out = f"missing:{i}"
        elif r[1] is not None:
            out = f"{r[1]}:{r[2]}"
        else:
            out = f"({ident(r[3], depth + 1)} -{r[4]}-> {ident(r[5], depth + 1)})" if depth < 8 else "(deep)"
        memo[i] = out
        return out

    out = {}
    for r in rows:
        if r[1] in EXEMPT_TYPES or (r[1] is None and (by_id.get(r[3], (0, None))[1] in EXEMPT_TYPES)):
            continue
        attrs, meta = json.loads(r[6]), json.loads(r[7])
        if r[1] == "Person" and r[2] == "$system":
            attrs = {k: v for k, v in attrs.items() if k not in SYSTEM_LOG_KEYS}
        meta = {k: v for k, v in meta.items() if k not in VOLATILE_META}
        # link ids inside metadata (supersession pointers) by identity too
        for k in ("superseded_by", "supersedes"):
            v = meta.get(k)
            if isinstance(v, str) and v.startswith("P:"):
                meta[k] = ident(int(v[2:])) if v[2:].isdigit() else v
            elif isinstance(v, list):
                meta[k] = sorted(ident(int(x[2:])) if isinstance(x, str) and x[2:].isdigit() else x for x in v)
        out[ident(r[0])] = (attrs, meta)
    return out


def owned_state(db):
    """what the ARG and mind subsystems own (their guards' types and
    concepts, and the links from them), by identity"""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    guards = con.execute("SELECT type, name FROM kip_guard").fetchall()
    con.close()
    types = {t for t, n in guards if not n}
    named = {f"{t}:{n}" for t, n in guards if n}
    out = {}
    for k, v in state(db).items():
        head = k[1:].split(" -")[0] if k.startswith("(") else k
        if head.split(":")[0] in types or head in named:
            out[k] = v
    return out


def neighbours(tmp):
    """a sleep cycle on a nexus that also holds an ARG ontology and mind
    data exits 0, changes nothing they own, and a second run writes nothing"""
    db = os.path.join(tmp, "all.db")
    kip(db, "arg", "init", "--ontology", os.path.join(shared_dir("arg"), "ontology.kip"))
    kip(db, "mind", "init")
    kip(db, "import", "-q", os.path.join(SHARED, "messy.kip"))
    ev = json.loads(kip(db, "mind", "record", "--content", "x", "--domain", "project", "--provenance", "runtime").stdout)["evidence"]
    kip(db, "mind", "distill", "--statement", "s", "--tier", "qi", "--domain", "project", "--evidence", ev)
    owned = owned_state(db)
    fails = 0
    r = kip(db, "sleep", "--now", NOW, "--json", check=False)
    rep = json.loads(r.stdout) if r.stdout.strip() else {}
    if r.returncode != 0 or rep.get("errors"):
        print(f"FAIL first cycle: rc {r.returncode}, errors {rep.get('errors', r.stderr[-500:])}")
        fails += 1
    after = owned_state(db)
    if after != owned:
        changed = [k for k in set(owned) | set(after) if owned.get(k) != after.get(k)]
        print(f"FAIL the cycle changed what ARG or mind own: {changed[:5]}")
        fails += 1
    before = state(db)
    r = kip(db, "sleep", "--now", NOW, "--json", check=False)
    rep = json.loads(r.stdout) if r.stdout.strip() else {}
    if r.returncode != 0 or rep.get("writes") or state(db) != before:
        print(f"FAIL second cycle: rc {r.returncode}, writes {rep.get('writes')}")
        fails += 1
    print(f"neighbours: {len(owned)} owned elements untouched, {'PASS' if fails == 0 else 'FAIL'}")
    return 1 if fails else 0


def crash(tmp, trials):
    before, ref = os.path.join(tmp, "before.db"), os.path.join(tmp, "ref.db")
    kip(before, "import", "-q", os.path.join(SHARED, "messy.kip"))
    copy_db(before, ref)
    t0 = time.time()
    kip(ref, "sleep", "--now", NOW, "-q")
    took = time.time() - t0
    want = state(ref)
    rng = random.Random(20261120)
    failures, killed, resumed = [], 0, 0
    db = os.path.join(tmp, "trial.db")
    for t in range(trials):
        copy_db(before, db)
        p = subprocess.Popen([KIP, "--db", db, "sleep", "-q", "--now", NOW], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, took * 0.9))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed += 1
        p.wait()
        # every fifth trial whose cycle was interrupted after recording its clock
        # reruns without --now: the interrupted cycle must resume with its own clock
        r = subprocess.run([KIP, "--db", db, "exec", "--json",
                            'FIND(?r.attributes.status) WHERE { ?r {type: "SleepCycle", name: :n} }', "-p", "n=" + json.dumps("SleepCycle:" + NOW)],
                           capture_output=True, text=True)
        resume = t % 5 == 4 and '"running"' in r.stdout
        kip(db, "sleep", "-q", *([] if resume else ["--now", NOW]))
        resumed += resume
        got = state(db)
        if got != want:
            diff = sorted(set(got) ^ set(want))[:5] or [k for k in got if got[k] != want.get(k)][:5]
            failures.append(f"trial {t}: state differs from the uninterrupted cycle: {diff}")
    print(f"{trials} trials, {killed} killed mid-cycle (an uninterrupted cycle takes {took:.2f}s), "
          f"{resumed} resumed without --now, {len(failures)} diverged")
    for f in failures[:20]:
        print("FAIL", f)
    # most trials must really interrupt a cycle (a loaded machine lets some finish first)
    return 1 if failures or killed < trials // 4 else 0


tmp = tempfile.mkdtemp(prefix="kip-sleep-")
try:
    if MODE == "fixture":
        rc = fixture(tmp)
    elif MODE == "neighbours":
        rc = neighbours(tmp)
    else:
        rc = crash(tmp, int(sys.argv[3]) if len(sys.argv) > 3 else 50)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(rc)
