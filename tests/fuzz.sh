#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time on a seed corpus built from the
# conformance cases, the bootstrap capsules and the demo capsule.
# Usage: fuzz.sh FUZZ_BINARY SECONDS [CORPUS_DIR]
# With CORPUS_DIR the corpus is kept (and grown) there; otherwise a temporary
# directory is used. A crash leaves crash-* files in the current directory and
# fails the test.
set -euo pipefail
bin=$(realpath "$1") secs=$2
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${3:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -n "$corpus" ] || corpus="$tmp/corpus"
mkdir -p "$corpus"
python3 - "$corpus" "$here" <<'PY'
import glob, json, os, sys, hashlib
out, here = sys.argv[1], sys.argv[2]
seeds = []
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "command" and isinstance(x, str): seeds.append(x)
            else: walk(x)
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, str) and x.lstrip().startswith(("FIND", "UPSERT", "DESCRIBE", "SEARCH", "DELETE", "UPDATE", "MERGE", "EXPORT")):
                seeds.append(x)
            else: walk(x)
for f in glob.glob(os.path.join(here, "..", "shared", "conformance", "cases", "*.json")):
    walk(json.load(open(f)))
for f in glob.glob(os.path.join(here, "capsules", "*", "*.kip")):
    seeds.append(open(f).read())
# "!" runs an input under a governance scope (fuzz_exec)
seeds += ["!" + s for s in seeds if s.lstrip().startswith(("FIND", "SEARCH", "EXPORT", "UPSERT", "DELETE", "MERGE"))]
for s in seeds:
    b = s.encode()
    open(os.path.join(out, hashlib.sha1(b).hexdigest()), "wb").write(b)
PY
art="${KIP_FUZZ_ARTIFACTS:-$PWD}/"
cd "$tmp"
"$bin" -artifact_prefix="$art" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -dict="$here/core/fuzz/kip.dict" -print_final_stats=1 "$corpus" 2>&1 | tail -25
