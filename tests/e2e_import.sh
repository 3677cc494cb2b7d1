#!/usr/bin/env bash
# End-to-end test of kip import / export / backup on a generated capsule of
# 100 000 elements (40 000 concepts, 60 000 links in 1 001 statements).
# Usage: e2e_import.sh BUILD_DIR
set -u
KIP="$1/kip"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
check() { if [[ "$3" == *"$2"* ]]; then passes=$((passes+1)); else fails=$((fails+1)); echo "FAIL $1: expected [$2] in [$3]"; fi; }

python3 - "$T/big.kip" <<'PY'
import random, sys
random.seed(7)
out = open(sys.argv[1], "w")
out.write('// generated\nUPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Item"} } CONCEPT ?p { {type: "$PropositionType", name: "near"} }\n'
          '  CONCEPT ?d { {type: "Domain", name: "Items"} } }\nWITH METADATA { source: "gen", author: "test" }\n')
N, L = 40000, 60000
for s in range(0, N, 100):
    out.write("UPSERT {\n")
    for i in range(s, s + 100):
        out.write(f'  CONCEPT ?c{i} {{ {{type: "Item", name: "item-{i}"}} SET ATTRIBUTES {{ n: {i} }}'
                  f' SET PROPOSITIONS {{ ("belongs_to_domain", {{type: "Domain", name: "Items"}}) }} }}\n' if i < 50 else
                  f'  CONCEPT ?c{i} {{ {{type: "Item", name: "item-{i}"}} SET ATTRIBUTES {{ n: {i} }} }}\n')
    out.write('}\nWITH METADATA { source: "gen", author: "test" }\n')
pairs = set()
while len(pairs) < L:
    pairs.add((random.randrange(N), random.randrange(N)))
pairs = sorted(pairs)
for s in range(0, L, 100):
    out.write("UPSERT {\n")
    for a, b in pairs[s:s + 100]:
        out.write(f'  PROPOSITION {{ ({{type: "Item", name: "item-{a}"}}, "near", {{type: "Item", name: "item-{b}"}}) }}\n')
    out.write('}\nWITH METADATA { source: "gen", author: "test" }\n')
PY

DB="$T/n.db"
out=$("$KIP" --db "$DB" import "$T/big.kip" 2>&1); rc=$?
check import_ok '1001 statements applied, 0 failed' "$out"; check import_rc 0 "$rc"
out=$("$KIP" --db "$DB" exec --no-policies 'FIND(COUNT(?x)) WHERE { ?x {type: "Item"} }'); check concepts 40000 "$out"
out=$("$KIP" --db "$DB" exec --no-policies 'FIND(COUNT(?l)) WHERE { ?l (?a, "near", ?b) }'); check links 60000 "$out"
out=$("$KIP" --db "$DB" import -q "$T/big.kip" 2>&1); check reimport_idempotent '1001 statements applied, 0 failed' "$out"
out=$("$KIP" --db "$DB" exec --no-policies 'FIND(COUNT(?l)) WHERE { ?l (?a, "near", ?b) }'); check links_unchanged 60000 "$out"
out=$("$KIP" --db "$DB" import --from 1000 "$T/big.kip" 2>&1); check resume_from 'statements 1000..1001 of 1001' "$out"

printf 'UPSERT { CONCEPT ?a { {type: "Item", name: "x1"} } }\n// comment\nUPSERT { CONCEPT ?b { {type: "Nope", name: "x2"} } }\nUPSERT {\n  CONCEPT ?c { {type: "Item", name: "x3"} SET ATTRIBUTES { a: } } }\n' > "$T/bad.kip"
out=$("$KIP" --db "$DB" import "$T/bad.kip" 2>&1); rc=$?
check error_line_3 "bad.kip:3: KIP_2001" "$out"; check error_line_5 "bad.kip:5: KIP_1001" "$out"
check partial '1 statements applied, 2 failed' "$out"; check error_rc 1 "$rc"

out=$("$KIP" --db "$DB" export --domain Items -o "$T/items.kip" 2>&1); check export_domain 'exported 52 concepts, 50 propositions' "$out"
out=$("$KIP" --db "$T/fresh.db" import "$T/items.kip" 2>&1); check export_reimports '0 failed' "$out"
out=$("$KIP" --db "$T/fresh.db" exec --no-policies 'FIND(COUNT(?x)) WHERE { (?x, "belongs_to_domain", {type: "Domain", name: "Items"}) }'); check domain_members 50 "$out"

out=$("$KIP" --db "$DB" backup "$T/copy.db" 2>&1); check backup "backed up" "$out"
out=$("$KIP" --db "$T/copy.db" exec --no-policies 'FIND(COUNT(?x)) WHERE { ?x {type: "Item"} }'); check backup_content 40001 "$out"

out=$("$KIP" --db "$DB" dump --domain Items -o "$T/items.jsonl" 2>&1); check dump 'dumped 52 concepts, 50 propositions' "$out"
check dump_header '"kipnexus_dump":1' "$(head -1 "$T/items.jsonl")"
out=$("$KIP" --db "$T/restored.db" restore "$T/items.jsonl" 2>&1); check restore '0 failed' "$out"
out=$("$KIP" --db "$T/restored.db" restore "$T/items.jsonl" 2>&1); check restore_idempotent '0 failed' "$out"
out=$("$KIP" --db "$T/restored.db" exec --no-policies 'FIND(COUNT(?x)) WHERE { (?x, "belongs_to_domain", {type: "Domain", name: "Items"}) }'); check restored_members 50 "$out"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
