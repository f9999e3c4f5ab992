#!/usr/bin/env bash
# What failed in CI's test stage, in a few dozen lines, printed again at the very end of the run,
# where a reader of only the log's tail still sees it: the failing tests, each Catch2 assertion
# that failed with its expansion, each QEMU scenario's FAIL lines, and the end of the guest
# console of a scenario that hung.
#
#   tools/ci_digest.sh TESTS_LOG BUILD_DIR     (prints nothing when no test failed)
set -uo pipefail
log=$1 build=$2
failed="$build/Testing/Temporary/LastTestsFailed.log"
[ -s "$failed" ] || exit 0
echo "ci: ================ what failed in the test stage (the whole output is above) ================"
sed 's/^/ci: failed test /' "$failed"
# Catch2: "file:line: FAILED:" and the assertion with its expansion, to the blank line after it.
awk '/: FAILED:$/ {n = 8} n > 0 {print "ci: | " substr($0, 1, 300); n--; if ($0 == "") n = 0}' "$log" | head -80
# QEMU scenarios: the checks that failed in a guest and the runner's summary line of each.
grep -E '^FAIL ' "$log" | cut -c1-400 | sed 's/^/ci: | /' | head -40
grep -oE 'FAIL [^ ]+: no end marker[^(]*\([^;]*; [^)]*console\.log\)' "$log" | sed -E 's/.*; ([^)]*console\.log)\)$/\1/' |
  while read -r console; do
    [ -f "$console" ] || continue
    echo "ci: the last 40 lines of $console:"
    tail -n 40 "$console" | cut -c1-300 | sed 's/^/ci: | /'
  done
exit 0
