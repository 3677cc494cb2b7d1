#!/usr/bin/env python3
"""Adversarial end-to-end test of the governance scope (docs/security.md).

Usage: e2e_security.py BUILD_DIR [--no-http]

The scope-probe matrix: two nexus files built alike, A with private
elements added last (a private Person "Hal", a private Project, private
links, a public link to a private endpoint, a link about a hidden link) and
B without them. Every read probe (FIND, FIND by name and by id, COUNT,
FILTER, ORDER BY, SEARCH CONCEPT / PROPOSITION, DESCRIBE, EXPORT, cursor
pages) goes through the CLI (`kip call`), MCP (`kip mcp`, execute_kip_readonly)
and HTTP (nginx + lua/kip/http.lua, when installed), for no counterparty, an
unknown one and a known one. With no or an unknown counterparty, A's answer
must equal B's answer (ids and timestamps normalised): nothing of the private
elements shows, not even as a count, and a hidden element answers exactly
like a missing one. With the known counterparty ("Hal") his private facts
must show (the matrix is not vacuous). Writes to hidden targets answer like
writes to missing ones. Under nginx, hostile policies (a pattern bomb and a
memory bomb) fail closed while /kip/health keeps answering. Finally a
read-only file opens for reads (as an unprivileged user), and a write beyond
the file-size limit is an error the command reports, with nothing half-written,
and a pattern whose unconnected parts would pair every match with every other
is refused before it runs, within 256 MB and a few seconds.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

BUILD = os.path.abspath(sys.argv[1])
KIP = os.path.join(BUILD, "kip")
HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from fixtures import Checks, free_port, start_nginx  # noqa: E402  (tests/fixtures.py)

checks = Checks(600)
check = checks.check


COMMON = """UPSERT {
  CONCEPT ?pt { {type: "$ConceptType", name: "Project"} }
  CONCEPT ?wo { {type: "$PropositionType", name: "works_on"} }
  CONCEPT ?ob { {type: "$PropositionType", name: "observed_in"} }
  CONCEPT ?dom { {type: "Domain", name: "Work"} }
  CONCEPT ?bob { {type: "Person", name: "Bob"} SET ATTRIBUTES { person_class: "Human", level: 3 } }
  CONCEPT ?ann { {type: "Person", name: "Ann"} SET ATTRIBUTES { person_class: "Human", level: 5 } }
  CONCEPT ?apollo { {type: "Project", name: "Apollo"} SET ATTRIBUTES { budget: 10 }
    SET PROPOSITIONS { ("belongs_to_domain", ?dom) } }
  PROPOSITION ?l1 { (?bob, "works_on", ?apollo) }
} WITH METADATA { source: "e2e", author: "security" }"""

PRIVATE = """UPSERT {
  CONCEPT ?hal { {type: "Person", name: "Hal"} SET ATTRIBUTES { person_class: "Human", level: 99, note: "zeta-secret-1" } }
  CONCEPT ?atlas { {type: "Project", name: "Atlas"} SET ATTRIBUTES { budget: 999999, note: "zeta-secret-2" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Work"}) } }
  PROPOSITION ?h1 { (?hal, "works_on", ?atlas) }
} WITH METADATA { source: "e2e", author: "security", access_level: "private" }
UPSERT {
  PROPOSITION ?l2 { ({type: "Person", name: "Bob"}, "works_on", {type: "Project", name: "Atlas"}) }
  PROPOSITION ?l3 { (({type: "Person", name: "Hal"}, "works_on", {type: "Project", name: "Atlas"}), "observed_in", {type: "Project", name: "Apollo"}) }
} WITH METADATA { source: "e2e", author: "security" }"""


def run(args, stdin=None):
    r = subprocess.run([KIP, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return r.stdout


def build(path, private):
    run(["--db", path, "exec", "--no-policies", COMMON])
    if private:
        out = run(["--db", path, "exec", "--no-policies", "--json", PRIVATE])
        check("fixture A written", '"upsert_concept_nodes"' in out, out)
    ids = json.loads(run(["--db", path, "call", "--no-policies"], json.dumps(
        {"command": 'FIND(?h.id) WHERE { ?h {type: "Person", name: "Hal"} }'})))
    return (ids.get("result") or [None])[0]


# ids (also as capsule handles ?c<n>), timestamps and cursor tokens differ between two files
NORMALISE = [(re.compile(r'\b[CP]:\d+\b'), 'ID'), (re.compile(r'\?[cp]\d+\b'), "?H"),
             (re.compile(r'\d{4}-\d\d-\d\dT[0-9:.]+Z'), "TIME"),
             (re.compile(r'"(next_)?cursor": ?"[^"]*"'), '"cursor": "…"')]


def norm(text):
    for rx, rep in NORMALISE:
        text = rx.sub(rep, text)
    return text


MISSING_ID = "C:999999999999999"  # no nexus has it (ids stay below 2^53 but are spread)


def probes(target_id):
    hid = target_id or MISSING_ID
    return {
        "find_type": 'FIND(?p.name, ?p.attributes) WHERE { ?p {type: "Person"} } ORDER BY ?p.name',
        "find_name": 'FIND(?p) WHERE { ?p {type: "Person", name: "Hal"} }',
        "find_id": 'FIND(?p) WHERE { ?p {id: "%s"} }' % hid,
        "count": 'FIND(COUNT(?x)) WHERE { ?x {type: "Project"} }',
        "count_links": 'FIND(COUNT(?l)) WHERE { ?l (?s, "works_on", ?o) }',
        "filter": 'FIND(?x.name) WHERE { ?x {type: "Project"} FILTER(?x.attributes.budget > 100) }',
        "order": 'FIND(?p.name, ?p.attributes.level) WHERE { ?p {type: "Person"} } ORDER BY ?p.attributes.level DESC LIMIT 1',
        "links": 'FIND(?s.name, ?o.name) WHERE { (?s, "works_on", ?o) } ORDER BY ?s.name',
        "higher_order": 'FIND(?l, ?x.name) WHERE { ?l (?p, "observed_in", ?x) }',
        "hops": 'FIND(?o.name) WHERE { ?b {type: "Person", name: "Bob"} (?b, "works_on"{1,3}, ?o) }',
        "search_name": 'SEARCH CONCEPT "Hal"',
        "search_attr": 'SEARCH CONCEPT "zeta-secret-2"',
        "search_prop": 'SEARCH PROPOSITION "works_on"',
        # vectors shortlist and rank inside the scope, never around it
        "semantic_name": 'SEARCH CONCEPT "Hal" MODE "semantic"',
        "semantic_attr": 'SEARCH CONCEPT "zeta-secret-2 budget" MODE "semantic"',
        "semantic_meaning": 'SEARCH CONCEPT "a person who works on a big project" MODE "semantic" LIMIT 20',
        "semantic_prop": 'SEARCH PROPOSITION "Hal works on Atlas" MODE "semantic"',
        "hybrid_name": 'SEARCH CONCEPT "Hal" MODE "hybrid"',
        "hybrid_attr": 'SEARCH CONCEPT "zeta-secret-2" MODE "hybrid" THRESHOLD 0.1',
        "hybrid_prop": 'SEARCH PROPOSITION "works on" MODE "hybrid" LIMIT 20',
        "describe_domains": "DESCRIBE DOMAINS",
        "describe_primer": "DESCRIBE PRIMER",
        "describe_type": 'DESCRIBE CONCEPT TYPE "Project"',
        "export": 'EXPORT ?x WHERE { ?x {type: "Project"} }',
        "export_links": 'EXPORT ?l WHERE { ?l (?s, "works_on", ?o) }',
    }


CURSOR_QUERY = 'FIND(?p.name) WHERE { ?p {type: "Person"} } ORDER BY ?p.name LIMIT 1'


# ------------------------------------------------------------- channels
class CLI:
    name = "cli"

    def __init__(self, db, cp):
        self.db, self.cp = db, cp

    def call(self, req):
        args = ["--db", self.db, "call", "--readonly"] + (["--counterparty", self.cp] if self.cp else [])
        return run(args, json.dumps(req)).strip()

    def close(self):
        pass


class MCP:
    name = "mcp"

    def __init__(self, db, cp):
        args = [KIP, "--db", db, "mcp"] + (["--counterparty", cp] if cp else [])
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.n = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def rpc(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def call(self, req):
        args = {"command": req["command"]}
        if "parameters" in req:
            args["parameters"] = req["parameters"]
        r = self.rpc("tools/call", {"name": "execute_kip_readonly", "arguments": args})
        res = r.get("result", {})
        return res["content"][0]["text"] if "content" in res else json.dumps(r)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=20)


class HTTP:
    name = "http"

    def __init__(self, url, cp):
        self.url, self.cp = url, cp

    def post(self, path, body, headers=None):
        h = {"Content-Type": "application/json"}
        if self.cp:
            h["X-KIP-Counterparty"] = self.cp
        h.update(headers or {})
        rq = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), headers=h, method="POST")
        with urllib.request.urlopen(rq, timeout=60) as r:
            return r.read().decode()

    def call(self, req):
        return self.post("/execute_readonly", req).strip()

    def close(self):
        pass


def canonical(text):
    """the KIP response as canonical JSON (key order), normalised"""
    try:
        return norm(json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False))
    except ValueError:
        return norm(text)


def cursor_pages(ch):
    names, req = [], {"command": CURSOR_QUERY}
    for _ in range(20):
        r = json.loads(ch.call(req))
        names += r.get("result", [])
        nxt = r.get("next_cursor")
        if not nxt:
            break
        req = {"command": CURSOR_QUERY.replace("LIMIT 1", "LIMIT 1 CURSOR :c"), "parameters": {"c": nxt}}
    return names


def matrix(make_a, make_b, hal_id, channel):
    for cp in (None, "Nobody", "Hal"):
        a, b = make_a(cp), make_b(cp)
        label = f"{channel}/{cp or 'none'}"
        differs = 0
        # A asks for the hidden id, B for an id it does not have
        for (name, cmd), cmd_b in zip(probes(hal_id).items(), probes(MISSING_ID).values()):
            ra, rb = a.call({"command": cmd}), b.call({"command": cmd_b})
            if cp == "Hal":
                differs += canonical(ra) != canonical(rb)
            else:
                check(f"{label}/{name} hidden == missing", canonical(ra) == canonical(rb), f"\nA: {ra}\nB: {rb}")
                check(f"{label}/{name} no private marker", "zeta-secret" not in ra and "999999" not in ra, ra)
        pa, pb = cursor_pages(a), cursor_pages(b)
        if cp == "Hal":
            check(f"{label} sees his own private facts", differs >= 5 and "Hal" in pa, (differs, pa))
        else:
            check(f"{label}/cursor pages", pa == pb and "Hal" not in pa, (pa, pb))
        a.close()
        b.close()


def writes(db_a, db_b, hal_id):
    """writes touching a hidden element answer like writes touching a missing one"""
    for cmd in ('UPSERT { PROPOSITION ?x { ({type: "Person", name: "Ann"}, "works_on", {type: "Project", name: "Atlas"}) } }',
                'UPSERT { PROPOSITION ?x { ({type: "Person", name: "Ann"}, "works_on", {id: "ID"}) } }',
                'UPDATE ?x SET ATTRIBUTES { level: 0 } WHERE { ?x {type: "Person", name: "Hal"} }',
                'DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Project", name: "Atlas"} }',
                'MERGE CONCEPT ?s INTO ?t WHERE { ?s {type: "Project", name: "Apollo"} ?t {type: "Project", name: "Atlas"} }'):
        req_a = json.dumps({"command": cmd.replace("ID", hal_id or MISSING_ID), "dry_run": True})
        req_b = json.dumps({"command": cmd.replace("ID", MISSING_ID), "dry_run": True})
        ra = run(["--db", db_a, "call", "--counterparty", "Nobody"], req_a)
        rb = run(["--db", db_b, "call", "--counterparty", "Nobody"], req_b)
        check(f"write hidden == missing: {cmd[:60]}", canonical(ra) == canonical(rb), f"\nA: {ra}\nB: {rb}")


# ---------------------------------------------------------------- nginx
HOSTILE = """return kip.policy { name = "hostile", priority = 50, pre_check = function(req)
  local c = req.command or ""
  if c:find("PATTERNBOMB", 1, true) then return (string.rep("a", 20000)):find(string.rep("a*", 30) .. "b") end
  if c:find("MEMORYBOMB", 1, true) then local s = "x" for i = 1, 40 do s = s .. s end end
  if c:find("ENCODEBOMB", 1, true) then local t = {} t.t = t return json.encode(t) end
end }
"""


def nginx_matrix(db_a, db_b, hal_id, tmp):
    if "--no-http" in sys.argv:
        print("--no-http: the HTTP probes are left out (the sanitizer tree: its kip/core.so cannot load into nginx)")
        return
    if not shutil.which("nginx") or not os.path.exists("/usr/lib/nginx/modules/ngx_http_lua_module.so") \
            or not os.path.exists(os.path.join(BUILD, "luajit/kip/core.so")):
        # scripts/setup-deps installs them: their absence fails rather than skip the probes
        check("nginx with its Lua module and the LuaJIT kip.core are installed (scripts/setup-deps; --no-http to leave HTTP out)",
              False)
        return
    servers = []
    try:
        pol = os.path.join(tmp, "policies")
        os.makedirs(pol)
        with open(os.path.join(pol, "hostile.lua"), "w") as f:
            f.write(HOSTILE)
        urls = []
        for tag, db in (("a", db_a), ("b", db_b)):
            port = free_port()
            prefix = os.path.join(tmp, "nginx-" + tag)
            subprocess.run([os.path.join(HOME, "scripts/nginx/render"), prefix, str(port), db, BUILD],
                           check=True, capture_output=True)
            conf = os.path.join(prefix, "conf/kip.conf")
            text = open(conf).read().replace('policies = { "default" },',
                                             'policies = { "default", "hostile" }, policy_dirs = { "%s" },' % pol)
            open(conf, "w").write(text)
            subprocess.run(["chmod", "-R", "777", os.path.join(prefix, "tmp")])
            port = start_nginx(prefix)
            servers.append(prefix)
            url = f"http://127.0.0.1:{port}/kip"
            for _ in range(50):
                try:
                    urllib.request.urlopen(url + "/health", timeout=2)
                    break
                except OSError:
                    time.sleep(0.1)
            urls.append(url)
        matrix(lambda cp: HTTP(urls[0], cp), lambda cp: HTTP(urls[1], cp), hal_id, "http")
        # hostile policies: each fails closed within its budget; health keeps answering
        h = HTTP(urls[0], None)
        for bomb in ("PATTERNBOMB", "MEMORYBOMB", "ENCODEBOMB"):
            t0 = time.time()
            r = h.call({"command": 'SEARCH CONCEPT "%s"' % bomb})
            check(f"nginx {bomb} fails closed", '"KIP_4004"' in r and time.time() - t0 < 20, r)
            with urllib.request.urlopen(urls[0] + "/health", timeout=10) as resp:
                check(f"nginx health after {bomb}", b'"ok"' in resp.read())
        ok = h.call({"command": 'FIND(?p.name) WHERE { ?p {type: "Person", name: "Bob"} }'})
        check("nginx answers after the bombs", '"Bob"' in ok, ok)
    finally:
        for prefix in servers:
            pid = os.path.join(prefix, "logs/nginx.pid")
            if os.path.exists(pid):
                subprocess.run(["kill", open(pid).read().strip()])
        time.sleep(0.3)


def readonly_file(db, tmp):
    """a nexus whose file and directory are not writable opens for reads"""
    d = os.path.join(tmp, "ro")
    os.makedirs(d)
    shutil.copy(db, os.path.join(d, "n.db"))
    os.chmod(os.path.join(d, "n.db"), 0o444)
    os.chmod(d, 0o555)
    os.chmod(tmp, 0o755)
    cmd = [KIP, "--db", os.path.join(d, "n.db"), "exec", "--no-policies", 'FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }']
    wcmd = cmd[:-1] + ['UPSERT { CONCEPT ?p { {type: "Person", name: "Zed"} } }']
    if os.geteuid() == 0:  # root writes anything: drop to nobody
        pre = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        cmd, wcmd = pre + cmd, pre + wcmd
    r = subprocess.run(cmd, capture_output=True, text=True)
    check("read-only file: reads work", r.returncode == 0 and r.stdout.strip().isdigit(), r.stdout + r.stderr)
    check("read-only file: said once", r.stderr.count("opened read-only") == 1, r.stderr)
    w = subprocess.run(wcmd, capture_output=True, text=True)
    check("read-only file: writes refused", "KIP_4004" in w.stdout + w.stderr and "read-only" in w.stdout + w.stderr,
          w.stdout + w.stderr)


def file_size_limit(tmp):
    """under `ulimit -f` a write that cannot fit is an error the command reports
    (rolled back), not a death by SIGXFSZ; the nexus stays intact"""
    import resource
    db = os.path.join(tmp, "fsize.db")
    run(["--db", db, "exec", "--no-policies", 'FIND(COUNT(?x)) WHERE { ?x {type: "Person"} }'])
    size = os.path.getsize(db) + os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else os.path.getsize(db)
    big = "x" * 200000
    blocks = " ".join('CONCEPT ?c%d { {type: "Person", name: "big%d"} SET ATTRIBUTES { blob: :b } }' % (i, i)
                      for i in range(20))
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 512 * 1024, size + 512 * 1024))
    r = subprocess.run([KIP, "--db", db, "call", "--no-policies"], input=json.dumps(
        {"command": "UPSERT { %s }" % blocks, "parameters": {"b": big}}), capture_output=True, text=True, preexec_fn=limit,
        timeout=60)
    check("file-size limit: answered, not killed", r.returncode >= 0 and '"error"' in r.stdout, (r.returncode, r.stdout[:300], r.stderr[:300]))
    check("file-size limit: says what happened", "file-size limit" in r.stdout or "disk" in r.stdout, r.stdout[:300])
    n = run(["--db", db, "exec", "--no-policies", 'FIND(COUNT(?x)) WHERE { ?x {type: "Person"} FILTER(STARTS_WITH(?x.name, "big")) }'])
    check("file-size limit: nothing half-written", n.strip() == "0", n)
    ok = subprocess.run(["sqlite3", db, "PRAGMA integrity_check"], capture_output=True, text=True).stdout.strip() \
        if shutil.which("sqlite3") else "ok"
    check("file-size limit: integrity ok", ok == "ok", ok)


def import_secrets(tmp):
    """kip import refuses a statement carrying a secret (the other statements land)"""
    cap = os.path.join(tmp, "secret.kip")
    with open(cap, "w") as f:
        f.write('UPSERT { CONCEPT ?a { {type: "Person", name: "Fine"} } }\n'
                'UPSERT { CONCEPT ?b { {type: "Person", name: "Leaky"} SET ATTRIBUTES { key: "sk-abcdefghijklmnopqrstuvwx" } } }\n')
    db = os.path.join(tmp, "import.db")
    r = subprocess.run([KIP, "--db", db, "import", cap], capture_output=True, text=True, timeout=60)
    check("import refuses the secret with its line", r.returncode == 1 and "secret.kip:2: KIP_4004" in r.stderr, r.stderr)
    n = run(["--db", db, "exec", "--no-policies", 'FIND(?p.name) WHERE { ?p {type: "Person"} FILTER(?p.name == "Fine" || ?p.name == "Leaky") }'])
    check("import applied the clean statement only", json.loads(n) == ["Fine"], n)


def cross_product(tmp):
    """A 60-byte pattern of two unconnected, unanchored link clauses on a
    6 000-element nexus: every pairing of 7 000 links would be a solution
    (48 M rows; it held 5 GB for 31 s). It is refused before it runs, in
    little memory and time; the same links through a shared variable, or
    anchored, still answer."""
    db = os.path.join(tmp, "cross.db")
    r = subprocess.run([KIP, "run", os.path.join(HOME, "scripts", "bench", "sleep.lua"), "4300", db, "load"],
                       capture_output=True, text=True, timeout=120)
    check("cross product: nexus built", r.returncode == 0, r.stderr[-500:])
    t0 = time.time()
    p = subprocess.Popen([KIP, "--db", db, "exec", "FIND(?s, ?o2) WHERE { (?s, ?p, ?o) (?s2, ?p2, ?o2) }"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    out, err = p.stdout.read(), p.stderr.read()
    seconds, rss_mb = time.time() - t0, usage.ru_maxrss / 1024
    check("cross product: refused with KIP_4002 and a hint", "KIP_4002" in out + err and "hint:" in out + err, out + err)
    check("cross product: within 256 MB and a few seconds", rss_mb < 256 and seconds < 5, (rss_mb, seconds))
    out = run(["--db", db, "exec", "--json", 'FIND(COUNT(?k)) WHERE { ?k (?s, "knows", ?o) (?s, "lives_in", ?p) }'])
    check("cross product: a connected pattern still answers", '"result"' in out and "KIP_" not in out, out)
    # a connected pattern that matches millions of rows (every pair of
    # members of a Domain, whole elements): its deduplication's temporary
    # B-tree spills to disk past the page cache (it held 1 GB of memory)
    pairs = os.path.join(tmp, "pairs.lua")
    with open(pairs, "w") as f:
        f.write('local nx = require("kip").open{path = arg[1]}\n'
                'print(nx.handle:call_json(\'{"command": "FIND(?a, ?b) WHERE { (?a, \\\\"belongs_to_domain\\\\", ?d) '
                '(?b, \\\\"belongs_to_domain\\\\", ?d) }"}\', {deadline_ms = 4000}))\n')
    t0 = time.time()
    p = subprocess.Popen([KIP, "run", pairs, db], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    out, err = p.stdout.read(), p.stderr.read()
    seconds, rss_mb = time.time() - t0, usage.ru_maxrss / 1024
    check("connected pairs: answered or refused with KIP_4002", "KIP_4002" in out or "KIP_4001" in out, out + err)
    check("connected pairs: within 256 MB and a few seconds", rss_mb < 256 and seconds < 8, (rss_mb, seconds))


def main():
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o777)  # nginx workers (www-data) write the -wal/-shm files
    try:
        db_a, db_b = os.path.join(tmp, "a.db"), os.path.join(tmp, "b.db")
        hal_id = build(db_a, True)
        build(db_b, False)
        for p in (db_a, db_b):
            os.chmod(p, 0o666)
        check("fixture has the hidden person", bool(hal_id))
        matrix(lambda cp: CLI(db_a, cp), lambda cp: CLI(db_b, cp), hal_id, "cli")
        matrix(lambda cp: MCP(db_a, cp), lambda cp: MCP(db_b, cp), hal_id, "mcp")
        writes(db_a, db_b, hal_id)
        nginx_matrix(db_a, db_b, hal_id, tmp)
        readonly_file(db_a, tmp)
        file_size_limit(tmp)
        import_secrets(tmp)
        cross_product(tmp)
    finally:
        subprocess.run(["chmod", "-R", "u+w", tmp])
        shutil.rmtree(tmp, ignore_errors=True)
    checks.finish()


main()
