#!/usr/bin/env bash
# End-to-end test of the mind model's front ends (docs/mind.md): the CLI
# lifecycle with operator roles, and the MCP tools (present when the nexus
# has the schema; direct KML on Knowledge refused). Usage: e2e_mind.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
K="$BUILD/kip --db $T/m.db"
fails=0; passes=0
check() { if [[ "$3" == *"$2"* ]]; then passes=$((passes+1)); else fails=$((fails+1)); echo "FAIL $1: expected [$2] in [$3]"; fi; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

check needs_init "kip mind init" "$($K mind gate x 2>&1)"
check init '"ready": true' "$($K mind init)"
check anchor '"global": "global"' "$($K mind anchor)"
rec() { $K mind record --content "$1" --domain global --field epistemics --provenance "${2:-runtime}" | field "['evidence']"; }
S1=$(rec "claims without evidence failed review, case 1"); S2=$(rec "case 2"); S3=$(rec "case 3")
V1=$(rec "re-checked case 1"); V2=$(rec "re-checked case 2"); T1=$(rec "the lead taught: cite first" human)
out=$($K mind distill --statement "Evidence precedes assertion" --tier dao_tian --domain global --field epistemics \
  --anchor global --evidence "$S1" --evidence "$S2" --evidence "$S3" --name kn:evidence-first)
check distill '"status": "candidate"' "$out"
out=$($K mind gate kn:evidence-first); check gate_not_ready '"verification": 2' "$out"
out=$($K mind promote kn:evidence-first --verification "$V1" --verification "$V2" --teaching "$T1" 2>&1)
check promote_needs_reviewer 'KIP_4004' "$out"; check promote_hint 'role reviewer' "$out"
out=$($K mind promote kn:evidence-first --verification "$V1" --verification "$V2" --teaching "$T1" --role reviewer --actor ana)
check promote_reviewer '"to": "canonical"' "$out"
out=$($K mind context --dao-tian-limit 1); check context '"knowledge": "kn:evidence-first"' "$out"
out=$($K mind events kn:evidence-first); check events_actor '"actor": "ana"' "$out"
out=$($K exec 'UPDATE ?k SET ATTRIBUTES { status: "retired" } WHERE { ?k {type: "Knowledge", name: "kn:evidence-first"} }' 2>&1)
check direct_kml_refused 'KIP_4004' "$out"
out=$($K mind policy); check policy '"dao_tian"' "$out"

# a capsule of the mind model travels: export, import into another nexus as the operator
$K export --domain MindModel -o "$T/mind.kip" 2>/dev/null
K2="$BUILD/kip --db $T/m2.db"
$K2 mind init >/dev/null
out=$($K2 import "$T/mind.kip" 2>&1); check import_as_operator '0 failed' "$out"
out=$($K2 mind gate kn:evidence-first); check imported_status '"status": "canonical"' "$out"
out=$($K2 mind events kn:evidence-first); check imported_history '"type": "promoted"' "$out"

# MCP: the mind tools, read-only ones only under --readonly
mcp() { printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' "$2" | $K mcp $1; }
out=$(mcp "" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'); check mcp_tools '"mind_distill"' "$out"
out=$(mcp --readonly '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'); check mcp_readonly_tools '"mind_context"' "$out"
[[ "$out" == *'"mind_record"'* ]] && { fails=$((fails+1)); echo "FAIL mcp_readonly: mind_record offered"; } || passes=$((passes+1))
out=$(mcp "" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mind_context","arguments":{"query":"evidence before claims","dao_tian_limit":1}}}')
check mcp_context 'kn:evidence-first' "$out"
out=$(mcp "" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mind_distill","arguments":{"statement":"s","tier":"qi","domain":"project","evidence":["kn:evidence-first"]}}}')
check mcp_distill_refs 'KIP_2001' "$out"; check mcp_is_error '"isError":true' "$out"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
