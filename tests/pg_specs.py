#!/usr/bin/env python3
"""The busted specs of the governed subsystems and the core's exactness and
security on the PostgreSQL backend (docs/postgresql.md).

Starts a throwaway PostgreSQL cluster (tests/pg_cluster.py), runs the C
unit tests that need a server (test_core --pg URL), and runs each
spec with busted (Lua 5.4) and $KIP_TEST_PG set to its URL: spec/helpers.lua
then gives every spec a fresh nexus on that server instead of a file. What
PostgreSQL does not do yet is left out by name (--filter-out), so it stays
visible here.

    pg_specs.py SOURCE_DIR BUILD_DIR [SPEC...]
"""
import concurrent.futures
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402

SPECS = ["arg", "arg_domain", "arg_offline", "arg_injection_families", "sleep", "mind", "exactness", "security", "search_vector",
         "query", "kip", "policy", "merge_export", "store_assumptions", "bulk", "search_episodic"]
# not on PostgreSQL yet (docs/postgresql.md "Not built yet"): none left out now
PENDING = []  # Lua patterns (busted --filter-out: no spaces)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    src, build = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    specs = argv[2:] or SPECS
    with pg_cluster.throwaway("kip-pgspecs-") as (cluster, tmp):
        env = dict(os.environ, KIP_TEST_PG=cluster.url(), KIP_STATE_DIR=os.path.join(tmp, "state"),
                   KIP_HOME=src, KIP_PLAN_VERIFY="1")
        for var in ("LUA_PATH", "LUA_PATH_5_4"):
            env[var] = f"{src}/lua/?.lua;{src}/lua/?/init.lua;{src}/spec/?.lua;;"
        for var in ("LUA_CPATH", "LUA_CPATH_5_4"):
            env[var] = f"{build}/lua54/?.so;;"

        def run(spec):
            cmd = ["busted", "--lua=lua5.4", "-o", "utfTerminal"]
            for p in PENDING:
                cmd.append("--filter-out=" + p)
            cmd.append(os.path.join(src, "spec", spec + "_spec.lua"))
            return spec, subprocess.run(cmd, env=env, cwd=src, capture_output=True, text=True)

        failed = []
        # the core's own checks that need a server (core/tests/test_core.c --pg)
        r = subprocess.run([os.path.join(build, "test_core"), "--pg", cluster.url()], env=env, capture_output=True,
                           text=True)
        print(f"== test_core --pg\n{r.stdout}{r.stderr}", end="", flush=True)
        if r.returncode != 0:
            failed.append("test_core --pg")
        # the spec files side by side, each its own nexuses on the one server
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for spec, r in pool.map(run, specs):
                print(f"== {spec}\n{r.stdout}{r.stderr}", end="", flush=True)
                if r.returncode != 0:
                    failed.append(spec)
        for p in PENDING:
            print(f"(pending on PostgreSQL: {p.replace('%', '').replace('.', ' ')})")
        print(f"{len(specs) + 1 - len(failed)}/{len(specs) + 1} passed on PostgreSQL ({len(specs)} spec files and test_core --pg)" +
              (f"; failed: {', '.join(failed)}" if failed else ""))
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
