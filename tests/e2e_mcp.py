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
import subprocess
import sys
import tempfile

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


def main():
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "mcp.db")

    # handshake and version negotiation
    for version, expect in [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"),
                            ("2024-11-05", "2024-11-05"), ("1999-01-01", "2025-11-25")]:
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
    check("schema", tools[0]["inputSchema"] == ref["parameters"], tools[0]["inputSchema"])
    check("description", len(tools[0]["description"]) > 40, tools[0])

    # tools/call: a write, a read, a KIP error, a readonly violation
    w = c.request("tools/call", {"name": "execute_kip", "arguments": {
        "command": 'UPSERT { CONCEPT ?p { {type: "Person", name: :n} SET ATTRIBUTES { person_class: "Human" } } } '
                   'WITH METADATA { source: "e2e", author: "mcp-test" }', "parameters": {"n": "Ada"}}})["result"]
    check("write ok", w["isError"] is False and '"blocks":1' in w["content"][0]["text"], w)
    q = c.request("tools/call", {"name": "execute_kip_readonly", "arguments": {
        "command": 'FIND(?p.attributes.person_class) WHERE { ?p {type: "Person", name: "Ada"} }'}})["result"]
    check("read", q["content"][0]["type"] == "text" and json.loads(q["content"][0]["text"]) == {"result": ["Human"]}, q)
    check("structured", q.get("structuredContent") == {"result": ["Human"]}, q)
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
    check("missing anchor warning", miss.get("structuredContent") == {
        "result": [], "warnings": ['anchor {type: "Person", name: "Nope"} does not exist']}, miss)
    prot = c.request("tools/call", {"name": "execute_kip", "arguments": {
        "command": 'UPSERT { CONCEPT ?d { {type: "Domain", name: "CoreSchema"} } WITH METADATA { source: "attacker" } }'}})["result"]
    check("protected metadata refused", prot["isError"] is True and "KIP_3004" in prot["content"][0]["text"], prot)
    bad = c.request("tools/call", {"name": "execute_kip", "arguments": {"command": "DESCRIBE DOMAINS", "bogus": 1}})["result"]
    check("envelope error", bad["isError"] is True and "unknown field" in bad["content"][0]["text"], bad)

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
    pr = c.request("prompts/get", {"name": "kip_grounding"})["result"]
    check("prompt", "DESCRIBE PRIMER" in pr["messages"][0]["content"]["text"], pr)
    rest, code, err = c.close()
    check("clean exit", code == 0 and rest == "", (code, rest, err))

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
