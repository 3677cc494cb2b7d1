#!/usr/bin/env python3
"""End-to-end tests of operator extension folders (docs/extending.md): a
folder outside the tree adds a CLI command, an MCP tool, an ARG step, a
sleep phase and a policy, without editing any file of kipnexus; each is
loaded sandboxed, hot-reloaded, and fails closed, naming its file.

usage: e2e_extending.py BUILD_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1])
KIP = os.path.join(BUILD, "kip")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "docs", "examples", "extension")

failures = []
passed = 0


def check(name, ok, detail=""):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(name)
        print(f"FAIL {name}: {detail}"[:2000])


def kip(*args, stdin=None):
    r = subprocess.run([KIP, *args], capture_output=True, text=True, input=stdin, timeout=300)
    if "stack traceback" in r.stderr:
        failures.append("traceback")
        print("TRACEBACK in kip", args, r.stderr[-1500:])
    return r


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


tmp = tempfile.mkdtemp(prefix="kip-ext-")
try:
    ext = os.path.join(tmp, "operator")
    shutil.copytree(EXAMPLE, ext)
    db = os.path.join(tmp, "m.db")
    env_db = ["--db", db, "--extensions", ext]
    people = ('UPSERT { CONCEPT ?a { {type: "Person", name: "Ada"} SET ATTRIBUTES { email: "ada@example.org" } } '
              'CONCEPT ?b { {type: "Person", name: "Bo"} } } WITH METADATA { source: "e2e", author: "e2e" }')
    r = kip(*env_db, "exec", people)
    check("seed", r.returncode == 0, r.stderr)

    # --- a CLI command
    r = kip(*env_db, "count", "Person")
    check("command_runs", r.returncode == 0 and r.stdout.strip().endswith("Person"), r.stdout + r.stderr)
    n = int(r.stdout.split()[0]) if r.returncode == 0 else -1
    check("command_counts", n >= 4, r.stdout)  # $self, $system, Ada, Bo
    r = kip(*env_db, "count", "Person", "--json")
    check("command_options", r.returncode == 0 and json.loads(r.stdout)["count"] == n, r.stdout + r.stderr)
    r = kip("--extensions", ext, "--help")
    check("command_in_help", "count TYPE [--json]" in r.stdout, r.stdout[-800:])
    r = kip("--extensions", ext, "count", "--help")
    check("command_help", "usage: kip count TYPE" in r.stdout, r.stdout)
    r = kip(*env_db, "count", "Person", "--nope")
    check("command_unknown_option", r.returncode == 2 and "unknown option --nope" in r.stderr, r.stderr)
    r = kip("--db", db, "count", "Person")
    check("command_needs_folder", r.returncode == 2 and "unknown command 'count'" in r.stderr, r.stderr)
    envr = subprocess.run([KIP, "--db", db, "count", "Person"], capture_output=True, text=True,
                          env={**os.environ, "KIP_EXTENSIONS": ext}, timeout=60)
    check("command_from_env", envr.returncode == 0 and "Person" in envr.stdout, envr.stderr)
    # sandboxed: no io, no os.execute; the failure names the file and line
    write(os.path.join(ext, "commands", "escape.lua"),
          'return { summary = "tries to escape", run = function(cmd) return io.open("/etc/passwd") end }\n')
    r = kip(*env_db, "escape")
    check("command_sandboxed", r.returncode == 1 and "escape.lua:1" in r.stderr and "io" in r.stderr, r.stderr)
    write(os.path.join(ext, "commands", "spin.lua"),
          'return { summary = "loops", run = function(cmd) while true do end end }\n')
    r = kip(*env_db, "spin")
    check("command_budget", r.returncode == 1 and "instruction budget" in r.stderr, r.stderr)
    # a write needs writes = true: a command reads by default
    write(os.path.join(ext, "commands", "tag.lua"),
          'return { summary = "writes", run = function(cmd)\n'
          '  local r = cmd.nexus.execute(\'UPSERT { CONCEPT ?x { {type: "Person", name: "Cy"} } } '
          'WITH METADATA { source: "x", author: "x" }\')\n'
          '  cmd.print(r.error and r.error.code or "written") end }\n')
    r = kip(*env_db, "tag")
    check("command_reads_only", "KIP_" in r.stdout, r.stdout + r.stderr)
    # a built-in command cannot be replaced
    write(os.path.join(ext, "commands", "exec.lua"), 'return { summary = "shadow", run = function() return 9 end }\n')
    r = kip(*env_db, "exec", 'FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }')
    check("command_no_shadowing", r.returncode == 0 and "shadowed by the built-in" in r.stderr, r.stderr)
    os.remove(os.path.join(ext, "commands", "exec.lua"))

    # --- an MCP tool (and its hot reload in a running server)
    srv = subprocess.Popen([KIP, "mcp", *env_db, "--readonly"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)

    def rpc(i, method, params):
        srv.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        srv.stdin.flush()
        return json.loads(srv.stdout.readline())

    rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}})
    tools = [t["name"] for t in rpc(2, "tools/list", {})["result"]["tools"]]
    check("mcp_tool_listed", "count_concepts" in tools, tools)
    res = rpc(3, "tools/call", {"name": "count_concepts", "arguments": {"type": "Person"}})["result"]
    body = json.loads(res["content"][0]["text"])
    check("mcp_tool_runs", not res["isError"] and body["result"]["count"] == n, res)
    tool = os.path.join(ext, "mcp", "count_concepts.lua")
    src = open(tool).read()
    write(tool, src.replace("return { type = args.type,", "return { reloaded = true, type = args.type,"))
    time.sleep(1.2)  # a file is checked at most once a second
    res = rpc(4, "tools/call", {"name": "count_concepts", "arguments": {"type": "Person"}})["result"]
    check("mcp_tool_hot_reload", json.loads(res["content"][0]["text"])["result"].get("reloaded") is True, res)
    write(tool, "return { this is not Lua")
    time.sleep(1.2)
    res = rpc(5, "tools/call", {"name": "count_concepts", "arguments": {"type": "Person"}})["result"]
    check("mcp_tool_bad_reload_keeps_previous", json.loads(res["content"][0]["text"])["result"].get("reloaded") is True, res)
    srv.stdin.close()
    err = srv.stderr.read()
    srv.wait(timeout=30)
    check("mcp_tool_bad_reload_reported", "count_concepts.lua" in err and "keeping the previous version" in err, err)
    write(tool, src)

    # --- a policy kept in the folder
    r = kip("--extensions", ext, "policy", "list")
    check("policy_listed", "no_bot_writes" in r.stdout, r.stdout)
    r = kip(*env_db, "exec", "--policy", "default", "--policy", "no_bot_writes", "--actor", "bot:sync", people)
    check("policy_applies", r.returncode == 1 and "bots may not write" in r.stderr, r.stdout + r.stderr)

    # --- a sleep phase, added after orphans
    r = kip(*env_db, "sleep", "--json", "--now", "2026-11-20T00:00:00Z")
    rep = json.loads(r.stdout) if r.returncode == 0 else {"phases": []}
    names = [p["phase"] for p in rep["phases"]]
    check("sleep_phase_added", "people" in names and names.index("people") == names.index("orphans") + 1, names)
    counts = next((p["counts"] for p in rep["phases"] if p["phase"] == "people"), {})
    check("sleep_phase_counts", counts.get("without_email", 0) >= 1, counts)
    check("sleep_phase_flags", any(f.get("name") == "Bo" for f in rep.get("flagged", [])), rep.get("flagged", [])[:5])

    # --- an ARG step, added after bind (the clinic ontology of the tests)
    adb = os.path.join(tmp, "arg.db")
    r = kip("--db", adb, "arg", "init", "--ontology", os.path.join(ROOT, "tests", "arg", "clinic", "ontology.kip"))
    check("arg_init", r.returncode == 0, r.stderr)
    write(os.path.join(ext, "arg_steps", "mark.lua"),
          'return { after = "bind", run = function(st)\n'
          '  st.flags = st.flags or {}; st.flags[#st.flags + 1] = "OPERATOR_MARK" end }\n')
    ask = ["--db", adb, "--extensions", ext, "arg", "ask", "--role", "pet_owner", "--tenant", "rivera",
           "--user", "ana@rivera.example", "--json"]
    r = kip(*ask, "how do I pay my bill?")
    res = json.loads(r.stdout) if r.returncode == 0 else {}
    check("arg_step_added", "OPERATOR_MARK" in res.get("flags", []) and res.get("outcome") == "ANSWER", r.stdout[-600:] + r.stderr)
    check("arg_step_timed", "mark" in res.get("timings", {}), res.get("timings"))
    write(os.path.join(ext, "arg_steps", "lost.lua"), 'return { after = "nowhere", run = function(st) end }\n')
    r = kip(*ask, "how do I pay my bill?")
    check("arg_step_misplaced_fails_closed", r.returncode != 0 and "nowhere" in r.stderr, r.stdout[-300:] + r.stderr)
    os.remove(os.path.join(ext, "arg_steps", "lost.lua"))
    write(os.path.join(ext, "arg_steps", "mark.lua"), 'return { after = "bind", run = function(st) while true do end end }\n')
    r = kip(*ask, "how do I pay my bill?")
    res = json.loads(r.stdout) if r.stdout.startswith("{") else {}
    check("arg_step_budget_fails_closed", res.get("outcome") == "ABSTAIN"
          and any(e.get("code") == "ARG_STEP_FAILED" and "budget" in e.get("message", "") for e in res.get("errors", [])),
          r.stdout[-600:] + r.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
