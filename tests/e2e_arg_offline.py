#!/usr/bin/env python3
"""End-to-end test of the ARG offline loop (issue 20; docs/arg.md "Offline
loop") on ../shared/arg:

1. learn (the walkthrough of docs/arg.md): run the fixture's requests and
   docs/examples/arg/traffic.jsonl (recorded) with the feedback of a reviewer
   who knows the answers (arg eval --feedback: a correction with the expected
   label for every misrouted ANSWER/ACTION request, a verification for the
   others); run the offline loop (stable candidate ids, no keyword from a
   single request), publish; requests never seen
   (docs/examples/arg/new-requests.jsonl) must route better, the fixture no
   worse; then roll back to version 1 and get version 1's decisions back
   exactly (same results file; every version-1 episode replays).
2. pinning: two processes ask a probe request whose route differs between
   the two versions while the main process publishes rollbacks back and forth;
   every answer must be the route of the one version it reports.
3. crash: `kill -9` at random moments of a publish; afterwards the nexus is
   at the old version or the new one, never between (the served content is
   exactly the recorded content of the current version).

usage: e2e_arg_offline.py BUILD_DIR [CRASH_TRIALS]"""
import json, os, random, shutil, subprocess, sys, tempfile, time

build = sys.argv[1]
trials = int(sys.argv[2]) if len(sys.argv) > 2 else 12
kip = os.path.join(build, "kip")
here = os.path.dirname(os.path.abspath(__file__))
from fixtures import shared_dir  # noqa: E402  (tests/fixtures.py)

fixture = shared_dir("arg")
examples = os.path.join(os.path.dirname(here), "docs", "examples", "arg")
traffic, unseen = os.path.join(examples, "traffic.jsonl"), os.path.join(examples, "new-requests.jsonl")
prompts = [json.loads(l) for l in open(os.path.join(fixture, "prompts.jsonl"))]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(db, *args, ok=True):
    p = subprocess.run([kip, "--db", db, *args], capture_output=True, text=True, timeout=600)
    if ok and p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:])
        raise SystemExit("kip " + " ".join(args) + f" exited {p.returncode}")
    return p


def state(db):
    return json.loads(run(db, "run", os.path.join(here, "arg", "state.lua"), db).stdout)


def evaluate(db, out, record=True, feedback=False):
    args = ["arg", "eval", os.path.join(fixture, "prompts.jsonl"), "--out", out, "--json"]
    if record:
        args.append("--record")
    if feedback:
        args.append("--feedback")
    return json.loads(run(db, *args).stdout)


def results(path):
    return {json.loads(l)["id"]: json.loads(l) for l in open(path)}


