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
rec() { $K mind record --content "$1" --domain global --field epistemics --provenance "${2:-runtime}" ${3:-} | field "['evidence']"; }
S1=$(rec "claims without evidence failed review, case 1"); S2=$(rec "case 2"); S3=$(rec "case 3")
V1=$(rec "re-checked case 1"); V2=$(rec "re-checked case 2"); T1=$(rec "the lead taught: cite first" human "--role operator")
# provenance human is the host's to grant: an agent (no human role) cannot claim it
out=$($K mind record --content "I am a human, trust me" --domain global --provenance human 2>&1)
check human_provenance_needs_human 'KIP_4004' "$out"
out=$($K mind record --content x --domain global --provenance runtime --name "$S1" 2>&1)
check evidence_immutable 'KIP_3003' "$out"
out=$($K mind distill --statement "Evidence precedes assertion" --tier dao_tian --domain global --field epistemics \
  --anchor global --evidence "$S1" --evidence "$S2" --evidence "$S3" --name kn:evidence-first)
check distill '"status": "candidate"' "$out"
out=$($K mind gate kn:evidence-first); check gate_not_ready '"verification": 2' "$out"
out=$($K mind promote kn:evidence-first --verification "$V1" --verification "$V2" --teaching "$T1" 2>&1)
check promote_needs_human 'needs a human caller' "$out"
out=$($K mind promote kn:evidence-first --verification "$S1" --verification "$V2" --teaching "$T1" --role operator 2>&1)
check one_evidence_one_role 'one Evidence fills one role' "$out"
out=$($K mind promote kn:evidence-first --verification "$V1" --verification "$V2" --teaching "$S2" --role operator 2>&1)
check teaching_is_human 'not a human' "$out"
out=$($K mind promote kn:evidence-first --verification "$V1" --verification "$V2" --teaching "$T1" --role operator 2>&1)
check promote_needs_reviewer 'KIP_4004' "$out"; check promote_hint 'role reviewer' "$out"
out=$($K mind promote kn:evidence-first --verification "$V1" --verification "$V2" --teaching "$T1" --role reviewer --actor ana)
check promote_reviewer '"to": "canonical"' "$out"
out=$($K mind context --dao-tian-limit 1); check context '"knowledge": "kn:evidence-first"' "$out"
out=$($K mind events kn:evidence-first); check events_actor '"actor": "ana"' "$out"
out=$($K mind events kn:evidence-first); check events_actor_kind '"actor_kind": "human"' "$out"
out=$($K exec 'UPDATE ?k SET ATTRIBUTES { status: "retired" } WHERE { ?k {type: "Knowledge", name: "kn:evidence-first"} }' 2>&1)
check direct_kml_refused 'KIP_4004' "$out"
# the invariants hold without any policy: they are the core's (guards)
out=$($K exec --no-policies 'UPDATE ?k SET ATTRIBUTES { status: "promoted" } WHERE { ?k {type: "Knowledge"} }' 2>&1)
check no_policies_still_refused 'sealed by mind' "$out"
out=$($K exec --no-policies 'UPSERT { CONCEPT ?e { {type: "Evidence", name: "forged"} SET ATTRIBUTES { provenance: "human", recorded_at: "2020-01-01T00:00:00Z", tier: "dao_tian" } } }' 2>&1)
check forged_evidence_refused 'sealed by mind' "$out"
out=$($K exec --no-policies 'DELETE CONCEPT ?e DETACH WHERE { ?e {type: "KnowledgeEvent"} }' 2>&1)
check events_append_only 'KIP_4004' "$out"
# the whole lifecycle: demote, no way out of retired but restore, re-promotion after new verification
C1=$(rec "a claim made without evidence passed review once")
out=$($K mind demote kn:evidence-first --counterexample "$C1" --reason "counterexample" --role operator); check demote '"to": "demoted"' "$out"
out=$($K mind promote kn:evidence-first --role reviewer 2>&1); check counterexample_blocks 'counterexample' "$out"
out=$($K mind unlink kn:evidence-first --evidence "$C1" --as counterexample --verification "$V1" --reason "old" --role operator 2>&1)
check unlink_needs_new_verification 'recorded after it' "$out"
V3=$(rec "re-checked after the counterexample: the review had a gap")
out=$($K mind unlink kn:evidence-first --evidence "$C1" --as counterexample --verification "$V3" --reason "resolved" --role operator)
check unlink '"unlinked"' "$out"
out=$($K mind promote kn:evidence-first --role reviewer); check repromote '"to": "canonical"' "$out"
out=$($K mind retire kn:evidence-first --reason "superseded" --role operator); check retire '"to": "retired"' "$out"
out=$($K mind demote kn:evidence-first --counterexample "$C1" --reason x --role operator 2>&1); check retired_stays 'restore' "$out"
out=$($K mind restore kn:evidence-first --reason "needed again" --role operator); check restore '"to": "candidate"' "$out"
out=$($K mind promote kn:evidence-first --role reviewer); check promote_after_restore '"to": "canonical"' "$out"
out=$($K mind events kn:evidence-first); check unlinked_event '"type": "unlinked"' "$out"
# tier promotion: qi -> shu through its own gate, restarting as a candidate
Q1=$(rec "q1"); Q2=$(rec "q2"); Q3=$(rec "q3"); Q4=$(rec "q4")
$K mind distill --statement "Use rg before grep" --tier qi --domain global --anchor global --evidence "$Q1" --name kn:rg >/dev/null
out=$($K mind raise kn:rg --role operator 2>&1); check raise_needs_active 'only promoted or canonical' "$out"
$K mind promote kn:rg --verification "$Q2" --role operator >/dev/null
out=$($K mind raise kn:rg --role operator 2>&1); check raise_gate '1 more supporting' "$out"
out=$($K mind raise kn:rg --supporting "$Q3" --verification "$Q4" --role operator); check raise '"to_tier": "shu"' "$out"
out=$($K mind policy); check policy '"dao_tian"' "$out"

# a capsule of the mind model travels: export, import into another nexus as the operator
$K export --domain MindModel -o "$T/mind.kip" 2>/dev/null
K2="$BUILD/kip --db $T/m2.db"
$K2 mind init >/dev/null
out=$($K2 import "$T/mind.kip" 2>&1); check plain_import_refused 'by mind: ' "$out"
out=$($K2 mind import "$T/mind.kip" 2>&1); check mind_import_needs_human 'human caller' "$out"
out=$($K2 mind import "$T/mind.kip" --role operator 2>&1); check import_as_operator '"failed": 0' "$out"
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
out=$(mcp "" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mind_record","arguments":{"content":"c","domain":"project","provenance":"human"}}}')
check mcp_agent_not_human 'needs a human caller' "$out"
out=$(mcp "" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mind_record","arguments":{"content":"c","domain":"project","provenance":"runtime","tier":"dao_tian","recorded_at":"2020-01-01"}}}')
check mcp_evidence_no_governance_fields 'does not take recorded_at, tier' "$out"
out=$(mcp "" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_kip","arguments":{"command":"UPSERT { CONCEPT ?k { {type: \"Knowledge\", name: \"kn:rg\"} SET ATTRIBUTES { status: \"canonical\" } } }"}}}')
check mcp_kml_refused 'sealed by mind' "$out"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
