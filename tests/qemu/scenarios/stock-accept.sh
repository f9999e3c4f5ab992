#!/bin/sh
# kernel: stock
# host-after: kernel-gate.sh
# The kernel gate's candidate (issue 15, docs/ci.md "A kernel gate under QEMU"): rt-accept's
# acceptance run, the same profile, on Debian's stock kernel. On the host afterwards,
# tests/qemu/host/kernel-gate.sh runs examples/ci/kernel-gate.sh twice: the RT kernel against
# a second run of itself must pass, the stock kernel against the RT baseline must fail with the
# regression named. Never a latency figure asserted: under TCG every wake-up is the emulator's.
. /rtagent/lib.sh
cp /rtagent/qemu-profiles/accept-gate.yaml /tmp/accept.yaml
rt_verdict accept accept /tmp/accept.yaml --duration 5s --json "$OUT/v.json"
if [ ! -s "$OUT/v.json" ]; then
  fail "verdict JSON written" "$OUT/v.json is missing or empty"
  finish
fi
pass "verdict JSON written"
json_flat "$OUT/v.json" > /tmp/v.flat
jexpect "kernel is not PREEMPT_RT" /tmp/v.flat host.preempt_rt false
jexpect "verdict says virtual machine" /tmp/v.flat host.virtual_machine true
artifact verdict.json "$OUT/v.json"
finish
