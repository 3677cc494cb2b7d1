#!/usr/bin/env python3
"""End-to-end test of `kip mcp`: a scripted MCP client over stdio.

Usage: e2e_mcp.py KIP_BINARY
Drives the server through the handshake (each supported protocol version),
tools/list, tools/call (results, KIP errors, a readonly violation), resources,
prompts, ping and the JSON-RPC error paths, and checks that stdout carries
only protocol frames and that the server exits when stdin closes.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

KIP = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"FAIL {name}: {detail}")


class Client:
    def __init__(self, db, *args):
        self.p = subprocess.Popen([KIP, "--db", db, "mcp", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.next_id = 0

    def send_raw(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        check("frame is one JSON line", line.endswith("\n"), repr(line))
        return json.loads(line)

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_raw(json.dumps(msg))
        resp = self.read()
        check(f"{method} id", resp.get("id") == self.next_id, resp)
        return resp

    def notify(self, method):
        self.send_raw(json.dumps({"jsonrpc": "2.0", "method": method}))

    def close(self):
        self.p.stdin.close()
        rest = self.p.stdout.read()
        code = self.p.wait(timeout=20)
        return rest, code, self.p.stderr.read()


def hostile(c):
    """every line that carries an id gets an answer with that id; the server lives"""
    deep = '{"jsonrpc":"2.0","id":501,"method":"tools/call","params":{"name":"execute_kip","arguments":{"command":"DESCRIBE DOMAINS","parameters":{"x":' + "[" * 1000 + "]" * 1000 + "}}}}"
    cases = [
        (501, deep.encode()),
        (502, b'{"jsonrpc":"2.0","id":502,"method":"tools/call","params":{"name":"execute_kip_readonly","arguments":{"command":"FIND(?x) WHERE { ?x {type: \"Person\"} } LIMIT :n","parameters":{"n":10000000000000000000}}}}'),
        (503, b'{"jsonrpc":"2.0","id":503,"method":"tools/call","params":{"name":"execute_kip_readonly","arguments":{"command":"SEARCH CONCEPT :q","parameters":{"q":"\ud800x"}}}}'),
        (504, b'\xef\xbb\xbf{"jsonrpc":"2.0","id":504,"method":"ping"}'),
        (505, b'{"jsonrpc":"2.0","id":505,"method":"tools/call","params":{"name":"execute_kip_readonly","arguments":{"command":"SEARCH CONCEPT \"\xff\xfe\""}}}'),
        ("s-506", b'{"jsonrpc":"2.0","id":"s-506","method":"ping","params":{"x":"\xc3"}}'),
        (507, json.dumps({"jsonrpc": "2.0", "id": 507, "method": "tools/call", "params": {"name": "execute_kip", "arguments": {
            "command": 'UPSERT { CONCEPT ?x { {type: "Person", name: "Inf"} SET ATTRIBUTES { v: 1e999 } } }'}}}).encode()),
    ]
    for want, raw in cases:
        c.p.stdin.flush()
        c.p.stdin.buffer.write(raw + b"\n")
        c.p.stdin.buffer.flush()
        r = c.read()
        check(f"hostile line {want} answered with its id", r.get("id") == want, r)
    inf = json.loads(r["result"]["content"][0]["text"]) if "result" in r else r
    check("1e999 refused", "KIP_1001" in json.dumps(inf), inf)
    for bad_id in ({"a": 1}, True, 1.5):
        c.send_raw(json.dumps({"jsonrpc": "2.0", "id": bad_id, "method": "ping"}))
        r = c.read()
        check(f"id {bad_id!r} is an invalid request", r.get("error", {}).get("code") == -32600 and r["id"] is None, r)
    # random mutations of a valid request: never a crash, and an answer for every intact id
    rnd = random.Random(7)
    base = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "execute_kip_readonly",
                       "arguments": {"command": 'FIND(?p.name) WHERE { ?p {type: "Person"} } LIMIT 3', "parameters": {"k": [1, "x", {"y": None}]}}}})
    expected, lines = set(), []
    for n in range(1, 301):
        line = bytearray(base.replace('"id": 0', f'"id": {1000 + n}').encode())
        for _ in range(rnd.randint(1, 4)):
            pos = rnd.randrange(len(line))
            op = rnd.random()
            if op < 0.4:
                line[pos] = rnd.randrange(256)
            elif op < 0.7:
                del line[pos]
            else:
                line[pos:pos] = bytes([rnd.choice(b'{}[]",:\\0123456789')])
        line = bytes(line).replace(b"\n", b" ")
        if f'"id": {1000 + n},'.encode() in line:
            expected.add(1000 + n)
        lines.append(line)
    got = set()

    def reader():  # read while writing: neither pipe may fill up
        while True:
            r = c.read()
            if r.get("id") == 9999:
                return
            got.add(r.get("id"))
    t = threading.Thread(target=reader)
    t.start()
    for line in lines:
        c.p.stdin.buffer.write(line + b"\n")
    c.p.stdin.buffer.flush()
    c.send_raw(json.dumps({"jsonrpc": "2.0", "id": 9999, "method": "ping"}))
    t.join(timeout=60)
    check("fuzzed lines: every intact id answered", expected <= got, sorted(expected - got)[:10])
    check("server alive after fuzzing", c.request("ping")["result"] == {})


def stability(db):
    """tools/list is byte-for-byte the same across starts"""
    frames = []
    for _ in range(3):
        c = Client(db)
        c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        c.send_raw(json.dumps({"jsonrpc": "2.0", "id": 77, "method": "tools/list"}))
        frames.append(c.p.stdout.readline())
        c.close()
    check("tools/list byte-stable", len(set(frames)) == 1, [f[:80] for f in frames])


def big_results(db, tmp):
    """a result over the cap is a KIP_4002 with paging advice; the session goes on"""
    cap = os.path.join(tmp, "many.kip")
    with open(cap, "w") as f:
        f.write("UPSERT {\n")
        for i in range(3000):
            f.write('  CONCEPT ?c%d { {type: "Person", name: "Many %d"} SET ATTRIBUTES { note: "%s" } }\n' % (i, i, "x" * 100))
        f.write("} WITH METADATA { source: \"e2e\", author: \"mcp\" }\n")
    subprocess.run([KIP, "--db", db, "import", "-q", cap], check=True, capture_output=True)
    c = Client(db)
    c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    r = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'FIND(?p) WHERE { ?p {type: "Person"} } LIMIT 5000'}})["result"]
    text = r["content"][0]["text"]
    check("large result capped", r["isError"] is True and "KIP_4002" in text and "CURSOR" in text and len(text) < 2000, text[:300])
    ok = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'FIND(?p.name) WHERE { ?p {type: "Person"} } LIMIT 100'}})["result"]
    check("paged result fits", ok["isError"] is False and "next_cursor" in ok["content"][0]["text"], ok["content"][0]["text"][:200])
    c.close()
    c = Client(db, "--max-response-bytes", "2048")
    c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    r = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'FIND(?p.name) WHERE { ?p {type: "Person"} } LIMIT 1000'}})["result"]
    check("--max-response-bytes", "KIP_4002" in r["content"][0]["text"], r["content"][0]["text"][:200])
    c.close()


def cancellation(db, tmp):
    """notifications/cancelled stops a running batch (no answer for it); a broken
    stdout stops the server instead of letting it run on alone"""
    slow = {"commands": ['FIND(COUNT(?a)) WHERE { ?a {type: "Person"} ?b {type: "Person"} FILTER(?a.attributes.note < ?b.name) }'] * 100}
    c = Client(db)
    c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    t0 = time.time()
    c.send_raw(json.dumps({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                           "params": {"name": "execute_kip_readonly", "arguments": slow}}))
    time.sleep(0.2)
    c.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41, "reason": "test"}}))
    c.send_raw(json.dumps({"jsonrpc": "2.0", "id": 42, "method": "ping"}))
    r = c.read()
    check("cancelled request not answered; the next one is", r.get("id") == 42, r)
    check("cancellation is prompt", time.time() - t0 < 5, time.time() - t0)
    c.close()
    # the same batch uncancelled takes a while: a baseline for the broken-stdout case
    p = subprocess.Popen([KIP, "--db", db, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}) + "\n").encode())
    p.stdin.flush()
    p.stdout.readline()
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                               "params": {"name": "execute_kip_readonly", "arguments": slow}}) + "\n").encode())
    p.stdin.flush()
    time.sleep(0.2)
    t0 = time.time()
    p.stdout.close()  # the client goes away without closing stdin
    try:
        p.wait(timeout=10)
        check("broken stdout stops the server", time.time() - t0 < 5, time.time() - t0)
    except subprocess.TimeoutExpired:
        p.kill()
        check("broken stdout stops the server", False, "still running after 10 s")


def startup_failures(tmp):
    """the README configuration form works; a start-up failure is said on stderr and to the client"""
    r = subprocess.run([KIP, "mcp", "--db", os.path.join(tmp, "cfg.db")], input=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}) + "\n",
        capture_output=True, text=True, timeout=30)
    check("kip mcp --db PATH (global option after the subcommand)", '"protocolVersion"' in r.stdout, r.stderr)
    r = subprocess.run([KIP, "mcp", "--db", "/nonexistent-dir/x/y.db"], input=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}) + "\n",
        capture_output=True, text=True, timeout=30)
    resp = json.loads(r.stdout) if r.stdout.strip() else {}
    check("start-up failure answered to the client", resp.get("id") == 1 and "could not start" in resp.get("error", {}).get("message", ""), r.stdout)
    check("start-up failure on stderr", "cannot open the nexus" in r.stderr and r.returncode != 0, (r.returncode, r.stderr))
    r = subprocess.run([KIP, "mcp", "--bogus"], input="", capture_output=True, text=True, timeout=30)
    check("unknown option on stderr", "unknown option --bogus" in r.stderr, r.stderr)


def main():
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "mcp.db")

    # handshake and version negotiation
    for version, expect in [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"),
                            ("2025-03-26", "2025-03-26"), ("2025-05-01", "2025-03-26"),
                            ("2024-11-05", "2024-11-05"), ("2030-01-01", "2025-11-25"),
                            ("1999-01-01", "2025-11-25")]:
        c = Client(db)
        r = c.request("initialize", {"protocolVersion": version, "capabilities": {},
                                     "clientInfo": {"name": "e2e", "version": "1"}})
        res = r.get("result", {})
        check(f"negotiate {version}", res.get("protocolVersion") == expect, res.get("protocolVersion"))
        check("serverInfo", res.get("serverInfo", {}).get("name") == "kipnexus", res)
        check("capabilities", "tools" in res.get("capabilities", {}), res)
        check("instructions", "DESCRIBE PRIMER" in res.get("instructions", ""), res)
        rest, code, _ = c.close()
        check("exit on stdin close", code == 0 and rest == "", (code, rest))

    c = Client(db)
    c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e"}})
    c.notify("notifications/initialized")  # no response expected

    # tools/list: both tools with the published input schemas
    tools = c.request("tools/list")["result"]["tools"]
    names = [t["name"] for t in tools]
    check("tools", names == ["execute_kip", "execute_kip_readonly"], names)
    ref = json.load(open(os.path.join(HERE, "..", "lua", "kip", "mcp", "execute_kip.json")))
    flat = {k: v for k, v in ref["parameters"].items() if k != "oneOf"}
    check("schema is a flat object", tools[0]["inputSchema"] == flat and tools[0]["inputSchema"]["type"] == "object",
          tools[0]["inputSchema"])
    check("description carries the syntax card", 1500 < len(tools[0]["description"]) < 4000
          and "DESCRIBE PRIMER" in tools[0]["description"], len(tools[0]["description"]))
    check("annotations", tools[0]["annotations"]["destructiveHint"] is True
          and tools[1]["annotations"]["readOnlyHint"] is True, tools[0].get("annotations"))

    # tools/call: a write, a read, a KIP error, a readonly violation
    w = c.request("tools/call", {"name": "execute_kip", "arguments": {
        "command": 'UPSERT { CONCEPT ?p { {type: "Person", name: :n} SET ATTRIBUTES { person_class: "Human" } } } '
                   'WITH METADATA { source: "e2e", author: "mcp-test" }', "parameters": {"n": "Ada"}}})["result"]
    check("write ok", w["isError"] is False and '"blocks":1' in w["content"][0]["text"], w)
    q = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'FIND(?p.attributes.person_class) WHERE { ?p {type: "Person", name: "Ada"} }'}})["result"]
    check("read", q["content"][0]["type"] == "text" and json.loads(q["content"][0]["text"]) == {"result": ["Human"]}, q)
    check("the payload is sent once", "structuredContent" not in q and len(q["content"]) == 1, q)
    e = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {"command": "FIND(?x WHERE"}})["result"]
    check("kip error isError", e["isError"] is True and "KIP_1001" in e["content"][0]["text"], e)
    ro = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'UPSERT { CONCEPT ?p { {type: "Person", name: "Eve"} } }'}})["result"]
    check("readonly violation", ro["isError"] is True and "KIP_4004" in ro["content"][0]["text"], ro)
    sec = c.request("tools/call", {"name": "execute_kip", "arguments": {
        "command": 'UPSERT { CONCEPT ?p { {type: "Person", name: "Eve"} SET ATTRIBUTES { note: "password: s3cr3t!!" } } }'}})["result"]
    check("default policy refuses secrets", sec["isError"] is True and "secret" in sec["content"][0]["text"], sec)
    # RC11 edge cases decided once (docs/decisions.md): the same answers as kip call
    miss = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'FIND(?x) WHERE { ?x {type: "Person", name: "Nope"} }'}})["result"]
    check("missing anchor warning", json.loads(miss["content"][0]["text"]) == {
        "result": [], "warnings": ['anchor {type: "Person", name: "Nope"} does not exist']}, miss)
    for label, cmd, want in [
        ("empty DELETE warns", 'DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Person", name: "Nope"} }', '"warnings":["?x matched nothing'),
        ("DELETE of a missing {id} is KIP_3002", 'DELETE CONCEPT ?x DETACH WHERE { ?x {id: "C:999999"} }', "KIP_3002"),
        ("Genesis wiring is protected", 'DELETE PROPOSITIONS ?l WHERE { ?l ({type: "$ConceptType", name: "$ConceptType"}, "belongs_to_domain", ?d) }', "KIP_3004"),
        ("self-loop warns", 'UPSERT { CONCEPT ?x { {type: "Person", name: "Loop"} SET PROPOSITIONS { ("mentions", ?x) } } } WITH METADATA { source: "e2e", author: "mcp" }', "self-loop"),
    ]:
        r = c.request("tools/call", {"name": "execute_kip", "arguments": {"command": cmd}})["result"]
        check(label, want in r["content"][0]["text"], r)
    prot = c.request("tools/call", {"name": "execute_kip", "arguments": {
        "command": 'UPSERT { CONCEPT ?d { {type: "Domain", name: "CoreSchema"} } WITH METADATA { source: "attacker" } }'}})["result"]
    check("protected metadata refused", prot["isError"] is True and "KIP_3004" in prot["content"][0]["text"], prot)
    bad = c.request("tools/call", {"name": "execute_kip", "arguments": {"command": "DESCRIBE DOMAINS", "bogus": 1}})["result"]
    check("envelope error", bad["isError"] is True and "unknown field" in bad["content"][0]["text"], bad)

    # a link returned to the agent was used: it regains memory strength (once a day)
    c.request("tools/call", {"name": "execute_kip", "arguments": {
        "command": 'UPSERT { CONCEPT ?b { {type: "Person", name: "Bea"} } PROPOSITION ?l { ({type: "Person", name: "Ada"}, "mentions", ?b) } } '
                   'WITH METADATA { source: "e2e", author: "mcp-test", memory_strength: 0.3, observed_at: "2026-01-01T00:00:00Z" }'}})
    link = 'FIND(?l) WHERE { ?l ({type: "Person", name: "Ada"}, "mentions", {type: "Person", name: "Bea"}) }'
    strengths = []
    for _ in range(2):
        r = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {"command": link}})["result"]
        strengths.append(json.loads(r["content"][0]["text"])["result"][0]["metadata"]["memory_strength"])
    r = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {"command": link}})["result"]
    md = json.loads(r["content"][0]["text"])["result"][0]["metadata"]
    check("use reinforces a returned link once", strengths == [0.3, 0.5] and md["memory_strength"] == 0.5
          and md["observed_at"] > "2026-01-02", (strengths, md))

    # JSON-RPC error paths
    check("unknown tool", c.request("tools/call", {"name": "nope", "arguments": {}})["error"]["code"] == -32602)
    check("bad arguments", c.request("tools/call", {"name": "execute_kip", "arguments": [1]})["error"]["code"] == -32602)
    check("unknown method", c.request("nope/nope")["error"]["code"] == -32601)
    c.send_raw("{not json")
    r = c.read()
    check("parse error", r["error"]["code"] == -32700 and r["id"] is None, r)
    c.send_raw(json.dumps({"jsonrpc": "1.0", "id": 99, "method": "ping"}))
    r = c.read()
    check("invalid request", r["error"]["code"] == -32600 and r["id"] == 99, r)
    check("ping", c.request("ping")["result"] == {}, "")

    # resources and prompts
    res = c.request("resources/list")["result"]["resources"]
    uris = [x["uri"] for x in res]
    check("resources", uris == ["kip://syntax", "kip://primer"], uris)
    syn = c.request("resources/read", {"uri": "kip://syntax"})["result"]["contents"][0]
    check("syntax card", "KIP" in syn["text"] and syn["mimeType"] == "text/markdown", syn["mimeType"])
    pri = c.request("resources/read", {"uri": "kip://primer"})["result"]["contents"][0]
    check("primer", "domain_map" in pri["text"], pri["text"][:200])
    check("unknown resource", c.request("resources/read", {"uri": "kip://nope"})["error"]["code"] == -32602)
    nouri = c.request("resources/read", {})["error"]
    check("resources/read without uri", nouri["code"] == -32602 and "needs params.uri" in nouri["message"], nouri)
    pr = c.request("prompts/get", {"name": "kip_grounding"})["result"]
    check("prompt", "DESCRIBE PRIMER" in pr["messages"][0]["content"]["text"], pr)
    hostile(c)
    rest, code, err = c.close()
    check("clean exit", code == 0 and rest == "", (code, rest, err))
    stability(db)
    big_results(db, tmp)
    cancellation(db, tmp)
    startup_failures(tmp)

    # --readonly server: only the readonly tool
    c = Client(db, "--readonly")
    c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    names = [t["name"] for t in c.request("tools/list")["result"]["tools"]]
    check("readonly tools", names == ["execute_kip_readonly"], names)
    check("readonly server refuses execute_kip",
          c.request("tools/call", {"name": "execute_kip", "arguments": {"command": "DESCRIBE DOMAINS"}})["error"]["code"] == -32602)
    c.close()

    for f in failures:
        print(f)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
