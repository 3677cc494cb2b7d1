#!/usr/bin/env bash
# End-to-end tests of the kip CLI (registered in ctest). Usage: e2e_cli.sh BUILD_DIR
# With KIP_VALGRIND=1 every kip process runs under valgrind's leak checker and
# the test fails when any process reports an error or a definite/indirect leak.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
KIP=("$1/kip")
if [ "${KIP_VALGRIND:-0}" = 1 ]; then
  KIP=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
       --show-leak-kinds=definite,indirect --log-file="$T/vg.%p" "$1/kip")
fi
fails=0; passes=0
check() { # name, expected substring, actual
  if [[ "$3" == *"$2"* ]]; then passes=$((passes+1)); else fails=$((fails+1)); echo "FAIL $1: expected [$2] in [$3]"; fi
}
DB="$T/n.db"
out=$(echo '{"command":"FIND(?t.name) WHERE { ?t {type: \"$ConceptType\", name: \"Person\"} }"}' | "${KIP[@]}" --db "$DB" call)
check call_find '{"result":["Person"]}' "$out"
out=$(echo 'not json' | "${KIP[@]}" --db "$DB" call); rc=$?
check call_bad_json '"KIP_1001"' "$out"; check call_exit0 0 "$rc"
out=$(echo '{"command":"UPSERT { CONCEPT ?p { {type: \"Person\", name: \"Zed\"} } }"}' | "${KIP[@]}" --db "$DB" call --readonly)
check call_readonly '"KIP_4004"' "$out"
out=$("${KIP[@]}" --db "$DB" exec -p n='"Ann"' 'UPSERT { CONCEPT ?p { {type: "Person", name: :n} SET ATTRIBUTES { person_class: "Human" } } }')
check exec_upsert '"blocks": 1' "$out"
out=$("${KIP[@]}" --db "$DB" exec 'FIND(?p.attributes.person_class) WHERE { ?p {type: "Person", name: "Ann"} }')
check exec_find '"Human"' "$out"
out=$("${KIP[@]}" --db "$DB" exec 'FIND(?p WHERE {' 2>&1); rc=$?
check exec_syntax 'KIP_1001' "$out"; check exec_syntax_rc 1 "$rc"
cat > "$T/c.kip" <<'KIP'
UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Tool"} SET ATTRIBUTES { description: "A tool." } }
  CONCEPT ?h { {type: "Tool", name: "Hammer"} }
}
KIP
out=$("${KIP[@]}" --db "$DB" import "$T/c.kip" 2>&1); check import_ok '1 statements' "$out"
out=$("${KIP[@]}" --db "$DB" import "$T/c.kip" 2>&1); check import_idempotent '1 statements' "$out"
out=$("${KIP[@]}" --db "$DB" import --cache-mb 64 "$T/c.kip" 2>&1); check import_cache_mb '1 statements' "$out"
out=$("${KIP[@]}" --db "$DB" import - < "$T/c.kip" 2>&1); check import_stdin '-: 1 statements applied, 0 failed' "$out"
out=$("${KIP[@]}" --db "$DB" --cache-mb 0 exec 'DESCRIBE DOMAINS' 2>&1); rc=$?
check cache_mb_bad 'needs a number of MiB' "$out"; check cache_mb_bad_rc 2 "$rc"
out=$("${KIP[@]}" parse 'FIND(?x) WHERE { ?x {type: "Tool"} }'); check parse '"statement": "FIND"' "$out"
out=$("${KIP[@]}" --db "$DB" explain 'FIND(?x.name) WHERE { ?x {type: "Tool"} }'); check explain 'SELECT' "$out"
out=$("${KIP[@]}" --help); check help 'usage: kip' "$out"
out=$("${KIP[@]}" call --help); check call_help 'execute_kip' "$out"
out=$("${KIP[@]}" frobnicate 2>&1); rc=$?; check unknown_cmd 'unknown command' "$out"; check unknown_rc 2 "$rc"
# governance: default policy on call/exec, flags, kip policy
out=$("${KIP[@]}" --db "$DB" exec 'UPSERT { CONCEPT ?p { {type: "Person", name: "Leak"} SET ATTRIBUTES { k: "password: hunter2x" } } }' 2>&1); rc=$?
check policy_secret_refused 'KIP_4004' "$out"; check policy_secret_rc 1 "$rc"
out=$("${KIP[@]}" --db "$DB" exec --no-policies 'UPSERT { CONCEPT ?p { {type: "Person", name: "Leak"} SET ATTRIBUTES { k: "password: hunter2x" } } }' 2>&1)
check policy_disabled '"blocks": 1' "$out"
out=$("${KIP[@]}" --db "$DB" exec 'UPSERT { CONCEPT ?p { {type: "Person", name: "NoProv"} } }' 2>&1)
check policy_provenance_warning 'warning: ' "$out"
out=$("${KIP[@]}" --db "$DB" exec --policy nosuch 'DESCRIBE DOMAINS' 2>&1)
check policy_missing 'not found' "$out"
out=$("${KIP[@]}" policy check "$(dirname "$0")/../policies/default.lua" 2>&1); check policy_check 'ok (policy' "$out"
echo 'return 42' > "$T/bad.lua"
out=$("${KIP[@]}" policy check "$T/bad.lua" 2>&1); rc=$?; check policy_check_bad 'must return kip.policy' "$out"; check policy_check_bad_rc 1 "$rc"
echo '{"command":"UPSERT { CONCEPT ?p { {type: \"Person\", name: \"Z\"} SET ATTRIBUTES { t: \"sk-abcdefghijklmnopqrstuvwx\" } } }"}' > "$T/req.json"
out=$("${KIP[@]}" policy test "$(dirname "$0")/../policies/default.lua" "$T/req.json" --counterparty Z 2>&1); check policy_test '"BLOCK"' "$out"
out=$("${KIP[@]}" policy list 2>&1); check policy_list 'strict' "$out"
echo 'return 7' > "$T/s.lua"; "${KIP[@]}" --db "$DB" run "$T/s.lua"; check run_status 7 "$?"
# errors that say what is wrong and what to do (issue 42)
printf 'root:x:0:0:root:/root:/bin/bash\n' > "$T/passwd"
out=$("${KIP[@]}" --db "$T/passwd" exec 'DESCRIBE DOMAINS' 2>&1)
check not_a_nexus 'is not a kipnexus database (not an SQLite file)' "$out"; check not_a_nexus_hint 'Check the --db path' "$out"
if command -v sqlite3 >/dev/null; then
  sqlite3 "$T/other.db" 'CREATE TABLE notes(x); INSERT INTO notes VALUES(1);'
  out=$("${KIP[@]}" --db "$T/other.db" exec 'DESCRIBE DOMAINS' 2>&1)
  check foreign_db 'SQLite database of another program' "$out"
  check foreign_db_untouched 'delete|notes' "$(sqlite3 "$T/other.db" 'PRAGMA journal_mode' 'SELECT group_concat(name) FROM sqlite_master' | paste -sd'|')"
