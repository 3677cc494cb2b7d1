#!/usr/bin/env python3
"""A hot standby of the PostgreSQL backend (docs/postgresql.md "Many hosts,
one memory"): a primary and a streaming standby started by the test
(tests/pg_cluster.py); a nexus written on the primary is read on the
standby — FIND, a read-only batch, SEARCH — once the standby has replayed
the write; the standby opens it read-only (the CLI says so) and refuses
every write with KIP_4004 naming the primary, writing nothing. A handle
opened on the primary with ?read=STANDBY sends its readonly calls to the
standby, reads its own writes (on the primary while the standby is behind)
and falls back to the primary when the standby is gone.

Usage: e2e_pg_standby.py BUILD_DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
from fixtures import Checks  # noqa: E402

checks = Checks(600)
check = checks.check


def call(kip, url, req, readonly=False):
    r = subprocess.run([kip, "--db", url, "call"] + (["--readonly"] if readonly else []), input=json.dumps(req),
                       capture_output=True, text=True, timeout=60)
    return json.loads(r.stdout) if r.stdout.strip() else {"error": {"code": "EXIT", "message": r.stderr}}, r.stderr


def main(argv):
    kip = os.path.join(os.path.abspath(argv[0]), "kip")
    with pg_cluster.throwaway("kip-pgstandby-") as (primary, _):
        url = primary.url() + "?nexus=shared"
        w, _ = call(kip, url, {"command": 'UPSERT { CONCEPT ?p { {type: "Person", name: "Ada"} '
                                          'SET ATTRIBUTES {person_class: "Human", aliases: ["Countess"]} } } '
                                          'WITH METADATA {source: "e2e", author: "$system"}'})
        check("a write on the primary", "error" not in w, w)
        with primary.standby() as standby:
            check("the standby replays it", standby.wait_for(primary.lsn()))
            surl = standby.url() + "?nexus=shared"
            r, err = call(kip, surl, {"command": 'FIND(?p.name) WHERE { ?p {type: "Person", name: "Ada"} }'}, True)
            check("a read-only call answered by the standby", r.get("result") == ["Ada"], r)
            r, _ = call(kip, surl, {"commands": ['FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }',
                                                 'SEARCH CONCEPT "countess"']}, True)
            res = r.get("result") or []
            check("a read-only batch and SEARCH on the standby",
                  len(res) == 2 and res[0].get("result") == 3 and (res[1].get("result") or [{}])[0].get("name") == "Ada", r)
            check("the CLI says the standby opened read-only", "opened read-only" in err, err)
            r, _ = call(kip, surl, {"command": 'UPSERT { CONCEPT ?p { {type: "Person", name: "Bob"} '
                                               'SET ATTRIBUTES {person_class: "Human"} } }'})
            e = r.get("error") or {}
            check("a write sent to the standby is refused (KIP_4004)", e.get("code") == "KIP_4004", r)
            check("... saying why", "read-only" in (e.get("message", "") + e.get("hint", "")), e)
            r, _ = call(kip, url, {"command": 'FIND(COUNT(?p)) WHERE { ?p {type: "Person", name: "Bob"} }'}, True)
            check("... and nothing was written", r.get("result") == 0, r)
            routed(kip, primary, standby, url)
    checks.finish()


# one long-lived handle opened with ?read=: a line of JSON in, the response
# and which server answered out
ROUTED = r"""
local kip = require "kip.core"
local nx = assert(kip.open(os.getenv("KIP_DB")))
for line in io.lines() do
  local ro = line:sub(1, 1) == "r"
  local out = nx:call_json(line:sub(3), { readonly = ro })
  io.write((nx:last_read_on_standby() and "standby " or "primary ") .. out:gsub("\n", " ") .. "\n")
  io.flush()
end
"""


def routed(kip, primary, standby, url):
    """?read=: readonly calls on the standby, the handle's own writes read back"""
    script = os.path.join(os.path.dirname(standby.dir), "routed.lua")
    with open(script, "w") as f:
        f.write(ROUTED)
    rurl = url + "&read=" + standby.url()
    p = subprocess.Popen([kip, "run", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, KIP_DB=rurl))

    def ask(kind, command):
        p.stdin.write(kind + " " + json.dumps({"command": command}) + "\n")
        p.stdin.flush()
        where, _, body = p.stdout.readline().partition(" ")
        return where, json.loads(body) if body.strip() else {}

    def count(name):
        return ask("r", 'FIND(COUNT(?p)) WHERE { ?p {type: "Person", name: "%s"} }' % name)

    try:
        where, r = count("Ada")
        check("?read=: a readonly call is answered by the standby", where == "standby" and r.get("result") == 1,
              (where, r))
        standby.psql("SELECT pg_wal_replay_pause()")
        w, _ = call(kip, url, {"command": 'UPSERT { CONCEPT ?p { {type: "Person", name: "Bo"} '
                                          'SET ATTRIBUTES {person_class: "Human"} } } '
                                          'WITH METADATA {source: "e2e", author: "$system"}'})
        check("another client writes while the standby's replay is paused", "error" not in w, w)
        where, r = count("Bo")
        check("... the standby answers without it (its replay lag, documented)",
              where == "standby" and r.get("result") == 0, (where, r))
        where, r = ask("w", 'UPSERT { CONCEPT ?p { {type: "Person", name: "Cy"} SET ATTRIBUTES '
                            '{person_class: "Human"} } } WITH METADATA {source: "e2e", author: "$system"}')
        check("a write on the routed handle goes to the primary", "error" not in r, r)
        where, r = count("Cy")
        check("... and the handle reads its own write: the primary answers while the standby is behind",
              where == "primary" and r.get("result") == 1, (where, r))
        standby.psql("SELECT pg_wal_replay_resume()")
        check("the standby catches up", standby.wait_for(primary.lsn()))
        where, r = count("Cy")
        check("... then it answers again, with the write", where == "standby" and r.get("result") == 1, (where, r))
        standby.stop("immediate")
        where, r = count("Cy")
        check("the standby gone: the primary answers, without an error", where == "primary" and r.get("result") == 1,
              (where, r))
    finally:
        p.stdin.close()
        p.wait(timeout=60)
    r, err = call(kip, url + "&read=mysql://x", {"command": 'FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }'}, True)
    check("a read URL that is not postgresql:// is refused, naming it", "read URL" in json.dumps(r) + err, (r, err))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
