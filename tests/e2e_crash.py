#!/usr/bin/env python3
"""Crash harness for the SEARCH indexes (docs/search.md "consistency"): a
writer process doing random UPSERT / UPDATE / DELETE / MERGE is killed with
SIGKILL at random moments, again and again, on the same nexus; after every
kill the file must pass SQLite's and FTS5's integrity checks and the vector
index must agree with the graph (every element's vector is the embedding of
its current text, or the element is queued; no vector outlives its
element). Run with the local embedder (vectors written in the writer's
transaction) and with a Lua hook embedder (vectors queued, embedded after
commit). Then `kip import` killed mid-way (its SEARCH index being built
beside it on a second thread): a re-import leaves every element with its
vector and no scratch file; a nexus merely opened again catches its vectors
up (at open, or a batch after each request) and loses the scratch file; a
live import's scratch file survives another process's open.

Usage: e2e_crash.py BUILD_DIR [KILLS]
"""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1])
KIP = os.path.join(BUILD, "kip")
KILLS = int(sys.argv[2]) if len(sys.argv) > 2 else 12
from fixtures import Checks  # noqa: E402  (tests/fixtures.py)

checks = Checks(800)
check = checks.check


TOY = """
local WORDS = { "alpha", "beta", "gamma", "delta", "rain", "money", "goal", "cloud" }
return { model = "toy-crash", dim = #WORDS, embed = function(texts)
  local out = {}
  for i, t in ipairs(texts) do
    local v = {}
    for d, w in ipairs(WORDS) do v[d] = select(2, t:lower():gsub(w, "")) + d * 1e-3 end
    out[i] = v
  end
  return out
end }
"""

WRITER = """
local kip = require "kip"
local path, spec, seed = arg[1], arg[2], tonumber(arg[3])
local embedder = spec == "local" and "local" or dofile(spec)
local nx = assert(kip.open { path = path, embedder = embedder })
math.randomseed(seed)
local words = { "alpha", "beta", "gamma", "delta", "rain", "money", "goal", "cloud", "invoice", "weather" }
local function text(n)
  local t = {}
  for i = 1, n do t[i] = words[math.random(#words)] end
  return table.concat(t, " ")
end
nx:execute('UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Note"} } }')
while true do
  local op, k = math.random(10), math.random(300)
  local r
  if op <= 4 then
    local cmds = {}
    for i = 1, math.random(20) do
      cmds[i] = ('CONCEPT ?c%d { {type: "Note", name: "n%d"} SET ATTRIBUTES { body: "%s" } }'):format(i, math.random(300), text(8))
    end
    r = nx:execute("UPSERT { " .. table.concat(cmds, " ") .. " }")
  elseif op <= 7 then
    r = nx:execute('UPDATE ?x SET ATTRIBUTES { body: :b } WHERE { ?x {type: "Note", name: :n} }', { b = text(12), n = "n" .. k })
  elseif op <= 9 then
    r = nx:execute('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Note", name: :n} }', { n = "n" .. k })
  else
    r = nx:execute('MERGE ?a INTO ?b WHERE { ?a {type: "Note", name: :x} ?b {type: "Note", name: :y} }',
      { x = "n" .. k, y = "n" .. ((k % 300) + 1) })
  end
end
"""

VERIFY = """
local kip = require "kip"
local path, spec = arg[1], arg[2]
local embedder = spec == "local" and "local" or dofile(spec)
local nx = assert(kip.open { path = path, embedder = embedder })
local c = assert(nx:verify_vectors())
local fts = nx:execute('SEARCH CONCEPT "alpha" LIMIT 1')
print(("checked=%d problems=%d first=%s fts=%s"):format(c.checked, c.problems, c.first, fts.error and fts.error.message or "ok"))
nx:close()
"""

tmp = tempfile.mkdtemp(prefix="kip-crash-")
for name, text in (("toy.lua", TOY), ("writer.lua", WRITER), ("verify.lua", VERIFY)):
    with open(os.path.join(tmp, name), "w") as f:
        f.write(text)

rng = random.Random(1234)
for spec in ("local", os.path.join(tmp, "toy.lua")):
    label = "local" if spec == "local" else "hook"
    db = os.path.join(tmp, f"{label}.db")
    for k in range(KILLS):
        p = subprocess.Popen([KIP, "run", os.path.join(tmp, "writer.lua"), db, spec, str(k + 1)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.15, 0.8))
        if p.poll() is not None:
            check(f"{label}: writer still running before kill {k}", False, p.stderr.read().decode()[:400])
            continue
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stderr.close()
        r = subprocess.run([KIP, "run", os.path.join(tmp, "verify.lua"), db, spec], capture_output=True, text=True,
                           timeout=300)
        out = r.stdout.strip()
        check(f"{label}: kill {k}: vectors agree with texts", r.returncode == 0 and " problems=0 " in out and "fts=ok" in out,
              out + r.stderr)
        ic = subprocess.run(["sqlite3", db, "PRAGMA integrity_check; INSERT INTO search_word(search_word) VALUES('integrity-check');"],
                            capture_output=True, text=True)
        check(f"{label}: kill {k}: integrity", ic.stdout.strip() == "ok" and ic.returncode == 0, ic.stdout + ic.stderr)
    r = subprocess.run([KIP, "run", os.path.join(tmp, "verify.lua"), db, spec], capture_output=True, text=True)
    checked = int(r.stdout.split("checked=")[1].split()[0]) if "checked=" in r.stdout else 0
    check(f"{label}: the writers wrote something", checked > 50, r.stdout)