fi
out=$("${KIP[@]}" --db "$DB" exec --policy nosuch 'DESCRIBE DOMAINS' 2>&1); rc=$?
check policy_missing_lists "available: arg, default" "$out"; check policy_missing_rc 2 "$rc"
out=$("${KIP[@]}" --db "$DB" exec 'FIND(?p) WHERE { ?p {type: "Person"} } …' 2>&1)
check non_ascii "unexpected character '…' (U+2026) outside a string" "$out"
out=$("${KIP[@]}" --db "$DB" exec --readonly 'UPSERT { CONCEPT ?p { {type: "Person", name: "Zed"} } }' 2>&1)
check readonly_hint 'without --readonly' "$out"
out=$("${KIP[@]}" --db "$DB" explain 'SEARCH CONCEPT "hammer"' 2>&1)
check explain_search 'KIP_2002' "$out"; check explain_search_why 'SEARCH has no compiled query to explain' "$out"
out=$("${KIP[@]}" --db "$DB" export --domain Typo 2>&1); rc=$?
check export_missing_domain 'no such domain' "$out"; check export_missing_domain_rc 2 "$rc"
out=$("${KIP[@]}" --db "$DB" backup "$T/no/such/dir/b.db" 2>&1); rc=$?
check backup_missing_dir 'does not exist; create it first' "$out"; check backup_missing_dir_rc 2 "$rc"
# the demo capsule of scripts/run files everything under its domain: sleep finds
# nothing to sort, and exporting the Engineering domain carries the people and services
SRC=$(cd "$(dirname "$0")/.." && pwd)
"${KIP[@]}" --db "$T/demo.db" import "$SRC/capsules/demo/team.kip" >/dev/null 2>&1
out=$("${KIP[@]}" --db "$T/demo.db" sleep 2>&1)
check demo_no_unsorted 'unsorted=0' "$out"; check demo_no_orphans 'orphans=0 pending' "$out"
out=$("${KIP[@]}" --db "$T/demo.db" export --domain Engineering 2>&1)
check demo_export_engineers 'name: "Eli Novak"' "$out"; check demo_export_services 'name: "Gateway"' "$out"
# one option parser: text with spaces is the request, not an option; -- ends the options; an unknown one is named
"${KIP[@]}" --db "$T/argq.db" arg init --ontology "$SRC/tests/arg/clinic/ontology.kip" >/dev/null 2>&1
out=$("${KIP[@]}" --db "$T/argq.db" arg ask --role pet_owner --tenant rivera --user ana@rivera.example "--force it through" 2>&1)
check options_text_is_positional 'episode' "$out"
out=$("${KIP[@]}" --db "$T/argq.db" arg ask --role pet_owner --tenant rivera --user ana@rivera.example -- --force 2>&1)
check options_double_dash 'episode' "$out"
out=$("${KIP[@]}" --db "$T/argq.db" arg ask --role pet_owner --force 2>&1); rc=$?
check options_unknown_named 'unknown option --force' "$out"; check options_unknown_rc 2 "$rc"
out=$("${KIP[@]}" --db="$T/argq.db" exec --json 'DESCRIBE PRIMER' 2>&1)
check options_equals_form '"result"' "$out"
# help is complete: kip --help names every subcommand and every environment
# variable the sources read; every option the sources parse appears in a help
# text; every MCP tool is in kip mcp --help and the README
help=$("${KIP[@]}" --help)
# every command a CLI module registers (the core's and each subsystem's)
cmds=$(grep -oh '^commands\.[a-z_]*' "$SRC"/lua/kip/cli/*.lua "$SRC"/lua/kip/*/cli.lua | sed 's/.*\.//' | sort -u)
check cli_modules_found 1 "$([ "$(echo "$cmds" | wc -w)" -ge 19 ] && echo 1)"
for c in $cmds; do
  check "help_lists_$c" "  $c" "$help"
