#!/usr/bin/env bash
# Runs conformance case files (one, or several in one runner: the
# PostgreSQL backend's, on one server). Passes when the runner ran every
# case (its last summary line "N passed, M failed" with N + M > 0) and every
# failing case is listed as pending (statements not implemented yet; each
# named in cmake/tests.cmake). A runner that cannot start, a missing case
# file or a summary that is not there is a failure, never a pass.
# Usage: conformance.sh RUNNER KIP_BIN CASE_FILE.json... [pending_case...]
set -u
runner=$1 bin=$2; shift 2
files=()
while [ $# -gt 0 ] && [[ "$1" == *.json ]]; do files+=("$1"); shift; done
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no case file given"; exit 1; }
for f in "$runner" "$bin" "${files[@]}"; do
  [ -e "$f" ] || { echo "FAIL: $f does not exist (the conformance suite lives in ../shared/conformance)"; exit 1; }
done
file="${files[*]}"
out=$(python3 "$runner" --bin "$bin" "${files[@]}" 2>&1)
rc=$?
echo "$out"
summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
if [ -z "$summary" ]; then
  echo "FAIL: the runner printed no summary (exit $rc): it did not run the cases"
  exit 1
fi
ran=$(( $(echo "$summary" | cut -d' ' -f1) + $(echo "$summary" | cut -d' ' -f3) ))
[ "$ran" -gt 0 ] || { echo "FAIL: the runner ran no case of $file"; exit 1; }
unexpected=0
while IFS= read -r line; do
  case "$line" in FAIL*) ;; *) continue ;; esac
  name=${line#FAIL }; name=${name%% *}; name=${name#*::}
  ok=0
  for p in "$@"; do [ "$p" = "$name" ] && ok=1; done
  if [ $ok = 1 ]; then echo "(pending: $name)"; else unexpected=$((unexpected+1)); fi
done <<< "$out"
[ "$unexpected" -eq 0 ]
