# The apply loop shared by rt-apply and stock-apply (sourced after lib.sh):
# validate, plan, apply, read every value back from the kernel's own files, verify, drift
# behind rtagent's back (verify exits 1), revert, read every value back as it was.
# apply_loop MEMORY_YAML: MEMORY_YAML is the profile's memory section ("" leaves memory alone).

P=/tmp/qemu-apply.yaml
J=/run/rtagent/journal.json
W=/sys/devices/virtual/workqueue/cpumask
DA=/proc/irq/default_smp_affinity
CG=/sys/fs/cgroup

write_profile() {
  cat > $P <<EOF
version: 1
name: qemu-apply
description: the QEMU harness's 4 CPUs, housekeeping 0-1, isolated 2-3
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
  runtime:
    workqueue_cpumask: housekeeping
    default_smp_affinity: housekeeping
irqs:
  default: housekeeping
ranks:
  rules:
    tty-irq: {threads: "irq/4-ttyS0", policy: fifo, priority: 60, cpus: 0-1}
    sleeper: {cmdline: "sleep 1000", policy: fifo, priority: 55}
partitions:
  rt: {cpus: 2-3, type: isolated}
kernel:
  preempt_rt: any
checks:
  hwlat: {duration: 1s, width: 100ms, window: 200ms}
  interrupts: {window: 1s}
EOF
  if [ -d /sys/devices/system/cpu/cpu2/cpuidle ]; then
    printf 'power:\n  cpus: isolated\n  max_exit_latency_us: 10\n' >> $P
    info "cpuidle present: power.max_exit_latency_us 10 on the isolated CPUs"
  else
    skip "power.cpus max_exit_latency_us" "no cpuidle on this kernel/machine (no /sys/devices/system/cpu/cpu2/cpuidle)"
  fi
  [ -n "$1" ] && printf '%s\n' "$1" >> $P
  sed 's/^/  P| /' $P
}

# a movable IRQ (1 i8042, 4 ttyS0, 8 rtc0, 9 acpi, 12 i8042) that accepts 0-3
pick_irq() {
  for n in 8 9 1 12 4; do
    [ -e /proc/irq/$n/smp_affinity_list ] || continue
    if echo 0-3 > /proc/irq/$n/smp_affinity_list 2>/dev/null; then echo $n; return; fi
  done
}

snapshot() {   # snapshot FILE: every value the profile touches, one "name=value" a line
  {
    echo "irq=$(cat /proc/irq/$IRQ/smp_affinity_list)"
    echo "wq=$(cat $W)"
    echo "default_affinity=$(cat $DA)"
    [ -n "$TTYPID" ] && echo "irqthread_sched=$(stat_sched $TTYPID)"
    [ -n "$TTYPID" ] && echo "irqthread_affinity=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$TTYPID/status)"
    echo "sleeper_sched=$(stat_sched $SLEEP)"
    echo "sleeper_affinity=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$SLEEP/status)"
    echo "init_affinity=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/1/status)"
    echo "subtree=$(cat $CG/cgroup.subtree_control)"
    echo "rt_cgroup=$([ -d $CG/rt ] && echo present || echo absent)"
    [ -e /sys/kernel/mm/transparent_hugepage/enabled ] && echo "thp_enabled=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
    [ -e /sys/kernel/mm/transparent_hugepage/defrag ] && echo "thp_defrag=$(cat /sys/kernel/mm/transparent_hugepage/defrag)"
    for f in /sys/devices/system/cpu/cpu[23]/cpuidle/state*/disable; do [ -e "$f" ] && echo "$f=$(cat $f)"; done
  } > "$1"
}

