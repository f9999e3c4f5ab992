#!/bin/sh
# The shell part of examples/lava/rtagent.yaml: runs rtagent on the board and reports to LAVA.
#
#   rtagent-lava.sh PROFILE DURATION [verify+accept|commission]
#
# Test cases (LAVA's lava-test-case, or the signal line it prints when run outside LAVA):
#   rtagent-verify        pass when every pre-flight check passed (verify's exit 0)
#   <criterion>           one per acceptance criterion: cpu2-max, cpu2-p99.9, cpu2-overflows,
#                         cpu2-samples, ... with --measurement and --units (rtagent report --cases)
#   rtagent-verdict       the verdict as a whole
# The verdict files (JSON, JUnit, Markdown, HTML) are left in $RTAGENT_LAVA_OUT (default
# /tmp/rtagent-lava) and their paths printed, for the job to upload (e.g. lava-test-reference
# or a postprocess step). POSIX sh: runs on busybox.
set -u
PROFILE=${1:?usage: rtagent-lava.sh PROFILE DURATION [verify+accept|commission]}
DURATION=${2:?usage: rtagent-lava.sh PROFILE DURATION [verify+accept|commission]}
MODE=${3:-verify+accept}
RT=${RTAGENT:-rtagent}
OUT=${RTAGENT_LAVA_OUT:-/tmp/rtagent-lava}
mkdir -p "$OUT"

# lava-test-case NAME --result R [--measurement M --units U]; outside LAVA the same signal
# LAVA's helper prints, so a log parser (or a person) sees the same thing.
test_case() {
  name=$1 result=$2 measurement=${3:-} units=${4:-}
  if command -v lava-test-case >/dev/null 2>&1; then
    if [ -n "$measurement" ]; then
      lava-test-case "$name" --result "$result" --measurement "$measurement" --units "$units"
    else
      lava-test-case "$name" --result "$result"
    fi
  elif [ -n "$measurement" ]; then
    echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$name RESULT=$result MEASUREMENT=$measurement UNITS=$units>"
  else
    echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$name RESULT=$result>"
  fi
}

if ! command -v "$RT" >/dev/null 2>&1; then
  echo "rtagent-lava: $RT not found: install the rtagent package on the board or set RTAGENT" >&2
  test_case rtagent-installed fail
  exit 1
fi
"$RT" --version

files="--json $OUT/verdict.json --junit $OUT/verdict.junit.xml --md $OUT/verdict.md --html $OUT/verdict.html"
case $MODE in
  commission)
    # shellcheck disable=SC2086
    "$RT" commission "$PROFILE" --duration "$DURATION" $files
    rc=$? ;;
  verify+accept)
    "$RT" verify "$PROFILE" > "$OUT/verify.txt" 2>&1
    vrc=$?
    cat "$OUT/verify.txt"
    if [ $vrc = 0 ]; then test_case rtagent-verify pass; else test_case rtagent-verify fail; fi
    # verify has just run the profile's suite (hwlat for minutes on some boards): the
    # acceptance run's own pre-flight is the fast boot suite, not that suite again.
    # shellcheck disable=SC2086
    "$RT" accept "$PROFILE" --duration "$DURATION" --preflight boot $files
    rc=$? ;;
  *)
    echo "rtagent-lava: MODE must be verify+accept or commission, not $MODE" >&2
    exit 2 ;;
esac

if [ ! -s "$OUT/verdict.json" ]; then
  echo "rtagent-lava: no verdict was written (rtagent exit $rc)" >&2
  test_case rtagent-verdict fail
  exit 1
fi
"$RT" report "$OUT/verdict.json" --cases "$OUT/cases.txt" || { test_case rtagent-verdict fail; exit 1; }
while read -r name result measurement units; do
  if [ "$measurement" = "-" ]; then test_case "$name" "$result"; else test_case "$name" "$result" "$measurement" "$units"; fi
done < "$OUT/cases.txt"
if [ "$rc" = 0 ]; then test_case rtagent-verdict pass; else test_case rtagent-verdict fail; fi
for f in verdict.json verdict.junit.xml verdict.md verdict.html; do
  [ -s "$OUT/$f" ] && echo "rtagent-lava: artifact $OUT/$f"
done
exit 0
