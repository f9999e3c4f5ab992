#!/bin/sh
# kernel: rt
# `rtagent verify` on Debian's PREEMPT_RT kernel with the real hwlat tracer: a short run
# (3 s), its answer in --json, and every tracefs file it touched reading as before (the mode
# left at none: the check writes its default, round-robin, and puts none back); then a
# verify in per-cpu mode stopped by SIGINT while hwlat runs, which must restore the tracer
# just the same.
# The interrupts and ranks checks run on the live counters and threads. Never a latency
# figure: under TCG the gaps are the emulator's, so the hwlat verdict may be PASS or FAIL.
. /rtagent/lib.sh

T=/sys/kernel/tracing
if ! grep -qw hwlat $T/available_tracers 2>/dev/null; then
  fail "hwlat tracer available" "not in $T/available_tracers"
  finish
fi

# Non-default starting values, so that "restored" cannot be mistaken for "reset".
echo nop > $T/current_tracer
echo 7 > $T/tracing_cpumask
echo 0 > $T/tracing_thresh
echo 1 > $T/tracing_on
echo 1000000 > $T/hwlat_detector/window
echo 400000 > $T/hwlat_detector/width
# mode (5.14+): none, so that the check's own default (round-robin) is a real change to undo.
[ -e $T/hwlat_detector/mode ] && echo none > $T/hwlat_detector/mode
snapshot() {
  for f in current_tracer tracing_cpumask tracing_thresh tracing_on hwlat_detector/width hwlat_detector/window; do
    echo "$f=$(cat $T/$f)"
  done
  [ -e $T/hwlat_detector/mode ] && echo "hwlat_detector/mode=$(cat $T/hwlat_detector/mode)"
}
snapshot > /tmp/tracer.before
info "tracer before: $(tr '\n' ' ' < /tmp/tracer.before)"

cat > /tmp/verify.yaml <<'YAML'
cores:
  housekeeping: 0-1
  isolated: 2-3
checks:
  interrupts:
    window: 2s
  hwlat:
    width: 200ms
    window: 500ms
    duration: 3s
    threshold_us: 10
YAML

# Only the checks this scenario is about (and kernel, for context): a suite file of our own,
# so a failure elsewhere in verify (conformance's plan) does not hide them.
cat > /tmp/suite.yaml <<'YAML'
name: rt-verify
description: the live checks that need a real RT kernel
checks: [kernel, ranks, interrupts, hwlat]
YAML

rt_verdict verify-json verify /tmp/verify.yaml --suite /tmp/suite.yaml --json
json_flat "$OUT/verify-json.out" > /tmp/verify.flat
st=$(result_field /tmp/verify.flat hwlat status)
sum=$(result_field /tmp/verify.flat hwlat summary)
fact hwlat_result "$st: $sum"
fact hwlat_measured "$(result_field /tmp/verify.flat hwlat measured)"
case $st in
  PASS|FAIL) pass "verify ran the hwlat tracer to a verdict ($st)" ;;
  *) fail "verify ran the hwlat tracer to a verdict" "status '$st': $sum" ;;
esac
case $sum in
  *"width 200000 us per 500000 us window on CPUs 2-3 for 3s"*) pass "hwlat used the profile's width, window, CPUs and duration" ;;
  *) fail "hwlat used the profile's width, window, CPUs and duration" "$sum" ;;
esac
if grep -q '^results\.[0-9]*\.id=hwlat\.restore$' /tmp/verify.flat; then
  fail "hwlat restored the tracer (its own report)" "$(grep -A0 'hwlat.restore' /tmp/verify.flat)"
else
  pass "hwlat reports no restore failure"
fi
snapshot > /tmp/tracer.after
if [ -e $T/hwlat_detector/mode ]; then
  case $sum in
    *"for 3s, round-robin)"*) pass "hwlat ran in the default mode, round-robin, and said so" ;;
    *) fail "hwlat ran in the default mode, round-robin, and said so" "$sum" ;;
  esac
  mode_before=$(sed -n 's/^hwlat_detector\/mode=//p' /tmp/tracer.before)
  case $mode_before in *"[none]"*) ;; *) fail "hwlat_detector/mode was none before verify" "$mode_before" ;; esac
  expect_eq "hwlat_detector/mode reads as before verify (round-robin during the run)" \
    "$(sed -n 's/^hwlat_detector\/mode=//p' /tmp/tracer.after)" "$mode_before"
