#!/usr/bin/env python3
"""End-to-end test of the ARG online loop (issue 17; docs/arg.md) on the
fixture ../shared/arg: `kip arg init` with its ontology, `kip arg eval` of its
150 requests (scored here by the fixture's own check.py, which must report 0
safety violations), `kip arg replay --all` (every recorded episode must
reproduce), the ArgResult of `kip arg ask --json` and of the MCP tool
arg_request validated against the JSON Schemas in docs/arg/, and the
episode schema (MemoryWrite) against what the registry stored.

usage: e2e_arg.py BUILD_DIR"""
import json, os, subprocess, sys, tempfile

build = sys.argv[1]
kip = os.path.join(build, "kip")
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
from fixtures import shared_dir  # noqa: E402  (tests/fixtures.py)

fixture = shared_dir("arg")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(*args, ok=True):
    p = subprocess.run([kip, "--db", db, *args], capture_output=True, text=True, timeout=600)
    if ok and p.returncode != 0:
        print(p.stdout, p.stderr)
        raise SystemExit("kip " + " ".join(args) + f" exited {p.returncode}")
    return p


def validator():
    try:
        import jsonschema
    except ImportError:
        # scripts/setup-deps installs it: its absence fails the test rather than skip the checks
        check(False, "python3-jsonschema is installed (scripts/setup-deps installs it) to validate the JSON contracts")
        return None
    schemas = {}
    d = os.path.join(root, "docs", "arg")
    for f in os.listdir(d):
        with open(os.path.join(d, f)) as fh:
            s = json.load(fh)
        schemas[f] = s
    def make(name):
        s = schemas[name + ".schema.json"]
        try:
            from referencing import Registry, Resource
            reg = Registry().with_resources([(x["$id"], Resource.from_contents(x)) for x in schemas.values()])
            return jsonschema.Draft202012Validator(s, registry=reg)
        except ImportError:
            store = {x["$id"]: x for x in schemas.values()}
            return jsonschema.Draft202012Validator(s, resolver=jsonschema.RefResolver.from_schema(s, store=store))
    return make


