#!/bin/sh
# kernel: stock
# `rtagent verify` on Debian's stock kernel with a profile that requires PREEMPT_RT: the
# kernel check fails saying so, hwlat is a SKIP with its reason (no hwlat tracer built in),
# and tracefs is left exactly as it was.
. /rtagent/lib.sh

T=/sys/kernel/tracing
cat > /tmp/verify.yaml <<'YAML'
cores:
  housekeeping: 0-1
  isolated: 2-3
kernel:
  preempt_rt: required
checks:
  interrupts:
    window: 1s
  hwlat:
    duration: 2s
YAML
cat > /tmp/suite.yaml <<'YAML'
name: stock-verify
description: the kernel check and the live checks on a stock kernel
checks: [kernel, ranks, interrupts, hwlat]
YAML
before=$(cat $T/current_tracer $T/tracing_thresh $T/tracing_on 2>&1 | tr '\n' ' ')

result_field() {
  n=$(sed -n "s/^results\.\([0-9]*\)\.id=$2\$/\1/p" "$1" | head -1)
  [ -n "$n" ] || return 1
  sed -n "s/^results\.$n\.$3=//p" "$1" | head -1
}

rt_expect verify-json 1 verify /tmp/verify.yaml --suite /tmp/suite.yaml --json
json_flat "$OUT/verify-json.out" > /tmp/verify.flat
st=$(result_field /tmp/verify.flat hwlat status)
sum=$(result_field /tmp/verify.flat hwlat summary)
fact hwlat_result "$st: $sum"
expect_eq "hwlat is SKIP on the stock kernel" "$st" SKIP
case $sum in
  *"no hwlat tracer"*|"tracefs is not mounted"*) pass "hwlat says why it skipped ($sum)" ;;
  *) fail "hwlat says why it skipped" "$sum" ;;
esac
st=$(result_field /tmp/verify.flat kernel.preempt_rt status)
fact preempt_rt_result "$st: $(result_field /tmp/verify.flat kernel.preempt_rt summary)"
expect_eq "kernel.preempt_rt FAILs when the profile requires PREEMPT_RT" "$st" FAIL
expect_eq "tracefs untouched" "$(cat $T/current_tracer $T/tracing_thresh $T/tracing_on 2>&1 | tr '\n' ' ')" "$before"
for id in ranks.spinning ranks.starvation; do
  fact "$id" "$(result_field /tmp/verify.flat $id status): $(result_field /tmp/verify.flat $id summary)"
done
rt_verdict verify-table verify /tmp/verify.yaml --suite /tmp/suite.yaml
finish
