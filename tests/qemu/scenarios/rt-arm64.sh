#!/bin/sh
# kernel: rt
# arch: arm64
# timeout: 900
# The cross-built arm64 package on Debian's PREEMPT_RT arm64 kernel (issue 16): qemu-system-aarch64,
# the `virt` machine with a GICv3 and four Cortex-A57 (boot.sh -A arm64: housekeeping CPU 0,
# isolated 1-3), the guest a whole Debian arm64 (debian-base.sh --arch arm64). `dpkg -i` of
# rtagent_<version>_arm64.deb, then inspect (GICv3 interrupts, arch_timer, arch_sys_counter,
# PREEMPT_RT), capture (the tree goes to the host as tests/sysroots/debian12-rt-arm64-qemu),
# apply + verify of tests/qemu/profiles/arm64-qemu.yaml with every value read back, a 20 s
# accept with the sampler on CPUs 1-3 (emulator figures: never an arm64 board's), and revert
# with every value read back as it was.
. /rtagent/lib.sh

P=/rtagent/qemu-profiles/arm64-qemu.yaml
J=/run/rtagent/journal.json
W=/sys/devices/virtual/workqueue/cpumask
DA=/proc/irq/default_smp_affinity
CG=/sys/fs/cgroup

fact arch "$(uname -m) $(dpkg --print-architecture)"
expect_eq "the guest is aarch64" "$(uname -m)" aarch64
DEB=$(ls /rtagent/rtagent_*_arm64.deb 2>/dev/null | head -1)
if [ -z "$DEB" ]; then fail "package" "no /rtagent/rtagent_*_arm64.deb in the initramfs"; finish; fi
if dpkg -i "$DEB" > "$OUT/dpkg.out" 2>&1; then pass "dpkg -i $(basename "$DEB")"; else
  sed 's/^/  | /' "$OUT/dpkg.out" | tail -15; fail "dpkg -i" "see above"; finish
fi
expect_eq "dpkg says rtagent is installed" "$(dpkg-query -W -f '${Status} ${Architecture}' rtagent)" "install ok installed arm64"
expect_eq "the sampler is where the package puts it" "$([ -x /usr/libexec/rtagent/rtagent-sampler ] && echo yes)" yes
rt version --version && fact version "$(cat "$OUT/version.out")"

# inspect: what the issue names, from the arm64 kernel's own files.
if rt inspect inspect --json; then
  json_flat "$OUT/inspect.out" > /tmp/inspect.flat
  jexpect "inspect: PREEMPT_RT" /tmp/inspect.flat kernel.preempt_rt true
  jexpect "inspect: aarch64" /tmp/inspect.flat kernel.arch aarch64
  jexpect "inspect: clocksource arch_sys_counter" /tmp/inspect.flat clock.clocksource arch_sys_counter
  expect_grep "inspect: GICv3 interrupts" '^irqs\.irqs\.[0-9]+\.chip=GICv3$' /tmp/inspect.flat
  expect_grep "inspect: the arch_timer interrupt" '^irqs\.irqs\.[0-9]+\.(name|actions(\.[0-9]+)?)=arch_timer$' /tmp/inspect.flat
  jexpect "inspect: isolated 1-3" /tmp/inspect.flat cpus.isolated 1-3
  fact gic_irqs "$(grep -c '^irqs\.irqs\.[0-9]*\.chip=GICv3$' /tmp/inspect.flat) on GICv3, $(grep -c '^irqs\.irqs\.[0-9]*\.chip=ITS' /tmp/inspect.flat) on ITS"
fi
rt inspect-text inspect && sed 's/^/  | /' "$OUT/inspect-text.out" | head -40

# capture: the tree, to the host as a base64 tar (run.sh appends ARTIFACT lines to a file).
if rt capture capture -o /tmp/cap; then
  expect_grep "captured version says PREEMPT_RT" PREEMPT_RT /tmp/cap/proc/sys/kernel/version /tmp/cap/proc/version
  fact capture_files "$(find /tmp/cap -type f | wc -l) files, $(du -sk /tmp/cap | cut -f1) KiB"
  tar -C /tmp/cap -czf /tmp/cap.tgz . && base64 -w 76 /tmp/cap.tgz | artifact capture.tgz.b64
fi

