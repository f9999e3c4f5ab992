#!/bin/sh
# kernel: rt
# The shell part of the LAVA test definition (examples/lava/rtagent.yaml, issue 15) run in the
# RT guest as a LAVA job would run it on a board: rtagent-lava.sh with a profile, a short
# duration and the verify+accept mode. Outside LAVA it prints the signal lines LAVA's
# lava-test-case prints; each criterion must come out as one, with a measurement and unit
# where the criterion has one, and the verdict files must be left for upload. Never a latency
# figure asserted: under TCG every wake-up is the emulator's.
. /rtagent/lib.sh
cp /rtagent/qemu-profiles/accept-gate.yaml /tmp/lava.yaml
export RTAGENT_LAVA_OUT="$OUT/lava"
# Every line on the console as it comes, with the guest's uptime, so that a run that stops
# shows where it stopped (a CI run once hung here with nothing on the console but the start).
: > "$OUT/lava.out"
{ ( cd /rtagent/examples/lava && RTAGENT=rtagent ./rtagent-lava.sh /tmp/lava.yaml 5s verify+accept ) 2>&1
  echo $? > "$OUT/lava.rc"; } | while IFS= read -r line; do
  printf '%s\n' "$line" >> "$OUT/lava.out"
  printf '  | %s %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$line"
done
rc=$(cat "$OUT/lava.rc")
if [ $rc = 0 ]; then pass "rtagent-lava.sh ran to its end (exit 0)"; else fail "rtagent-lava.sh" "exit $rc"; fi
expect_grep "a verify test case" '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=rtagent-verify RESULT=(pass|fail)>$' "$OUT/lava.out"
expect_grep "CPU 2's max as a test case with its measurement in us" '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=cpu2-max RESULT=(pass|fail) MEASUREMENT=[0-9.]+ UNITS=us>$' "$OUT/lava.out"
expect_grep "CPU 2's overflows as a count" '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=cpu2-overflows RESULT=(pass|fail) MEASUREMENT=[0-9]+ UNITS=count>$' "$OUT/lava.out"
expect_grep "the verdict as a test case" '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=rtagent-verdict RESULT=(pass|fail)>$' "$OUT/lava.out"
n_cases=$(wc -l < "$OUT/lava/cases.txt" 2>/dev/null || echo 0)
n_signals=$(grep -cE '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(cpu|run-)' "$OUT/lava.out")
if [ "$n_cases" -gt 0 ] && [ "$n_cases" = "$n_signals" ]; then
  pass "one test case per criterion ($n_cases)"
else
  fail "one test case per criterion" "$n_cases criteria, $n_signals signals"
fi
for f in verdict.json verdict.junit.xml verdict.md verdict.html; do
  expect_grep "artifact $f named for upload" "^rtagent-lava: artifact $OUT/lava/$f\$" "$OUT/lava.out"
done
fact lava_verdict "$(grep -o 'TEST_CASE_ID=rtagent-verdict RESULT=[a-z]*' "$OUT/lava.out") (an emulated run)"
finish
