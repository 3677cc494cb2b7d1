#!/usr/bin/env python3
"""End-to-end test of the remote embedder (docs/search.md "remote
embedders"): kip against a stub OpenAI-compatible /v1/embeddings server on
127.0.0.1 — vectors are queued at commit and embedded after it, semantic
SEARCH uses them, the API key comes from the environment, a server that is
down (or answers badly) gives a clear warning and keyword results, nothing
written meanwhile is lost, and `kip reindex --vectors` catches up; opening
never depends on the service, and another model's vectors are replaced only
by an explicit `kip reindex --vectors --switch-model --yes`.

Usage: e2e_embedder.py BUILD_DIR
"""
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading

BUILD = os.path.abspath(sys.argv[1])
KIP = os.path.join(BUILD, "kip")
WORDS = ["invoice", "weather", "football", "money", "rain", "goal", "match", "bill"]
from fixtures import Checks  # noqa: E402  (tests/fixtures.py)

checks = Checks(800)
check = checks.check


class Stub(http.server.BaseHTTPRequestHandler):
    mode = "ok"  # ok | baddim | garbage
    calls = 0
    texts = 0

    def log_message(self, *a):
        pass

    def do_POST(self):
        if self.path != "/v1/embeddings":
            self.send_error(404)
            return
        if self.headers.get("Authorization") != "Bearer s3cret":
            self.send_error(401)
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Stub.calls += 1
        Stub.texts += len(body["input"])
        if Stub.mode == "garbage":
            out = b"<html>not json</html>"
        else:
            dim = len(WORDS) + (1 if Stub.mode == "baddim" else 0)
            data = []
            for i, t in enumerate(body["input"]):
                low = t.lower()
                v = [float(len(re.findall(r"\b%ss?\b" % w, low))) for w in WORDS] + [0.0] * (dim - len(WORDS))
                data.append({"object": "embedding", "index": i, "embedding": v})
            out = json.dumps({"object": "list", "model": body["model"], "data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
URL = f"http://127.0.0.1:{port}/v1/embeddings"

tmp = tempfile.mkdtemp(prefix="kip-embed-")
db = os.path.join(tmp, "n.db")
ENV = dict(os.environ, KIP_EMBEDDER=URL, KIP_EMBEDDER_MODEL="stub-8", KIP_EMBEDDER_KEY_ENV="STUB_KEY", STUB_KEY="s3cret")


def kip(args, env=ENV, stdin=None):
    r = subprocess.run([KIP, "--db", db, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)
    return r


def call(command, env=ENV):
    r = kip(["call", "--no-policies"], env=env, stdin=json.dumps({"command": command}))
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"raw": r.stdout, "stderr": r.stderr}


TOPICS = """UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Topic"} }
  CONCEPT ?a { {type: "Topic", name: "Invoices"} SET ATTRIBUTES { description: "a bill asks for money" } }
  CONCEPT ?b { {type: "Topic", name: "Weather"} SET ATTRIBUTES { description: "rain tomorrow" } }
  CONCEPT ?c { {type: "Topic", name: "Football"} SET ATTRIBUTES { description: "the match and the goal" } }
}"""


def names(resp):
    return [e.get("name") for e in resp.get("result") or []]


def vector_line(env=ENV):
    r = kip(["reindex"], env=env)
    return r.stderr


# 0. opening never depends on the embedder: a service nobody answers and a
# model whose dimension the nexus does not know yet — commands work, a
# warning names the way out, semantic SEARCH says why it used keywords
dead = socket.socket()
dead.bind(("127.0.0.1", 0))
DEAD_URL = f"http://127.0.0.1:{dead.getsockname()[1]}/v1/embeddings"  # bound, never listening: refused
db0 = os.path.join(tmp, "down.db")
ENV_DOWN = dict(ENV, KIP_EMBEDDER=DEAD_URL)
r = subprocess.run([KIP, "--db", db0, "exec", "DESCRIBE DOMAINS"], capture_output=True, text=True, env=ENV_DOWN, timeout=120)
check("unreachable at open: the command works", r.returncode == 0 and "CoreSchema" in r.stdout, r.stderr)
check("unreachable at open: a warning names --embedder-dim", "unreachable" in r.stderr and "--embedder-dim" in r.stderr, r.stderr)
r = subprocess.run([KIP, "--db", db0, "call"], input=json.dumps({"command": 'SEARCH CONCEPT "person" MODE "semantic"'}),
                   capture_output=True, text=True, env=ENV_DOWN, timeout=120)
w = " ".join(json.loads(r.stdout).get("warnings") or [])
check("unreachable at open: SEARCH says why keywords were used", "unreachable" in w and "keyword" in w, r.stdout)
r = subprocess.run([KIP, "--db", db0, "reindex", "--vectors"], capture_output=True, text=True, env=ENV_DOWN, timeout=120)
check("unreachable at open: reindex --vectors names it", r.returncode != 0 and "unreachable" in r.stderr, r.stderr)
# a nexus holding another model's vectors (the local one) is never switched by
# an environment variable: the remote model with its dimension given changes nothing
if os.path.exists(os.path.join(BUILD, "models")):
    dbl = os.path.join(tmp, "local.db")
    subprocess.run([KIP, "--db", dbl, "exec", "DESCRIBE DOMAINS"], capture_output=True, text=True, timeout=120)
    before = subprocess.run([KIP, "--db", dbl, "reindex"], capture_output=True, text=True, timeout=120).stderr
    env_dim = dict(ENV, KIP_EMBEDDER_DIM="8")
    for _ in range(2):
        subprocess.run([KIP, "--db", dbl, "call"], input=json.dumps({"command": TOPICS}), capture_output=True, text=True,
                       env=env_dim, timeout=120)
    after = subprocess.run([KIP, "--db", dbl, "reindex"], capture_output=True, text=True, timeout=120).stderr
    check("no silent model switch", re.search(r"model \S+, 100 dimensions", after) and "stub-8" not in after, (before, after))
    r = subprocess.run([KIP, "--db", dbl, "call"], input=json.dumps({"command": 'SEARCH CONCEPT "rain" MODE "semantic"'}),
                       capture_output=True, text=True, timeout=120)
    check("no silent model switch: local semantic SEARCH still works", "error" not in json.loads(r.stdout), r.stdout)

# 1. the first open learns the dimension, adopts the model, embeds the bootstrap
r = call(TOPICS)
check("write with a remote embedder", "error" not in r, r)
line = vector_line()
check("vectors made after commit", re.search(r"vectors: \d+ \(model stub-8, 8 dimensions\), 0 waiting", line), line)
r = call('SEARCH CONCEPT "money for a bill" WITH TYPE "Topic" MODE "semantic" LIMIT 1')
check("semantic via the endpoint", names(r) == ["Invoices"] and "warnings" not in r, r)
r = call('SEARCH CONCEPT "a goal in the match" WITH TYPE "Topic" MODE "hybrid" LIMIT 1')
check("hybrid via the endpoint", names(r) == ["Football"], r)

# 2. the key comes from the environment: a wrong one is refused by the service
r = call('SEARCH CONCEPT "rain" MODE "semantic"', env=dict(ENV, STUB_KEY="wrong"))
w = " ".join(r.get("warnings") or [])
check("wrong key: warning names HTTP 401", "401" in w and "keyword" in w, r)
check("wrong key: keyword results", "Weather" in names(r), r)

# 3. the service is down: clear warning, keyword fallback, writes queued not lost
server.shutdown()
server.server_close()
r = call('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic"')
w = " ".join(r.get("warnings") or [])
check("down: no error", "error" not in r, r)
check("down: warning says keyword was used", "keyword search was used" in w and "127.0.0.1" in w, r)
check("down: keyword results", names(r)[:1] == ["Weather"], r)
r = call('UPSERT { CONCEPT ?d { {type: "Topic", name: "Umbrellas"} SET ATTRIBUTES { description: "for the rain" } } }')
check("down: writes still succeed", "error" not in r, r)
line = vector_line()
check("down: the change waits in the queue", re.search(r", [1-9]\d* waiting", line), line)
r = call('SEARCH CONCEPT "rain" MODE "keyword"')
check("down: keyword search unaffected", "Umbrellas" in names(r) and "warnings" not in r, r)
r = kip(["reindex", "--vectors"])
check("down: reindex --vectors fails clearly and keeps the queue", r.returncode != 0 and "run it again" in r.stderr, r.stderr)

# 4. back up: reindex catches up, the new element is found by meaning
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Stub)
threading.Thread(target=server.serve_forever, daemon=True).start()
r = kip(["reindex", "--vectors"])
check("up again: reindex drains the queue", r.returncode == 0 and ", 0 waiting" in r.stderr, r.stderr)
r = call('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic" LIMIT 5')
check("up again: the queued element is found by meaning", "Umbrellas" in names(r) and "warnings" not in r, r)

# 5. a service answering badly: warning, never a crash
for mode, words in [("baddim", "dimensions"), ("garbage", "not an embeddings reply")]:
    Stub.mode = mode
    r = call('SEARCH CONCEPT "rain" MODE "semantic"')
    w = " ".join(r.get("warnings") or [])
    check(f"{mode}: warning", words in w and "keyword" in w, r)
Stub.mode = "ok"

# 6. another model configured: a clear error until reindexed
env2 = dict(ENV, KIP_EMBEDDER_MODEL="stub-8-v2")
r = call('SEARCH CONCEPT "rain" MODE "semantic"', env=env2)
check("model change: KIP_3005", (r.get("error") or {}).get("code") == "KIP_3005", r)
r = kip(["reindex", "--vectors"], env=env2)
check("model change: reindex without --switch-model changes nothing",
      r.returncode != 0 and "--switch-model" in r.stderr and "stub-8" in r.stderr, r.stderr)
r = kip(["reindex", "--vectors", "--switch-model"], env=env2)
check("model change: not on a terminal, --yes is the confirmation", r.returncode != 0 and "--yes" in r.stderr, r.stderr)
r = kip(["reindex", "--vectors", "--switch-model", "--yes"], env=env2)
check("model change: reindex re-embeds", r.returncode == 0 and "model stub-8-v2" in r.stderr, r.stderr)
r = call('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic" LIMIT 1', env=env2)
check("model change: semantic works again", "error" not in r and len(names(r)) == 1, r)

# 7. configuration errors are named
r = kip(["exec", "FIND(?x) WHERE { ?x {type: \"Topic\"} } LIMIT 1"], env=dict(ENV, KIP_EMBEDDER="ftp://nowhere"))
check("bad embedder spec refused", r.returncode != 0 and "embedder" in r.stderr, r.stderr)

server.shutdown()
subprocess.run(["rm", "-rf", tmp])
checks.finish()
