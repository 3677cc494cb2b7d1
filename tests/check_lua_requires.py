#!/usr/bin/env python3
"""No require cycle among the Lua host's modules (docs/architecture.md
"Lua modules"): every `require "kip…"` with a literal name, at the top of
a module or inside a function, is an edge; the modules must form no cycle.
A facade (`kip`, `kip.arg`) requires the parts below it and no part
requires its facade back.

Usage: tests/check_lua_requires.py [LUA_DIR]     (exit 1 on a cycle)
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lua")
modules = {}
for path in glob.glob(os.path.join(root, "**", "*.lua"), recursive=True):
    name = os.path.relpath(path, root)[:-4].replace(os.sep, ".")
    modules[name[:-5] if name.endswith(".init") else name] = path


def code_of(path):
    """the module's text without comments (requires in examples do not count)"""
    text = re.sub(r"--\[(=*)\[.*?\]\1\]", "", open(path, encoding="utf-8").read(), flags=re.S)
    return "\n".join(re.sub(r"--.*$", "", line) for line in text.split("\n"))


edges = {m: sorted({r for r in re.findall(r"""require\s*\(?\s*["']([\w.]+)["']""", code_of(p))
                    if r in modules and r != m}) for m, p in modules.items()}
if not edges.get("kip") or "kip.nexus" not in edges["kip"]:
    print("the walk found no require of kip.nexus in kip (init.lua): is LUA_DIR right?")
    sys.exit(1)

# strongly connected components (Tarjan, iterative)
index, low, on_stack, stack, cycles, counter = {}, {}, set(), [], [], [0]
for start in sorted(modules):
    if start in index:
        continue
    work = [(start, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on_stack.add(v)
        if i < len(edges[v]):
            work.append((v, i + 1))
            w = edges[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in on_stack:
                low[v] = min(low[v], index[w])
            continue
        for w in edges[v]:
            if w in on_stack:
                low[v] = min(low[v], low[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))
for c in cycles:
    print("CYCLE", " <-> ".join(c))
print(f"{len(modules)} modules, {sum(len(e) for e in edges.values())} requires, {len(cycles)} require cycle(s)")
sys.exit(1 if cycles else 0)
