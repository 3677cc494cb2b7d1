#!/usr/bin/env python3
"""The KIP conformance suite on the PostgreSQL backend (docs/postgresql.md).

Starts a throwaway PostgreSQL cluster (tests/pg_cluster.py), and runs the
suite's run_conformance.py with a `kip` that maps each case's database path
to a nexus of that cluster (postgresql://…?nexus=<hash of the path>), so
every case runs on a fresh nexus as it does on SQLite. It takes the
runner's own arguments, so tests/conformance.sh runs it as it runs the
runner (ctest conformance_pg, every case file):

    pg_conformance.py --bin KIP [--url URL] [--jobs N] [runner options] CASE_FILE...

The runner is the one beside the case files' folder (or
$KIP_CONFORMANCE_RUNNER); --url uses a running server instead of starting
one (pg_cluster.py serve). Several case files run side by side on the one
server, a runner each (--jobs, default 2); their outputs are printed one
after another, then the total ("N passed, M failed"). Exits nonzero when
any runner did.
"""
import concurrent.futures
import os
import re
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402

WRAPPER = """#!/bin/sh
# kip on a PostgreSQL nexus named after the --db path (tests/pg_conformance.py)
db=""; args=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--db" ]; then db=$2; shift 2; continue; fi
  break
done
nexus=c$(printf '%s' "$db" | md5sum | cut -c1-24)
exec {kip} --db "{url}?nexus=$nexus" "$@"
"""


def take(args, flag):
    if flag not in args or args.index(flag) + 1 >= len(args):
        return None
    i = args.index(flag)
    value = args[i + 1]
    del args[i:i + 2]
    return value


def main(argv):
    rest = list(argv)
    kip, url, jobs = take(rest, "--bin"), take(rest, "--url"), int(take(rest, "--jobs") or 2)
    cases = [a for a in rest if a.endswith(".json")]
    options = [a for a in rest if not a.endswith(".json")]
    runner = os.environ.get("KIP_CONFORMANCE_RUNNER") or (
        os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(cases[0]))), "run_conformance.py") if cases else None)
    if not kip or not runner or not os.path.exists(runner):
        print(__doc__)
        return 2
    kip = os.path.abspath(kip)

    def run(server, tmp):
        wrapper = os.path.join(tmp, "kip-pg")
        with open(wrapper, "w") as f:
            f.write(WRAPPER.replace("{kip}", kip).replace("{url}", server))
        os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IEXEC)
        if len(cases) == 1:
            return subprocess.run([sys.executable, runner, "--bin", wrapper] + options + cases).returncode

        def one(case):
            return subprocess.run([sys.executable, runner, "--bin", wrapper] + options + [case],
                                  capture_output=True, text=True)

        passed = failed = status = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for case, r in zip(cases, pool.map(one, cases)):
                print(r.stdout + r.stderr, end="", flush=True)
                status = status or r.returncode
                m = re.findall(r"^(\d+) passed, (\d+) failed$", r.stdout, re.M)
                if not m:  # a FAIL line tests/conformance.sh counts: the file's cases did not run
                    print(f"FAIL {os.path.basename(case)}::(runner) printed no summary (exit {r.returncode})")
                    status = status or 1
                    continue
                passed, failed = passed + int(m[-1][0]), failed + int(m[-1][1])
        print(f"{passed} passed, {failed} failed")
        return status

    if url:
        with tempfile.TemporaryDirectory(prefix="kip-pgconf-") as tmp:
            return run(url, tmp)
    with pg_cluster.throwaway("kip-pgconf-") as (cluster, tmp):
        return run(cluster.url(), tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
