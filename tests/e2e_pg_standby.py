#!/usr/bin/env python3
"""A hot standby of the PostgreSQL backend (docs/postgresql.md "Many hosts,
one memory"): a primary and a streaming standby started by the test
(tests/pg_cluster.py); a nexus written on the primary is read on the
standby — FIND, a read-only batch, SEARCH — once the standby has replayed
the write; the standby opens it read-only (the CLI says so) and refuses
every write with KIP_4004 naming the primary, writing nothing.

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
    checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
