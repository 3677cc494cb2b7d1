#!/usr/bin/env python3
"""Throwaway PostgreSQL 15 clusters for tests (issue 40; docs/postgresql.md).

A cluster lives in a temporary directory: `initdb` there, the server on a
free port on 127.0.0.1 with its socket in the same directory, run as an
unprivileged user (the server refuses root: under root the tests run it as
Debian's `postgres` account), stopped by the pid in postmaster.pid. A
standby beside it is a `pg_basebackup -R` copy streaming from it.

    with Cluster(tmp) as pg:              # a primary
        pg.psql("SELECT 1")
        with pg.standby() as st:          # a hot standby streaming from it
            st.wait_for(pg.lsn())

    pg_cluster.py selftest                # the harness itself, as ctest runs it
    pg_cluster.py serve                   # a cluster for working by hand: prints its URL

Exit 77 (ctest: skipped) when PostgreSQL 15's binaries are not installed
(scripts/setup-deps installs them).
"""
import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

from fixtures import free_port  # tests/fixtures.py

BIN = "/usr/lib/postgresql/15/bin"


def available():
    return all(os.access(os.path.join(BIN, b), os.X_OK) for b in ("initdb", "postgres", "pg_ctl", "pg_basebackup"))


def _as_owner(cmd, user):
    """cmd run as `user` (None: as we are)"""
    return cmd if user is None else ["runuser", "-u", user, "--"] + cmd