fi
if cmp -s /tmp/tracer.before /tmp/tracer.after; then
  pass "tracefs reads as before verify ($(tr '\n' ' ' < /tmp/tracer.after))"
else
  fail "tracefs reads as before verify" "$(diff /tmp/tracer.before /tmp/tracer.after | grep '^[-+][a-z]' | tr '\n' ' ')"
fi

# The live checks around it answered too (their verdicts depend on the guest; only their presence is asserted).
for id in ranks.order ranks.spinning ranks.starvation ranks.throttling; do
  s=$(result_field /tmp/verify.flat $id status)
  fact "$id" "$s: $(result_field /tmp/verify.flat $id summary)"
  if [ -n "$s" ]; then pass "verify answered $id ($s)"; else fail "verify answered $id" "no such result"; fi
done
if grep -q '^results\.[0-9]*\.check=interrupts$' /tmp/verify.flat; then
  pass "verify answered the interrupts check"
  fact interrupts "$(grep -A0 '^results\.[0-9]*\.summary=' /tmp/verify.flat | grep -i 'isolated' | head -3 | tr '\n' ' ')"
else
  fail "verify answered the interrupts check" "no interrupts result"
fi

# Ctrl-C while hwlat runs: only hwlat in this profile, a long duration, the per-cpu mode,
# SIGINT once the tracer is on; the lease must put everything back (the mode to none) before
# rtagent exits.
cat > /tmp/verify-long.yaml <<'YAML'
cores:
  housekeeping: 0-1
  isolated: 2-3
checks:
  kernel: false
  cmdline: false
  clock: false
  lint: false
  ranks: false
  interrupts: false
  hwlat:
    width: 200ms
    window: 500ms
    duration: 60s
    mode: per-cpu
YAML
rtagent verify /tmp/verify-long.yaml --suite /tmp/suite.yaml --json > "$OUT/verify-int.out" 2> "$OUT/verify-int.err" &
vpid=$!
i=0
while [ $i -lt 60 ] && [ "$(cat $T/current_tracer)" != hwlat ]; do sleep 1; i=$((i + 1)); done
if [ "$(cat $T/current_tracer)" = hwlat ]; then
  pass "hwlat was running under verify after ${i}s"
  if [ -e $T/hwlat_detector/mode ]; then
    case $(cat $T/hwlat_detector/mode) in
      *"[per-cpu]"*) pass "hwlat_detector/mode is the profile's per-cpu while it runs (it was none)" ;;
      *) fail "hwlat_detector/mode is the profile's per-cpu while it runs" "$(cat $T/hwlat_detector/mode)" ;;
    esac
  fi
  sleep 1
  kill -INT $vpid
  wait $vpid
  rc=$?
  echo "STEP verify-int: rtagent verify /tmp/verify-long.yaml --suite /tmp/suite.yaml --json (SIGINT) -> exit $rc"
  expect_eq "verify interrupted by SIGINT exits 1" "$rc" 1
  json_flat "$OUT/verify-int.out" > /tmp/verify-int.flat
  expect_eq "verify reports it was interrupted" "$(sed -n 's/^interrupted=//p' /tmp/verify-int.flat)" true
  fact hwlat_interrupted "$(result_field /tmp/verify-int.flat hwlat status): $(result_field /tmp/verify-int.flat hwlat summary)"
  snapshot > /tmp/tracer.after-int
  if cmp -s /tmp/tracer.before /tmp/tracer.after-int; then
    pass "tracefs reads as before after SIGINT"
  else
    fail "tracefs reads as before after SIGINT" "$(diff /tmp/tracer.before /tmp/tracer.after-int | grep '^[-+][a-z]' | tr '\n' ' ')"
  fi
else
  fail "hwlat was running under verify" "current_tracer is $(cat $T/current_tracer) after ${i}s"
  kill $vpid 2>/dev/null; wait $vpid
fi
finish