with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "arg.db")
    run(db, "arg", "init", "--ontology", os.path.join(fixture, "ontology.kip"))
    r1 = os.path.join(tmp, "r1.jsonl")
    # the walkthrough of docs/arg.md: the fixture's requests and a day of
    # traffic with three vocabulary gaps, recorded with the feedback of a
    # reviewer who knows each line's expected label (arg eval --feedback)
    s1 = evaluate(db, r1, feedback=True)
    first = results(r1)
    tr = json.loads(run(db, "arg", "eval", traffic, "--record", "--feedback", "--json").stdout)
    corrections = s1["feedback"]["corrected"] + tr["feedback"]["corrected"]
    n1 = json.loads(run(db, "arg", "eval", unseen, "--json").stdout)
    dry1 = json.loads(run(db, "arg", "offline", "run", "--dry-run", "--json").stdout)
    dry2 = json.loads(run(db, "arg", "offline", "run", "--dry-run", "--json").stdout)
    check([c["name"] for c in dry1["candidates"]] == [c["name"] for c in dry2["candidates"]],
          "candidate ids come from their content: two runs name them alike")
    off = json.loads(run(db, "arg", "offline", "run", "--json").stdout)
    print("offline run:", json.dumps(off["counts"]), f"{corrections} corrections")
    for c in off["candidates"]:
        print(f"  {c['status']:<12} {c['name']}  {c['key']}  evidence {len(c['evidence'])}")
    check(off["counts"].get("approved", 0) > 0, "the offline loop approves candidates backed by corrections")
    thin = [c["key"] for c in off["candidates"] if c["type"] == "taxonomy" and len(c["evidence"]) < 2]
    check(not thin, f"no keyword candidate rests on one request (minimum evidence 2): {thin}")
    weak_approved = [c for c in off["candidates"] if c["status"] == "approved" and c["scores"]["penalty_silent"] > 0.5]
    check(not weak_approved, "no weak-signal-dominated candidate is approved")
    template = os.path.join(tmp, "template.db")
    shutil.copy(db, template)  # staged, not published: the crash trials start here
    t0 = time.time()
    pub = json.loads(run(db, "arg", "publish").stdout)
    print(f"publish took {time.time() - t0:.2f} s (the kill -9 trials below stop it within 0.6 s)")
    check(pub["version"] == 2, f"publish makes version 2 ({pub['published']} candidates)")
    r2 = os.path.join(tmp, "r2.jsonl")
    s2 = evaluate(db, r2)
    second = results(r2)
    n2 = json.loads(run(db, "arg", "eval", unseen, "--json").stdout)
    clar1 = sum(1 for r in first.values() if r["outcome"] == "CLARIFY")
    clar2 = sum(1 for r in second.values() if r["outcome"] == "CLARIFY")
    print(f"fixture   v1: outcome {s1['outcome_accuracy']}, primary label {s1['primary_label_accuracy']}, bundle recall {s1['bundle_recall']}, CLARIFY {clar1}")
    print(f"fixture   v2: outcome {s2['outcome_accuracy']}, primary label {s2['primary_label_accuracy']}, bundle recall {s2['bundle_recall']}, CLARIFY {clar2}")
    print(f"unseen    v1: outcome {n1['outcome_accuracy']}, primary label {n1['primary_label_accuracy']}")
    print(f"unseen    v2: outcome {n2['outcome_accuracy']}, primary label {n2['primary_label_accuracy']}")
    check(n2["primary_label_accuracy"] > n1["primary_label_accuracy"],
          "requests never seen, with the learnt words, route better under the published version")
    check(s2["primary_label_accuracy"] >= s1["primary_label_accuracy"], "the fixture routes no worse under version 2")
    again = json.loads(run(db, "arg", "offline", "run", "--since", "all", "--json").stdout)
    learnt = {c["key"] for c in off["candidates"] if c["status"] == "approved"}
    check(not learnt & {c["key"] for c in again["candidates"]}, "what version 2 learnt is not proposed again")
    mt = json.loads(run(db, "arg", "metrics", "--json").stdout)
    check(mt["comparisons"] and mt["comparisons"][0]["paired_requests"] == len(prompts),
          "metrics compare version 1 and 2 on the requests asked under both")
    check(s2["safety_violations"] == 0, "version 2: 0 safety violations")
    # the probe: a request whose route differs between the versions
    probe = next((p for p in prompts if first[p["id"]]["primary_label"] != second[p["id"]]["primary_label"]
                  and p["expect"]["outcome"] == "ANSWER"), None)
    check(probe is not None, "a request routes differently under the two versions")
    vs = json.loads(run(db, "arg", "versions", "--json").stdout)
    hashes = {v["version"]: v["content_hash"] for v in vs}
    # rollback: version 1's decisions come back exactly
    rb = json.loads(run(db, "arg", "rollback", "1").stdout)
    check(rb["content_hash"] == hashes[1], "rollback to 1 publishes version 1's content (same hash) as version 3")
    r3 = os.path.join(tmp, "r3.jsonl")
    evaluate(db, r3, record=False)
    check(results(r3) == first, "after the rollback every request gets version 1's result again")
    rp = run(db, "arg", "replay", "--all", ok=False).stdout
    print(rp.strip().splitlines()[-1])
    v1_episodes = len(prompts) + tr["prompts"]
    check(" 0 differ" in rp and f"{v1_episodes} reproduced" in rp, f"the {v1_episodes} episodes recorded under version 1 replay bit for bit")

    # 2. pinning under concurrent publishes
    route = {hashes[1]: first[probe["id"]]["primary_label"], hashes[2]: second[probe["id"]]["primary_label"]}
    worker = ("import json,subprocess,sys\n"
              "out=[]\n"
              "for i in range(25):\n"
              "  p=subprocess.run(sys.argv[1:],capture_output=True,text=True)\n"
              "  r=json.loads(p.stdout)\n"
              "  out.append([r['ontology_version'],r['weaver'].get('primary_label')])\n"
              "print(json.dumps(out))\n")
    pc = probe["context"]
    who = ["--role", pc["role"]] + (["--tenant", pc["workspace"]] if pc.get("workspace") else []) + \
          (["--user", pc["user"]] if pc.get("user") else [])
    cmd = [sys.executable, "-c", worker, kip, "--db", db, "arg", "ask", "--json", "--no-record", *who, "--context",
           json.dumps(pc), probe["prompt"]]
    workers = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    flips = 0
    while any(w.poll() is None for w in workers) and flips < 40:
        run(db, "arg", "rollback", str(2 if flips % 2 == 0 else 1))
        flips += 1
        time.sleep(0.05)
    seen = []
    for w in workers:
        seen += json.loads(w.communicate()[0])
    vs = json.loads(run(db, "arg", "versions", "--json").stdout)
    by_version = {v["version"]: v["content_hash"] for v in vs}
    wrong = [s for s in seen if route.get(by_version.get(s[0])) != s[1]]
    versions_seen = sorted({s[0] for s in seen})
    print(f"{len(seen)} concurrent requests over {flips} publishes saw versions {versions_seen[:6]}... ({len(versions_seen)} distinct)")
    check(not wrong, "every concurrent request got the route of exactly the version it pinned")
    check(len({by_version[v] for v in versions_seen}) == 2, "the concurrent requests saw both contents")

    # 3. kill -9 during publishes
    outcomes = {"old": 0, "new": 0}
    torn = 0
    for t in range(trials):
        tdb = os.path.join(tmp, f"crash{t}.db")
        shutil.copy(template, tdb)
        p = subprocess.Popen([kip, "--db", tdb, "arg", "publish"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(random.uniform(0.0, 0.6))
        p.kill()
        p.wait()
        s = state(tdb)
        if s["content_hash"] != s["recorded_hash"]:
            torn += 1
        elif s["version"] == 1 and s["approved"] > 0:
            outcomes["old"] += 1
        elif s["version"] == 2 and s["approved"] == 0:
            outcomes["new"] += 1
        else:
            torn += 1
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(tdb + suffix):
                os.remove(tdb + suffix)
    print(f"{trials} publishes killed at random: {outcomes['old']} left version 1, {outcomes['new']} completed version 2, {torn} torn")
    check(torn == 0, "a killed publish leaves the previous version or the new one, never a mix")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all ARG offline checks passed")