# --- a bulk load killed mid-way
STATUS = """
local kip = require "kip"
local nx = assert(kip.open { path = arg[1], embedder = "local" })
for i = 1, tonumber(arg[2] or 0) do nx:execute('FIND(COUNT(?n)) WHERE { ?n {type: "Note"} }') end
local st = nx:vector_status()
print(("vectors=%d pending=%d"):format(st.vectors, st.pending))
nx:close()
"""
with open(os.path.join(tmp, "status.lua"), "w") as f:
    f.write(STATUS)
capsule = os.path.join(tmp, "load.kip")
words = "alpha beta gamma delta rain money goal cloud invoice weather river stone".split()
with open(capsule, "w") as f:
    f.write('UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Note"} } } WITH METADATA { source: "t", author: "t" }\n')
    n = 0
    for b in range(800):
        parts = []
        for i in range(50):
            n += 1
            parts.append('CONCEPT ?c%d { {type: "Note", name: "n%d"} SET ATTRIBUTES { body: "%s" } }'
                         % (i, n, " ".join(rng.choice(words) for _ in range(10))))
        f.write("UPSERT { " + " ".join(parts) + ' } WITH METADATA { source: "t", author: "t" }\n')


def status(db, requests=0):
    r = subprocess.run([KIP, "run", os.path.join(tmp, "status.lua"), db, str(requests)], capture_output=True, text=True,
                       timeout=300)
    out = r.stdout
    return (int(out.split("vectors=")[1].split()[0]), int(out.split("pending=")[1].split()[0])) if "pending=" in out else (-1, -1)


def killed_import(db, after):
    for suffix in ("", "-wal", "-shm", "-kipindex"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    p = subprocess.Popen([KIP, "--db", db, "import", "-q", capsule], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(after)
    killed = p.poll() is None
    p.kill()
    p.wait()
    return killed


# the kills fall inside the import however fast this machine runs it: one
# whole import is timed first (a fixed window of 0.4-1.6 s let an idle
# machine finish the load before the kill)
whole = os.path.join(tmp, "whole.db")
started = time.monotonic()
subprocess.run([KIP, "--db", whole, "import", "-q", capsule], capture_output=True, timeout=600)
took = time.monotonic() - started
for k in range(max(2, KILLS // 3)):
    db = os.path.join(tmp, f"load{k}.db")
    # (a later import can run faster than the timed one, its pages in the kernel's cache: one that
    # finished before its kill is run again with the kill at half the time, up to four times)
    after, killed = rng.uniform(0.2, 0.75) * took, False
    for _ in range(4):
        killed = killed_import(db, after)
        if killed:
            break
        after /= 2
    if not killed:
        check(f"import: kill {k}: the import was still running", False)
        continue
    if k % 2 == 0:  # imported again to the end
        r = subprocess.run([KIP, "--db", db, "import", "-q", capsule], capture_output=True, text=True, timeout=600)
        check(f"import: kill {k}: the re-import completes", r.returncode == 0, r.stderr[-400:])
        vectors, pending = status(db)
        check(f"import: kill {k}: every element has its vector after the re-import", pending == 0 and vectors >= 40000,
              (vectors, pending))
    else:  # only opened again: caught up at open, or a batch after each request
        vectors, pending = status(db, 100)
        check(f"import: kill {k}: vectors caught up without an operator", pending == 0, (vectors, pending))
    check(f"import: kill {k}: no scratch file left", not os.path.exists(db + "-kipindex"), os.listdir(tmp))
    ic = subprocess.run(["sqlite3", db, "PRAGMA integrity_check; INSERT INTO search_word(search_word) VALUES('integrity-check');"],
                        capture_output=True, text=True)
    check(f"import: kill {k}: integrity", ic.stdout.strip() == "ok" and ic.returncode == 0, ic.stdout + ic.stderr)

# a live load's scratch file is not another process's to remove
db = os.path.join(tmp, "live.db")
for suffix in ("", "-wal", "-shm", "-kipindex"):
    if os.path.exists(db + suffix):
        os.remove(db + suffix)
p = subprocess.Popen([KIP, "--db", db, "import", "-q", capsule], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
seen = False
for _ in range(200):
    if os.path.exists(db + "-kipindex"):
        seen = True
        break
    time.sleep(0.01)
if seen:
    subprocess.run([KIP, "--db", db, "exec", "--no-policies", "FIND(COUNT(?n)) WHERE { ?n {type: \"$ConceptType\"} }"],
                   capture_output=True, timeout=60)
    check("import: a live builder's scratch file survives another open", os.path.exists(db + "-kipindex") or p.poll() is not None)
r = p.wait(timeout=600)
check("import: the live import completes", r == 0)
vectors, pending = status(db)
check("import: the live import left every vector and no scratch file", pending == 0 and not os.path.exists(db + "-kipindex"),
      (vectors, pending))

subprocess.run(["rm", "-rf", tmp])
checks.finish()
