#!/bin/sh
# kernel: rt
# modules: veth
# tools: ip
# network.channels with RPS and XPS on the PREEMPT_RT kernel (issue 20). Debian's kernels are
# built without netdevsim, and virtio-net on QEMU's user networking has one queue pair, so the
# NIC is a veth pair made here with 4 receive and 4 transmit queues each: veth's driver has
# separate rx and tx channels (no combined ones) and takes new counts through ethtool's netlink
# CHANNELS_SET (drivers/net/veth.c, veth_set_channels). The profile sets v0's rx and tx
# channels to the housekeeping count (2) and every queue's RPS/XPS mask to housekeeping (3);
# the counts are read back from the kernel as the queues sysfs shows (rx-N, tx-N), the masks
# from their files; revert puts the counts and masks back.
. /rtagent/lib.sh

P=/tmp/qemu-channels.yaml
IP=/usr/local/bin/ip
Q=/sys/class/net

count() { ls -d $Q/$1/queues/$2-* 2>/dev/null | wc -l; }
masks() {   # masks IFACE: "rx-0=... tx-0=..." every queue's RPS or XPS mask
  for f in $Q/$1/queues/rx-*/rps_cpus $Q/$1/queues/tx-*/xps_cpus; do
    q=${f%/*}; echo "${q##*/}=$(cat "$f" 2>/dev/null)"
  done | tr '\n' ' '
}

load_modules veth
if [ ! -x $IP ]; then skip "veth pair" "no iproute2 ip in the initramfs (mkinitramfs.sh: # tools: ip)"; finish; fi
if $IP link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1 numtxqueues 4 numrxqueues 4 2> /tmp/ip.err; then
  pass "veth pair v0/v1 with 4 rx and 4 tx queues made"
else
  fail "veth pair made" "$(cat /tmp/ip.err)"; finish
fi
$IP link set v0 up; $IP link set v1 up
expect_eq "v0 has 4 rx queues before apply" "$(count v0 rx)" 4
expect_eq "v0 has 4 tx queues before apply" "$(count v0 tx)" 4
BEFORE_V0=$(masks v0) BEFORE_V1=$(masks v1)
fact masks_before "v0: $BEFORE_V0 v1: $BEFORE_V1"

cat > $P <<'YAML'
version: 1
name: qemu-channels
description: veth's queues on the housekeeping CPUs of the QEMU harness's 4
cores:
  housekeeping: 0-1
  isolated: 2-3
  boot:                          # exactly what boot.sh passes
    isolcpus: [nohz, domain, managed_irq]
    nohz_full: true
    rcu_nocbs: true
    rcu_nocb_poll: false
    irqaffinity: true
    kthread_cpus: false
    skew_tick: false
  bootloader: print
  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}
irqs:
  default: keep
network:
  channels:
    rx: housekeeping
    tx: housekeeping
    devices: [v0]
  rps: housekeeping
  xps: housekeeping
kernel:
  preempt_rt: any
YAML

rt_expect validate 0 validate $P
rt_expect plan 0 plan $P
sed 's/^/  | /' "$OUT/plan.out" | head -40
expect_grep "plan: v0's rx channels 4 -> 2" 'v0 rx channels.*4.*2' "$OUT/plan.out"
expect_grep "plan: v0's tx channels 4 -> 2" 'v0 tx channels.*4.*2' "$OUT/plan.out"
if grep -q 'v0 rx-2 RPS' "$OUT/plan.out"; then fail "plan leaves out the queues the new count removes" "v0 rx-2 planned"; else pass "plan leaves out the queues the new count removes"; fi

T0=$(date +%s)
rt_expect apply 0 apply $P --json
json_flat "$OUT/apply.out" > /tmp/apply.flat
grep -E '^results\.[0-9]+\.(what|outcome|detail)=' /tmp/apply.flat | sed 's/^/  | /' | head -40
jexpect "apply: not rolled back" /tmp/apply.flat rolled_back false
jexpect "apply: nothing failed" /tmp/apply.flat summary.failed 0
fact apply_seconds "$(( $(date +%s) - T0 ))"

# read back from the kernel: the queues the driver now runs, and their masks
expect_eq "v0 has 2 rx queues after apply" "$(count v0 rx)" 2
expect_eq "v0 has 2 tx queues after apply" "$(count v0 tx)" 2
expect_eq "v1 keeps its 4 rx queues (not listed)" "$(count v1 rx)" 4
for f in $Q/v0/queues/rx-*/rps_cpus $Q/v1/queues/rx-*/rps_cpus $Q/v0/queues/tx-*/xps_cpus $Q/v1/queues/tx-*/xps_cpus; do
  expect_file "${f#$Q/} after apply" "$f" 3
done
expect_file "lo's RPS mask left alone" $Q/lo/queues/rx-0/rps_cpus 0

printf 'name: conformance\ndescription: what apply changed\nchecks: [conformance]\n' > /tmp/conformance-suite.yaml
rt_expect verify 0 verify $P --suite /tmp/conformance-suite.yaml
[ $RT_RC = 0 ] || sed 's/^/  | /' "$OUT/verify.out" | head -40


rt_expect revert 0 revert --json
sed 's/^/  | /' "$OUT/revert.out" | grep -E '"(what|outcome|detail)"' | head -40
expect_eq "v0 has 4 rx queues again after revert" "$(count v0 rx)" 4
expect_eq "v0 has 4 tx queues again after revert" "$(count v0 tx)" 4
expect_eq "v0's masks after revert" "$(masks v0)" "$BEFORE_V0"
expect_eq "v1's masks after revert" "$(masks v1)" "$BEFORE_V1"
if [ -e /run/rtagent/journal.json ]; then fail "journal is gone after revert" "present"; else pass "journal is gone after revert"; fi

# the error paths the profile's reader and the kernel give, live
cat > /tmp/bad-combined.yaml <<'YAML'
version: 1
name: bad-combined
cores: {housekeeping: 0-1, isolated: 2-3, bootloader: print, runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}}
irqs: {default: keep}
network:
  channels:
    combined: 2
    devices: [v0, eth9]
YAML
rt_expect plan-errors 0 plan /tmp/bad-combined.yaml
sed 's/^/  | /' "$OUT/plan-errors.out" | grep -iE 'error|note' | head
expect_grep "plan: v0 has no combined channels (veth), at its line" 'bad-combined.yaml:7:.*network.channels.combined: v0.s driver has no combined channels' "$OUT/plan-errors.out"
expect_grep "plan: eth9 is no interface, at its line" 'bad-combined.yaml:8:.*eth9, which is no network interface here' "$OUT/plan-errors.out"
cat > /tmp/bad-lo.yaml <<'YAML'
version: 1
name: bad-lo
cores: {housekeeping: 0-1, isolated: 2-3, bootloader: print, runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}}
irqs: {default: keep}
network:
  channels:
    rx: 8
    devices: [lo, v0]
YAML
rt_expect plan-errors2 0 plan /tmp/bad-lo.yaml
sed 's/^/  | /' "$OUT/plan-errors2.out" | grep -iE 'error|note' | head
expect_grep "plan: lo's driver has no channel settings (EOPNOTSUPP over netlink)" 'names lo, whose driver has no channel settings' "$OUT/plan-errors2.out"
expect_grep "plan: rx 8 above v0's maximum of 4" 'network.channels.rx is 8, above the maximum of 4 rx channels of v0' "$OUT/plan-errors2.out"
$IP link del v0
finish