done
for v in $(grep -rho 'getenv("[A-Z_]*")' "$SRC/lua" | sed 's/getenv("\(.*\)")/\1/' | sort -u) \
         $(grep -o '"KIP_[A-Z_]*"' "$SRC/lua/kip/search/embedder.lua" | tr -d '"' | sort -u); do
  case "$v" in HOME|USER|LOGNAME) continue;; esac
  check "help_names_env_$v" "$v" "$help"
done
allhelp=$help
for c in $cmds; do
  allhelp+=$("${KIP[@]}" "$c" --help 2>&1)
done
for o in $(grep -oh '"--[a-z][a-z-]*"' "$SRC"/lua/kip/cli.lua "$SRC"/lua/kip/cli/*.lua "$SRC"/lua/kip/*/cli.lua | tr -d '"' | sort -u); do
  check "help_has_option_$o" "$o" "$allhelp"
done
mcphelp=$("${KIP[@]}" mcp --help); readme=$(cat "$SRC/README.md")
for t in $(grep -oh '{ name = "[a-z_]*"' "$SRC/lua/kip/mind/mcp.lua" "$SRC/lua/kip/arg/mcp.lua" | sed 's/.*"\(.*\)"/\1/'); do
  check "mcp_help_tool_$t" "$t" "$mcphelp"; check "readme_tool_$t" "\`$t\`" "$readme"
done
# a PostgreSQL URL is not a file path: a server that is not there is said
# plainly (no password shown), nothing created here
out=$(cd "$T" && "${KIP[@]}" --db "postgresql://me:secret@127.0.0.1:1/db?nexus=x" exec 'FIND(?x) WHERE { ?x {type: "Person"} }' 2>&1); rc=$?
check pg_url_refused "cannot connect to postgresql://me@127.0.0.1:1/db" "$out rc=$rc"
case "$out" in *secret*) fails=$((fails+1)); echo "FAIL pg_url_password_shown: $out" ;; *) passes=$((passes+1)) ;; esac
out=$(cd "$T" && "${KIP[@]}" --db "postgresql://me@127.0.0.1:1/db?nexus=No-Such" exec 'FIND(?x) WHERE { ?x {type: "Person"} }' 2>&1)
check pg_url_bad_nexus "has a character other than a-z, 0-9 and _" "$out"
check pg_url_exit "rc=2" "rc=$rc"
[ ! -e "$T/postgresql:" ] && passes=$((passes+1)) || { fails=$((fails+1)); echo "FAIL pg_url_created_nothing"; }
check readme_schema_version "the current version is $(grep -o 'KIP_SCHEMA_VERSION [0-9]*' "$SRC/core/src/"*.h | head -1 | awk '{print $2}')" "$readme"
# many processes opening (and so bootstrapping) one new nexus at once: every one answers
if [ "${KIP_VALGRIND:-0}" != 1 ]; then
  for i in $(seq 16); do
    "${KIP[@]}" --db "$T/race.db" exec --no-policies 'FIND(COUNT(?p)) WHERE { ?p {type: "Person", name: "$self"} }' > "$T/race.out.$i" 2>&1 &
  done
  wait
  check concurrent_first_opens 16 "$(grep -lx 1 "$T"/race.out.* | wc -l)"
fi
if [ "${KIP_VALGRIND:-0}" = 1 ]; then
  for f in "$T"/vg.*; do
    if [ -s "$f" ]; then fails=$((fails+1)); echo "FAIL valgrind: $f"; cat "$f"; fi
  done
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