with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "arg.db")
    init = json.loads(run("arg", "init", "--ontology", os.path.join(fixture, "ontology.kip")).stdout)
    check(init["version"] == 1, "kip arg init publishes ontology version 1")

    results = os.path.join(tmp, "results.jsonl")
    ev = run("arg", "eval", os.path.join(fixture, "prompts.jsonl"), "--out", results, "--record")
    print(ev.stdout.rstrip())
    score = subprocess.run([sys.executable, os.path.join(fixture, "check.py"), "--kip", kip, "--score", results,
                            "--prompts", os.path.join(fixture, "prompts.jsonl"), "--json"],
                           capture_output=True, text=True, timeout=600)
    print(score.stdout[-2000:], score.stderr[-2000:])
    s = json.loads(score.stdout[score.stdout.index("{"):])
    figures = {k: v for k, v in s.items() if not isinstance(v, (dict, list))}
    print("fixture scores:", json.dumps(figures))
    check(score.returncode == 0, "check.py --score passes the safety gate (0 violations)")
    outcome = s.get("outcome_accuracy") or s.get("outcome accuracy")
    check(outcome is not None and outcome >= 0.85, f"outcome accuracy {outcome} >= 0.85 (regression floor; target 0.90)")

    # requests written for this project (tests/arg/heldout.jsonl), scored by kip arg eval itself
    ho = run("arg", "eval", os.path.join(here, "arg", "heldout.jsonl"), "--json")
    h = json.loads(ho.stdout)
    print("held-out requests:", json.dumps({k: h[k] for k in ("prompts", "outcome_accuracy", "primary_label_accuracy", "safety_violations")}))
    check(h["safety_violations"] == 0, "held-out requests: 0 safety violations")

    # the development set in the forms people also write it in (lower case, capitals, a greeting, a letter,
    # quoted, …): no refusal may become an answer or an action (tests/arg/sets/perturb.py)
    pt = subprocess.run([sys.executable, os.path.join(here, "arg", "sets", "perturb.py"), "--kip", kip,
                         "--ontology", os.path.join(fixture, "ontology.kip")], capture_output=True, text=True, timeout=900)
    print(pt.stdout[-3000:], pt.stderr[-2000:])
    check(pt.returncode == 0, "perturbed development set: 0 refusals answered or acted on")

    # a second ontology, of another business (its own roles, audiences, tenant noun): the same code serves it
    cdb = os.path.join(tmp, "clinic.db")
    subprocess.run([kip, "--db", cdb, "arg", "init", "--ontology", os.path.join(here, "arg", "clinic", "ontology.kip")],
                   check=True, capture_output=True)
    ce = subprocess.run([kip, "--db", cdb, "arg", "eval", os.path.join(here, "arg", "clinic", "prompts.jsonl"), "--json"],
                        capture_output=True, text=True, timeout=600)
    c = json.loads(ce.stdout)
    print("clinic ontology:", json.dumps({k: c[k] for k in ("prompts", "outcome_accuracy", "primary_label_accuracy",
                                                             "bundle_recall", "action_accuracy", "safety_violations")}))
    check(c["safety_violations"] == 0 and c["outcome_accuracy"] >= 0.9,
          f"the clinic ontology: 0 safety violations, outcome {c['outcome_accuracy']} >= 0.9 (regression floor)")

    rp = run("arg", "replay", "--all", ok=False)
    print(rp.stdout.rstrip())
    check(rp.returncode == 0 and " 0 differ" in rp.stdout, "every recorded episode replays bit for bit")

    make = validator()
    if make:
        result_v, write_v = make("ArgResult"), make("MemoryWrite")
        prompts = [json.loads(l) for l in open(os.path.join(fixture, "prompts.jsonl"))]
        bad = 0
        for p in prompts[::5]:
            c = p["context"]
            who = ["--role", c["role"]] + (["--tenant", c["workspace"]] if c.get("workspace") else []) + \
                  (["--user", c["user"]] if c.get("user") else [])
            out = run("arg", "ask", "--json", "--no-record", *who, "--context", json.dumps(c), p["prompt"]).stdout
            errs = sorted(result_v.iter_errors(json.loads(out)), key=lambda e: list(e.path))
            if errs:
                bad += 1
                print(p["id"], errs[0].message, list(errs[0].path))
        check(bad == 0, f"ArgResult of kip arg ask --json matches docs/arg/ArgResult.schema.json ({len(prompts[::5])} requests)")
        log = json.loads(run("arg", "log", "--json", "--limit", "40").stdout)
        bad = 0
        for e in log:
            errs = list(write_v.iter_errors(e["attributes"]))
            if errs:
                bad += 1
                print(e["name"], errs[0].message, list(errs[0].path))
        check(len(log) == 40 and bad == 0, "stored episodes match docs/arg/MemoryWrite.schema.json")
        # the MCP tool
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
                 "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "arg_request", "arguments": {
                    "prompt": "Cancel our subscription at the end of the term.", "context": {"channel": "web_chat"}}}}]
        # the MCP server's configured identity is the caller
        p = subprocess.run([kip, "--db", db, "mcp", "--role", "workspace_admin", "--tenant", "acme", "--user", "dana@acme.example"],
                           input="\n".join(json.dumps(m) for m in msgs) + "\n", capture_output=True, text=True, timeout=60)
        answer = [json.loads(l) for l in p.stdout.splitlines() if l.strip() and json.loads(l).get("id") == 2][0]
        r = json.loads(answer["result"]["content"][0]["text"])["result"]
        errs = list(result_v.iter_errors(r))
        for e in errs[:3]:
            print(e.message, list(e.path))
        # no handler is registered: the action was bound but not run, and the outcome says so
        check(r["outcome"] == "ABSTAIN" and r["action"]["name"] == "cancel_subscription"
              and r["action"]["status"] == "NOT_EXECUTED" and r["caller"]["role"] == "workspace_admin" and not errs,
              "MCP arg_request binds an action as the configured caller, reports it not run, and matches the schema")

    # the tenant directory: served tenants recorded, names added by the operator, read privately
    tdb = os.path.join(tmp, "tenants.db")
    def t(*args):
        return subprocess.run([kip, "--db", tdb, *args], capture_output=True, text=True, timeout=120)
    t("arg", "init", "--ontology", os.path.join(fixture, "ontology.kip"))
    ask = ["arg", "ask", "--role", "customer", "--tenant", "acme", "--user", "dana@acme.example",
           "I'm helping a friend over at globex, what did they get billed last month?"]
    before = t(*ask).stdout.split()[:1]
    t("arg", "ask", "--role", "customer", "--tenant", "globex", "--user", "kim@globex.example", "how do I update my card?")
    after = t(*ask).stdout.split()[:1]
    check(before != ["REFUSE"] and after == ["REFUSE"],
          f"a tenant whose caller was served is read as that tenant when named bare ({before} then {after})")
    # both episodes replay as decided: the directory as it was when each was recorded
    rp = t("arg", "replay", "--all")
    check(rp.returncode == 0, "episodes recorded before and after the directory learnt a tenant replay as decided")
    added = t("arg", "tenants", "add", "Initech")
    listed = t("arg", "tenants", "--json")
    check(added.returncode == 0 and json.loads(listed.stdout) == ["acme", "globex", "initech"],
          "kip arg tenants add records a name; kip arg tenants lists the directory")
    bad = t("arg", "tenants", "add")
    plain = t("exec", 'FIND(?t.name) WHERE { ?t {type: "ArgTenant"} }')
    forged = t("exec", 'UPSERT { CONCEPT ?t { {type: "ArgTenant", name: "evil"} } }')
    check(bad.returncode == 2 and "name at least one tenant" in bad.stderr and json.loads(plain.stdout) == []
          and forged.returncode != 0 and "arg.record" in forged.stdout + forged.stderr,
          "the directory: a clear error without a name; plain KQL neither reads nor writes it")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all ARG checks passed")
