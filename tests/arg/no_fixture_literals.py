#!/usr/bin/env python3
"""No ontology's access model lives in the engine (issue 34; DESIGN.md §8
"access models are data"): the product names and terms, role names, audience
names, tenant nouns and tenant/user keys of the ARG ontologies this project
runs — ../shared/arg's and tests/arg/clinic's — appear nowhere in lua/ or
policies/, as whole words, in code or comments. The one exception is an
audience name that is also a word of seed 003 itself ("internal", as in its
InternalContextBundle): the engine uses it as the protocol does.

usage: no_fixture_literals.py [SOURCE_ROOT]"""
import json, os, re, sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
shared = os.path.join(os.environ.get("KIP_SHARED") or os.path.join(root, "..", "shared"), "arg")
if not os.path.isdir(shared):
    print(f"SKIPPED: the fixture {shared} is missing (set KIP_SHARED, or put ../shared beside the checkout)")
    sys.exit(77)
ontologies = [os.path.join(shared, "ontology.kip"), os.path.join(root, "tests", "arg", "clinic", "ontology.kip")]
PROTOCOL_WORDS = {"internal", "external"}  # seed 003: Internal/ExternalContextBundle

words = set()
for path in ontologies:
    if not os.path.exists(path):
        print(f"FAIL {path} is missing: the check cannot run")
        sys.exit(1)
    text = open(path, encoding="utf-8").read()
    at = text.find("profile: {")
    if at < 0:
        print(f"FAIL no profile in {path}")
        sys.exit(1)
    p, _ = json.JSONDecoder().raw_decode(text[at + len("profile: "):])
    words.add(p["product"]["name"])
    words.update(p["product"].get("terms", []))
    t = p["tenant"]
    words.update([t["noun"], t["context_key"], t.get("param", ""), t["user_context_key"]] + t.get("user_params", []))
    for role, r in p["roles"].items():
        words.add(role)
        words.update(r["audiences"])
words = {w for w in words if w and w.lower() not in PROTOCOL_WORDS}
# generic English a tenant key may share ("user", "email") is no fixture literal
words -= {"user", "email", "owner"}
pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b", re.I)
hits = []
for base in ("lua", "policies"):
    for dirpath, _, files in os.walk(os.path.join(root, base)):
        for f in files:
            if not f.endswith(".lua"):
                continue
            path = os.path.join(dirpath, f)
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = pattern.search(line)
                if m:
                    hits.append(f"{os.path.relpath(path, root)}:{n}: {m.group(0)!r} in: {line.strip()[:120]}")
for h in hits:
    print("FAIL", h)
print(f"{len(words)} names of 2 ontologies' access models checked in lua/ and policies/: {len(hits)} found")
sys.exit(1 if hits else 0)