apply_loop() {
  sleep 1000 &
  SLEEP=$!
  threads > /tmp/threads
  TTYPID=$(awk '$3 == "irq/4-ttyS0" {print $2; exit}' /tmp/threads)
  IRQ=$(pick_irq)
  if [ -z "$IRQ" ]; then fail "a movable IRQ accepts 0-3" "none of 8 9 1 12 4"; IRQ=4; else pass "IRQ $IRQ moved to 0-3 before apply (apply must bring it back)"; fi
  # spread the masks apply must narrow, so apply changes them and revert has something to restore
  echo f > $W 2>/dev/null; echo f > $DA 2>/dev/null
  snapshot /tmp/before; sed 's/^/  before| /' /tmp/before
  write_profile "$1"

  rt_expect validate 0 validate $P
  sed 's/^/  | /' "$OUT/validate.out" "$OUT/validate.err" | head -20
  rt_expect plan 0 plan $P
  sed 's/^/  | /' "$OUT/plan.out" | head -60
  expect_grep "plan mentions IRQ $IRQ" "IRQ $IRQ[^0-9]" "$OUT/plan.out"
  expect_grep "plan mentions the partition rt" 'cpuset.cpus.partition|/rt' "$OUT/plan.out"
  rt_expect plan-json 0 plan $P --json
  json_flat "$OUT/plan-json.out" > /tmp/plan.flat
  expect_grep "plan --json has a pending change for irq $IRQ" "^sections\.[0-9]+\.changes\.[0-9]+\.key=.*irq/$IRQ/smp_affinity_list" /tmp/plan.flat

  rt_expect apply 0 apply $P --json
  json_flat "$OUT/apply.out" > /tmp/apply.flat
  grep -E '^results\.[0-9]+\.(what|outcome|detail)=' /tmp/apply.flat | sed 's/^/  | /' | head -80
  jexpect "apply: not rolled back" /tmp/apply.flat rolled_back false
  jexpect "apply: nothing failed" /tmp/apply.flat summary.failed 0
  if [ -s $J ]; then pass "journal $J written by apply"; else fail "journal $J written by apply" "absent or empty"; fi

  # read back from the kernel's own files
  expect_file "IRQ $IRQ smp_affinity_list after apply" /proc/irq/$IRQ/smp_affinity_list 0-1
  expect_file "workqueue cpumask after apply" $W 3
  expect_file "default_smp_affinity after apply" $DA 3
  if [ -n "$TTYPID" ]; then
    expect_eq "irq/4-ttyS0 prio/policy (stat 40/41) after apply" "$(stat_sched $TTYPID)" 60/1
    expect_eq "irq/4-ttyS0 affinity after apply" "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$TTYPID/status)" 0-1
  else
    expect_grep "no irq/* thread: apply warns that tty-irq matches nothing" 'tty-irq.*matches no thread' "$OUT/apply.out" "$OUT/apply.err"
  fi
  expect_eq "sleep 1000 prio/policy (stat 40/41) after apply" "$(stat_sched $SLEEP)" 55/1
  expect_file "partition rt reads back isolated" $CG/rt/cpuset.cpus.partition isolated
  expect_file "partition rt cpus" $CG/rt/cpuset.cpus.effective 2-3
  fact init_affinity_after_apply "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/1/status) (before: $(sed -n 's/^init_affinity=//p' /tmp/before))"
  [ -n "$2" ] && eval "$2"   # the scenario's own read-backs

  # What apply changed, and the boot arguments boot.sh passes: a suite of those checks alone,
  # so a check that measures the emulator (hwlat gaps, interrupts on a busy TCG host) cannot
  # hide or fake a conformance result. The full suite runs after it, reported, not asserted.
  printf 'name: conformance\ndescription: what apply changed, and the boot arguments\nchecks: [conformance, cmdline, kernel]\n' > /tmp/conformance-suite.yaml
  rt_expect verify 0 verify $P --suite /tmp/conformance-suite.yaml --json
  [ $RT_RC = 0 ] || sed 's/^/  | /' "$OUT/verify.out" | grep -B3 -A6 '"status": "FAIL"' | head -60
  rtagent verify $P --suite commission > "$OUT/verify-full.out" 2>&1
  fact verify_commission_suite "exit $? ($(grep -cE '^ *FAIL' "$OUT/verify-full.out") FAIL lines)"
  grep -E '^ *(FAIL|WARN) ' "$OUT/verify-full.out" | cut -c1-160 | sed 's/^/  V| /'
  echo 0-3 > /proc/irq/$IRQ/smp_affinity_list
  expect_file "IRQ $IRQ changed behind rtagent's back" /proc/irq/$IRQ/smp_affinity_list 0-3
  rt_expect verify-drift 1 verify $P --suite /tmp/conformance-suite.yaml
  expect_grep "verify names the drifted IRQ $IRQ" "IRQ $IRQ[^0-9]" "$OUT/verify-drift.out"

  rt_expect revert 0 revert --json
  sed 's/^/  | /' "$OUT/revert.out" | grep -E '"(what|outcome|detail)"' | head -60
  snapshot /tmp/after
  # The affinities too: creating and removing the cgroup v2 partition makes the kernel re-place
  # every task of the top cgroup; apply journals those placements before the partition write
  # and revert restores them after undoing it (docs/tuning.md, "Placements the kernel changes").
  while IFS= read -r l; do
    k=${l%%=*}
    expect_eq "revert restores $k" "$(grep -F "$k=" /tmp/after | head -1)" "$l"
  done < /tmp/before
  expect_grep "revert lists the placements kept for the partition" 'kept: the kernel re-places it' "$OUT/revert.out"
  if [ -d $CG/rt ]; then fail "cgroup rt is gone after revert" "$CG/rt exists"; else pass "cgroup rt is gone after revert"; fi
  if [ -e $J ]; then fail "journal is gone after revert" "$J exists: $(head -c 300 $J)"; else pass "journal is gone after revert"; fi
  rt_expect revert-again 0 revert
  kill $SLEEP 2>/dev/null
}
