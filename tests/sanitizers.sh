#!/usr/bin/env bash
# Runs the whole suite of an ASan/UBSan build tree (scripts/test builds it
# beside the main one) as one test of the main tree, keeping its output in
# SAN_DIR/ctest.log, where scripts/test finds the tests that did not run.
# Usage: sanitizers.sh CTEST SAN_DIR
set -u
ctest=$1 san=$2
"$ctest" --test-dir "$san" --output-on-failure -j4 > "$san/ctest.log" 2>&1
status=$?
cat "$san/ctest.log"
exit $status
