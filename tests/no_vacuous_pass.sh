#!/usr/bin/env bash
# The test scripts cannot pass vacuously (issue 42): a conformance runner that
# cannot start fails, and every test of the shared fixtures reports a skip
# (exit 77: ctest counts it, scripts/test lists it) when the fixtures are not
# where $KIP_SHARED says — none of them exits 0.
# Usage: no_vacuous_pass.sh BUILD_DIR
set -u
BUILD=$1
HERE=$(cd "$(dirname "$0")/.." && pwd)
fails=0
expect() { # name, wanted exit code, command...
  local name=$1 want=$2; shift 2
  "$@" >/dev/null 2>&1
  local got=$?
  if [ "$got" = "$want" ]; then echo "ok   $name (exit $got)"; else echo "FAIL $name: exit $got, wanted $want"; fails=$((fails+1)); fi
}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
echo '{"cases": []}' > "$TMP/empty.json"
expect "conformance: a missing runner fails" 1 "$HERE/tests/conformance.sh" "$TMP/nope.py" "$BUILD/kip" "$TMP/empty.json"
expect "conformance: a missing case file fails" 1 "$HERE/tests/conformance.sh" "$TMP/nope.py" "$BUILD/kip" "$TMP/missing.json"
printf 'print("no summary here")\n' > "$TMP/runner.py"
expect "conformance: a runner that prints no summary fails" 1 "$HERE/tests/conformance.sh" "$TMP/runner.py" "$BUILD/kip" "$TMP/empty.json"
printf 'print("0 passed, 0 failed")\n' > "$TMP/zero.py"
expect "conformance: a runner that ran no case fails" 1 "$HERE/tests/conformance.sh" "$TMP/zero.py" "$BUILD/kip" "$TMP/empty.json"
# on PostgreSQL, several files side by side: one whose runner printed no summary fails the whole
printf 'import sys\nprint("3 passed, 0 failed" if sys.argv[-1].endswith("a.json") else "no summary here")\n' > "$TMP/half.py"
cp "$TMP/empty.json" "$TMP/a.json"; cp "$TMP/empty.json" "$TMP/b.json"
expect "conformance on PostgreSQL: a file whose runner printed no summary fails" 1 \
  env KIP_CONFORMANCE_RUNNER="$TMP/half.py" python3 "$HERE/tests/pg_conformance.py" --bin "$BUILD/kip" \
  --url postgresql://nobody@127.0.0.1:1/none "$TMP/a.json" "$TMP/b.json"
export KIP_SHARED="$TMP/no-shared-here"
for t in e2e_arg.py e2e_arg_offline.py e2e_arg_adversarial.py; do
  expect "$t without the fixtures: a counted skip" 77 python3 "$HERE/tests/$t" "$BUILD"
done
expect "arg_learning/run without the fixtures: a counted skip" 77 "$HERE/scripts/bench/arg_learning/run" "$BUILD/kip"
expect "e2e_sleep.py without the fixtures: a counted skip" 77 python3 "$HERE/tests/e2e_sleep.py" "$BUILD" fixture
expect "no_fixture_literals.py without the fixtures: a counted skip" 77 python3 "$HERE/tests/arg/no_fixture_literals.py" "$HERE"
expect "docs_examples.py without the fixtures: a counted skip" 77 python3 "$HERE/tests/docs_examples.py" "$BUILD" docs/sleep.md
expect "docs_examples.py without a kip to run fails" 1 python3 "$HERE/tests/docs_examples.py" "$TMP" README.md
printf '```sh\nkip version\n# kip 0.0.0-not-this-version\n```\n' > "$TMP/wrong.md"
expect "docs_examples.py: output other than documented fails" 1 python3 "$HERE/tests/docs_examples.py" "$BUILD" "$TMP/wrong.md"
printf '```sh\nkip exec "FIND(?x WHERE"\n```\n' > "$TMP/fails.md"
expect "docs_examples.py: a command that fails where the doc does not say so fails" 1 python3 "$HERE/tests/docs_examples.py" "$BUILD" "$TMP/fails.md"
[ "$fails" -eq 0 ] && echo "no test passes vacuously" || exit 1