class Cluster:
    """a PostgreSQL cluster in directory `root` (created), on a free port"""

    def __init__(self, root, name="primary", user=None, init=True):
        self.root = os.path.abspath(root)
        self.name = name
        self.dir = os.path.join(self.root, name)
        self.port = free_port()
        # the server refuses to run as root
        self.user = user if user is not None else ("postgres" if os.geteuid() == 0 else None)
        self.superuser = self.user or pwd.getpwuid(os.geteuid()).pw_name
        self.pid = None
        os.makedirs(self.root, exist_ok=True)
        if self.user:
            shutil.chown(self.root, self.user)
        if init:
            self._run([os.path.join(BIN, "initdb"), "-D", self.dir, "-A", "trust", "-U", self.superuser,
                       "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
            with open(os.path.join(self.dir, "postgresql.conf"), "a") as f:
                f.write("\n# tests/pg_cluster.py\nwal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n"
                        "fsync = off\nshared_buffers = 32MB\n")
            with open(os.path.join(self.dir, "pg_hba.conf"), "a") as f:
                f.write("host replication all 127.0.0.1/32 trust\n")

    def _run(self, cmd, **kw):
        r = subprocess.run(_as_owner(cmd, self.user), capture_output=True, text=True, **kw)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
        return r

    def start(self):
        log = os.path.join(self.root, self.name + ".log")
        self._run([os.path.join(BIN, "pg_ctl"), "-D", self.dir, "-l", log, "-w", "-t", "60", "-o",
                   f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.root}",
                   "start"])
        with open(os.path.join(self.dir, "postmaster.pid")) as f:
            self.pid = int(f.readline())
        return self

    def stop(self, mode="fast"):
        """stop the server by its pid: fast (SIGINT), smart (SIGTERM) or immediate (SIGQUIT)"""
        if not self.pid:
            return
        sig = {"smart": 15, "fast": 2, "immediate": 3}[mode]
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            self.pid = None
            return
        for _ in range(600):
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, 9)
        self.pid = None

    def url(self, db="postgres"):
        return f"postgresql://{self.superuser}@127.0.0.1:{self.port}/{db}"

    def psql(self, sql, db="postgres", check=True):
        """run sql with psql; returns its output (tuples only, unaligned)"""
        r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                            str(self.port), "-U", self.superuser, "-d", db, "-c", sql],
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"psql: {r.stderr.strip()}")
        return r.stdout.strip() if r.returncode == 0 else r.stderr.strip()

    def lsn(self):
        return self.psql("SELECT pg_current_wal_lsn()")

    def standby(self, name="standby"):
        """a hot standby streaming from this cluster (pg_basebackup -R)"""
        st = Cluster(self.root, name, user=self.user, init=False)
        st._run([os.path.join(BIN, "pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.superuser,
                 "-D", st.dir, "-R", "-X", "stream", "--no-sync"])
        return st.start()

    def wait_for(self, lsn, timeout=30):
        """on a standby: wait until it has replayed the primary's WAL up to lsn"""
        until = time.time() + timeout
        while time.time() < until:
            if self.psql(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn") == "t":
                return True
            time.sleep(0.05)
        return False

    def __enter__(self):
        return self.start() if not self.pid else self

    def __exit__(self, *exc):
        self.stop()


def selftest():
    if not available():
        print(f"skipped: PostgreSQL 15 is not installed ({BIN}; scripts/setup-deps installs it)")
        return 77
    checks, fails = 0, []

    def check(name, ok, detail=""):
        nonlocal checks
        checks += 1
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
        if not ok:
            fails.append(name)

    tmp = tempfile.mkdtemp(prefix="kip-pg-")
    try:
        with Cluster(tmp) as pg:
            check("primary on 127.0.0.1 only", pg.psql("SHOW listen_addresses") == "127.0.0.1")
            with open(f"/proc/{pg.pid}/status") as f:
                uid = next(int(line.split()[1]) for line in f if line.startswith("Uid:"))
            check("the server runs as an unprivileged user", uid != 0, f"uid {uid}")
            version = pg.psql("SHOW server_version_num")
            check("PostgreSQL 15", version.startswith("15"), version)
            # what a nexus schema needs from contrib and the server (docs/postgresql.md)
            for ext in ("pg_trgm", "cube"):
                out = pg.psql(f"CREATE EXTENSION IF NOT EXISTS {ext}; SELECT extversion FROM pg_extension WHERE extname = '{ext}'",
                              check=False)
                check(f"extension {ext}", out and "ERROR" not in out, out)
            check("text search configuration english",
                  pg.psql("SELECT to_tsvector('english', 'invoices were reissued')") == "'invoic':1 'reissu':3")
            pg.psql("CREATE SCHEMA nexus_demo; CREATE TABLE nexus_demo.element(id bigint PRIMARY KEY, doc jsonb)")
            pg.psql("INSERT INTO nexus_demo.element VALUES (1, '{\"type\": \"Person\"}')")
            with pg.standby() as st:
                check("standby in recovery", st.psql("SELECT pg_is_in_recovery()") == "t")
                pg.psql("INSERT INTO nexus_demo.element VALUES (2, '{\"type\": \"Place\"}')")
                check("standby replays the primary's writes", st.wait_for(pg.lsn())
                      and st.psql("SELECT count(*) FROM nexus_demo.element") == "2")
                refused = st.psql("INSERT INTO nexus_demo.element VALUES (3, '{}')", check=False)
                check("a write to the standby is refused", "read-only transaction" in refused, refused)
                pid = st.pid
            check("standby stopped by its pid", not os.path.exists(f"/proc/{pid}"))
            pid = pg.pid
            pg.stop("immediate")
            check("immediate stop (a crash) by pid", not os.path.exists(f"/proc/{pid}"))
            pg.start()
            check("restart after a crash keeps committed rows", pg.psql("SELECT count(*) FROM nexus_demo.element") == "2")
    except (RuntimeError, OSError) as e:
        check("cluster", False, str(e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{checks - len(fails)}/{checks} checks passed")
    return 1 if fails else 0


@contextlib.contextmanager
def throwaway(prefix="kip-pg-"):
    """a started cluster in a fresh temporary directory, and that directory
    (for the test's own files); stopped by its pid and removed on exit. A
    test that needs it fails (exit 1) when PostgreSQL is not installed."""
    if not available():
        print(f"FAIL: PostgreSQL 15 is not installed ({BIN}; scripts/setup-deps installs it)")
        sys.exit(1)
    root = tempfile.mkdtemp(prefix=prefix)
    try:
        cl = Cluster(root).start()
        try:
            yield cl, root
        finally:
            cl.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def serve():
    """a throwaway cluster for working by hand: prints its URL, runs until
    interrupted (Ctrl-C or SIGTERM), then stops and removes it"""
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with throwaway() as (cl, _):
        print(cl.url(), flush=True)
        try:
            while True:
                time.sleep(3600)
        except (KeyboardInterrupt, SystemExit):
            pass
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "selftest":
        sys.exit(selftest())
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        sys.exit(serve())
    print(__doc__)