# apply + verify: every value read back from the kernel's files.
IRQ=
for n in $(sed -n 's/^ *\([0-9][0-9]*\):.*/\1/p' /proc/interrupts); do
  [ -e /proc/irq/$n/smp_affinity_list ] || continue
  if echo 0-3 > /proc/irq/$n/smp_affinity_list 2>/dev/null; then IRQ=$n; break; fi
done
if [ -n "$IRQ" ]; then pass "IRQ $IRQ ($(awk -v n="$IRQ:" '$1 == n {print $NF}' /proc/interrupts)) moved to 0-3 before apply"; else fail "a movable IRQ" "none accepts 0-3"; fi
echo f > $W 2>/dev/null; echo f > $DA 2>/dev/null
snap() {
  { [ -n "$IRQ" ] && echo "irq=$(cat /proc/irq/$IRQ/smp_affinity_list)"
    echo "wq=$(cat $W)"; echo "default_affinity=$(cat $DA)"
    echo "subtree=$(cat $CG/cgroup.subtree_control)"
    echo "rt_cgroup=$([ -d $CG/rt ] && echo present || echo absent)"; } > "$1"
}
snap /tmp/before; sed 's/^/  before| /' /tmp/before
rt_expect validate 0 validate $P
rt_expect plan 0 plan $P && sed 's/^/  | /' "$OUT/plan.out" | head -40
rt_expect apply 0 apply $P --json
json_flat "$OUT/apply.out" > /tmp/apply.flat
jexpect "apply: not rolled back" /tmp/apply.flat rolled_back false
jexpect "apply: nothing failed" /tmp/apply.flat summary.failed 0
[ -n "$IRQ" ] && expect_file "IRQ $IRQ smp_affinity_list after apply" /proc/irq/$IRQ/smp_affinity_list 0
expect_file "workqueue cpumask after apply" $W 1
expect_file "default_smp_affinity after apply" $DA 1
expect_file "partition rt reads back isolated" $CG/rt/cpuset.cpus.partition isolated
expect_file "partition rt cpus" $CG/rt/cpuset.cpus.effective 1-3
printf 'name: conformance\ndescription: what apply changed, and the boot arguments\nchecks: [conformance, cmdline, kernel]\n' > /tmp/conformance-suite.yaml
rt_expect verify 0 verify $P --suite /tmp/conformance-suite.yaml
[ $RT_RC = 0 ] || sed 's/^/  | /' "$OUT/verify.out" | head -40

# accept: 20 s on the isolated CPUs with the cache load on CPU 0. Emulator figures.
rt_verdict accept accept $P --json "$OUT/v.json" --md "$OUT/v.md"
sed 's/^/  | /' "$OUT/accept.out" | head -30
if [ -s "$OUT/v.json" ]; then
  json_flat "$OUT/v.json" > /tmp/v.flat
  jexpect "accept: the sampler ran SCHED_FIFO" /tmp/v.flat config.policy SCHED_FIFO
  jexpect "accept: measured CPUs 1-3" /tmp/v.flat config.cpus 1-3
  jexpect "accept: PREEMPT_RT" /tmp/v.flat host.preempt_rt true
  jexpect "accept: labelled a virtual machine" /tmp/v.flat host.virtual_machine true
  expect_grep "accept: samples on CPU 3" '^cpus\.2\.cpu=3$' /tmp/v.flat
  for i in 0 1 2; do
    fact accept_cpu_$i "CPU $(jget /tmp/v.flat cpus.$i.cpu): $(jget /tmp/v.flat cpus.$i.stats.samples) samples, max $(jget /tmp/v.flat cpus.$i.stats.max_ns) ns, mean $(jget /tmp/v.flat cpus.$i.stats.mean_ns) ns (TCG: the emulator's figures)"
  done
  fact accept_result "$(jget /tmp/v.flat result) (exit $RT_RC)"
else
  fail "accept: verdict JSON" "$OUT/v.json missing or empty"
fi

# revert: every value as it was.
rt_expect revert 0 revert --json
snap /tmp/after
while IFS= read -r l; do
  k=${l%%=*}
  expect_eq "revert restores $k" "$(grep -F "$k=" /tmp/after | head -1)" "$l"
done < /tmp/before
if [ -e $J ]; then fail "journal is gone after revert" "$J exists"; else pass "journal is gone after revert"; fi
finish
