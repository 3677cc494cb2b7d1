#!/usr/bin/env python3
"""End-to-end tests of the $system sleep cycle (docs/sleep.md).

  e2e_sleep.py BUILD_DIR fixture
      ../shared/sleep: import messy.kip, run one cycle with the clock at the
      fixture's reference time and no hook, run it again on the result, and
      score with the fixture's check.py (prints the per-class table; PASS
      required).
  e2e_sleep.py BUILD_DIR incremental [SEEDS]
      after a complete cycle, random agent writes (new concepts with and
      without tags, links, deleted Domain links, attribute updates, name
      twins, stale anchored Events, expiring notes, functional conflicts);
      the next cycle runs incrementally and must leave the state a full
      cycle (--full) leaves on a copy (default 12 seeds).
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


NEXT = "2026-11-21T00:00:00Z"


def mutations(db, rng):
    """KIP commands an agent might send between two cycles, drawn from what
    the nexus holds"""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    concepts = con.execute("SELECT id, type, name FROM element WHERE type IS NOT NULL AND type NOT LIKE '$%' "
                           "AND type NOT IN ('Domain', 'SleepTask', 'SleepCycle', 'SleepCycleFlags', 'SleepCycleChanges') "
                           "AND name NOT LIKE '$%' ORDER BY id").fetchall()
    domains = [r[0] for r in con.execute("SELECT name FROM element WHERE type = 'Domain' AND name NOT IN "
                                         "('Unsorted', 'Archived', 'System', 'CoreSchema') ORDER BY name")]
    dlinks = con.execute("SELECT s.type, s.name, d.name FROM element l JOIN element s ON s.id = l.subject "
                         "JOIN element d ON d.id = l.object WHERE l.predicate = 'belongs_to_domain' AND s.type NOT LIKE '$%' "
                         "AND s.type NOT IN ('SleepTask', 'SleepCycle', 'Domain') AND d.name != 'CoreSchema' ORDER BY l.id").fetchall()
    con.close()
    q = json.dumps
    meta = 'WITH METADATA { source: "agent", author: "test" }'
    out = []
    for i in range(rng.randint(6, 14)):
        kind = rng.choice(["new", "new_tagged", "link", "unlink", "update", "twin", "event", "expiring", "conflict", "tag"])
        _, t, n = rng.choice(concepts)
        _, t2, n2 = rng.choice(concepts)
        if kind in ("new", "new_tagged"):
            tags = f' relevance_tags: [{q(rng.choice(domains))}],' if kind == "new_tagged" else ""
            links = " ".join(f'("knows", {{type: {q(x[1])}, name: {q(x[2])}}})' for x in rng.sample(concepts, rng.randint(0, 3)))
            out.append(f'UPSERT {{ CONCEPT ?x {{ {{type: "Person", name: "new person {i}"}} SET ATTRIBUTES {{ note: "n{i}" }} '
                       f'{"SET PROPOSITIONS { " + links + " }" if links else ""} }} }} WITH METADATA {{{tags} source: "agent", author: "test" }}')
        elif kind == "link" and (t, n) != (t2, n2):
            out.append(f'UPSERT {{ PROPOSITION ?l {{ ({{type: {q(t)}, name: {q(n)}}}, "mentions", {{type: {q(t2)}, name: {q(n2)}}}) }} }} {meta}')
        elif kind == "unlink" and dlinks:
            st, sn, d = rng.choice(dlinks)
            out.append(f'DELETE PROPOSITIONS ?l WHERE {{ ?l ({{type: {q(st)}, name: {q(sn)}}}, "belongs_to_domain", {{type: "Domain", name: {q(d)}}}) }}')
        elif kind == "update":
            out.append(f'UPDATE ?x SET ATTRIBUTES {{ touched_{i}: true }} WHERE {{ ?x {{type: {q(t)}, name: {q(n)}}} }}')
        elif kind == "twin":
            out.append(f'UPSERT {{ CONCEPT ?x {{ {{type: {q(t)}, name: {q(n.upper() + " ")}}} }} }} {meta}')
        elif kind == "event":
            out.append(f'UPSERT {{ CONCEPT ?e {{ {{type: "Event", name: "old talk {i}"}} SET ATTRIBUTES {{ start_time: "2026-11-01T10:00:00Z", '
                       f'event_class: "Conversation", content_summary: "talk {i}", salience_score: 50 }} }} '
                       f'CONCEPT ?p {{ {{type: "Preference", name: "likes thing {i}"}} SET ATTRIBUTES {{ description: "d" }} '
                       f'SET PROPOSITIONS {{ ("derived_from", ?e) ("belongs_to_domain", {{type: "Domain", name: {q(rng.choice(domains))}}}) }} }} }} {meta}')
        elif kind == "expiring":
            out.append(f'UPSERT {{ CONCEPT ?x {{ {{type: "Person", name: "temp contact {i}"}} SET ATTRIBUTES {{ note: "t" }} }} }} '
                       f'WITH METADATA {{ source: "agent", author: "test", memory_tier: "short-term", expires_at: "2026-11-20T12:00:00Z" }}')
        elif kind == "conflict":
            places = [c for c in concepts if c[1] == "Place"]
            people = [c for c in concepts if c[1] == "Person"]
            if places and people:
                _, _, pn = rng.choice(people)
                _, _, pl = rng.choice(places)
                out.append(f'UPSERT {{ PROPOSITION ?l {{ ({{type: "Person", name: {q(pn)}}}, "lives_in", {{type: "Place", name: {q(pl)}}}) }} }} '
                           'WITH METADATA { source: "agent", author: "test", observed_at: "2026-11-20T18:00:00Z" }')
        elif kind == "tag":
            out.append(f'UPDATE ?x SET METADATA {{ relevance_tags: [{q(rng.choice(domains))}] }} WHERE {{ ?x {{type: {q(t)}, name: {q(n)}}} }}')
    return out


# the phase counts an incremental cycle reports, summed over the seeds
EXERCISED = {"orphans": ("classified", "unsorted"), "unsorted": ("moved",), "events": ("consolidated",),
             "duplicates": ("merged", "conflicting"), "contradictions": ("resolved", "undecided"),
             "ttl": ("deleted_nodes", "deleted_links")}
EXERCISED_MIN = ["orphans.classified", "orphans.unsorted", "events.consolidated", "duplicates.merged",
                 "contradictions.resolved", "ttl.deleted_nodes"]


def incremental(tmp, seeds):
    base = os.path.join(tmp, "base.db")
    kip(base, "import", "-q", os.path.join(SHARED, "messy.kip"))
    kip(base, "sleep", "--now", NOW, "-q")
    kip(base, "sleep", "--now", "2026-11-20T12:00:00Z", "-q")  # carries out the review tasks the first one made
    fails, ran, exercised, checks = 0, 0, {}, 0
    a, b = os.path.join(tmp, "inc.db"), os.path.join(tmp, "full.db")
    for seed in range(seeds):
        copy_db(base, a)
        for cmd in mutations(a, random.Random(seed)):
            kip(a, "exec", cmd, check=False)
        copy_db(a, b)
        # --check from the change log says what measuring the graph says
        logged = json.loads(kip(a, "sleep", "--check", "--json", "--now", NEXT, check=False).stdout)
        measured = json.loads(kip(a, "sleep", "--check", "--measure", "--json", "--now", NEXT, check=False).stdout)
        four = ("orphans", "unsorted", "stale_events", "pending_sleep_tasks")
        if logged["decided_by"] == "logged" and any(logged["metrics"].get(k) != measured["metrics"].get(k) for k in four):
            fails += 1
            print(f"FAIL seed {seed}: --check from the change log {logged['metrics']} but measured "
                  f"{ {k: measured['metrics'].get(k) for k in four} }")
        checks += logged["decided_by"] == "logged"
        # what changed only (--incremental: on this small memory a whole read would cost less)
        ra = kip(a, "sleep", "--now", NEXT, "--json", "--sweep", "0", "--incremental")
        kip(b, "sleep", "--now", NEXT, "--full", "-q")
        rep = json.loads(ra.stdout)
        inc = rep.get("incremental")
        ran += bool(inc)
        for ph in rep.get("phases", []) if inc else []:
            for k, v in (ph.get("counts") or {}).items():
                if isinstance(v, int) and not isinstance(v, bool) and k in EXERCISED.get(ph["phase"], ()):
                    exercised[f"{ph['phase']}.{k}"] = exercised.get(f"{ph['phase']}.{k}", 0) + v
        if not inc:
            print(f"seed {seed}: full cycle: {rep.get('full_why')}")
        sa, sb = state(a), state(b)
        if sa != sb:
            fails += 1
            keys = sorted(set(sa) ^ set(sb))[:6] or [k for k in sa if sa[k] != sb.get(k)][:6]
            print(f"FAIL seed {seed}: the incremental cycle left another state than a full one: {keys}"
                  f" (incremental: {inc}, full because: {rep.get('full_why')})")
    print("incremental cycles changed:", ", ".join(f"{k} {v}" for k, v in sorted(exercised.items())))
    # every rule the mutations reach must have acted in some incremental cycle
    missing = [k for k in EXERCISED_MIN if not exercised.get(k)]
    if missing:
        print("FAIL: no incremental cycle exercised", ", ".join(missing))
    ok = not fails and not missing and ran >= seeds // 2 and checks >= seeds // 2
    print(f"{seeds} seeds, {ran} ran incrementally, {checks} checks decided from the change log, {fails} diverged "
          f"from a full cycle or a measure: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


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
    elif MODE == "incremental":
        rc = incremental(tmp, int(sys.argv[3]) if len(sys.argv) > 3 else 12)
    else:
        rc = crash(tmp, int(sys.argv[3]) if len(sys.argv) > 3 else 50)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(rc)
