#!/bin/sh
# kernel: rt
# rootfs: debian
# base: irqbalance
# profile: none
# isolation: none
# irqbalance banned from the isolated CPUs (issue 20; docs/tuning.md, "irqbalance: banned,
# stopped or left"): Debian's irqbalance package (debian-base.sh --variant irqbalance) running as
# its systemd service on the RT kernel with 4 CPUs. The guest boots WITHOUT isolcpus/nohz_full
# (isolation: none): irqbalance bans the CPUs the kernel lists as isolated or nohz_full by itself,
# so here, as on a board whose isolation is a profile not yet booted or a cgroup partition, only
# its configuration keeps it off 2-3. rtagent.service is not enabled (profile: none): the
# scenario sees irqbalance alone first.
#  1. before: irqbalance active and unbanned; the IRQs it placed on 2-3 (a FACT; the kernel's
#     default 0-3 is not counted); the irqbalance check FAILs.
#  2. apply (irqs.irqbalance: ban, the default): IRQBALANCE_BANNED_CPULIST=2-3 in
#     /etc/default/irqbalance, irqbalance restarted (a new pid whose environment has it), the
#     check PASSes, and over 30 s (three of irqbalance's 10 s rounds, with disk interrupts
#     meanwhile) no IRQ moves onto 2 or 3.
#  3. revert: /etc/default/irqbalance byte-identical, irqbalance restarted again, unbanned.
#  4. hold with irqs.irqbalance: leave: irqbalance restarted behind its back re-places IRQs;
#     hold puts them back and its log names irqbalance as the mover.
. /rtagent/lib.sh

CFG=/etc/default/irqbalance
P=/tmp/irqbalance.yaml
SUITE=/tmp/irqbalance-suite.yaml
ISO=2-3

# profile MODE: housekeeping 0-1, isolated 2-3, IRQs to housekeeping, irqbalance MODE; the boot
# arguments are left out (this boot has none, and the scenario is about the runtime).
profile() {
  cat > $P <<EOF
version: 1
name: qemu-irqbalance
description: irqbalance on the QEMU harness's 4 CPUs, housekeeping 0-1, isolated 2-3
cores:
  housekeeping: 0-1
  isolated: $ISO
  boot:
    isolcpus: false
    nohz_full: false
    rcu_nocbs: false
    rcu_nocb_poll: false
    irqaffinity: false
    kthread_cpus: false
    skew_tick: false
  bootloader: print
  runtime:
    workqueue_cpumask: keep
    default_smp_affinity: housekeeping
irqs:
  default: housekeeping
  irqbalance: $1
kernel:
  preempt_rt: any
service:
  on_stop: revert
  watch_interval: 200ms
  cpus: housekeeping
EOF
}
cat > $SUITE <<'EOF'
name: irqbalance
description: the irqbalance check alone
checks: [irqbalance]
EOF

ib_pid() { systemctl show -p MainPID --value irqbalance.service; }
ib_env() { tr '\0' '\n' < /proc/$1/environ 2>/dev/null | grep '^IRQBALANCE_BANNED' | tr '\n' ' ' | sed 's/ *$//'; }
# every IRQ as "N=list" (one line each), the ones the kernel lets move and irqbalance too
irq_map() {
  for d in /proc/irq/[0-9]*; do
    [ -r $d/smp_affinity_list ] && echo "${d##*/}=$(cat $d/smp_affinity_list)"
  done
}
# on_iso LIST: the list names only CPUs of 2-3 (an IRQ placed there, not the default 0-3)
on_iso() { case $1 in 2|3|2-3|2,3) return 0 ;; *) return 1 ;; esac; }
# touches LIST: the list includes CPU 2 or 3
touches() { echo ",$1," | sed 's/-/,-,/g' | awk -F, '{ for (i = 1; i <= NF; i++) { if ($i == "-") { for (c = $(i-1); c <= $(i+1); c++) if (c == 2 || c == 3) f = 1 } else if ($i == 2 || $i == 3) f = 1 } } END { exit !f }'; }
check_status() { # check_status STEP: the irqbalance check's status from verify --json
  rtagent verify $P --suite $SUITE --json > "$OUT/$1.out" 2> "$OUT/$1.err"
  echo "STEP $1: rtagent verify $P --suite $SUITE --json -> exit $?" >&2
  json_flat "$OUT/$1.out" > "$OUT/$1.flat"
  result_field "$OUT/$1.flat" irqbalance status
}
disk_irqs() { dd if=/dev/vda of=/dev/null bs=64k count=200 skip=$(( $(date +%s) % 20 * 200 )) iflag=direct 2>/dev/null; }

fact irqbalance_version "$(dpkg-query -W -f '${Version}' irqbalance 2>/dev/null)"
fact irqbalance_unit_file "$(systemctl show -p FragmentPath --value irqbalance.service)"
fact cmdline "$(cat /proc/cmdline)"
fact isolated_booted "$(cat /sys/devices/system/cpu/isolated)"
if [ "$(systemctl is-active irqbalance.service)" != active ]; then
  info "irqbalance.service not active at boot ($(systemctl is-enabled irqbalance.service 2>&1)); starting it"
  systemctl start irqbalance.service
fi
expect_eq "irqbalance.service runs (Debian's unit)" "$(systemctl is-active irqbalance.service)" active
pid0=$(ib_pid)
expect_eq "irqbalance runs without a banned list" "$(ib_env "$pid0")" ""
cp -p $CFG /tmp/irqbalance.before 2>/dev/null || info "no $CFG before apply"
sed 's/^/  C| /' $CFG 2>/dev/null | grep -v '^  C| #' | grep -v '^  C| *$'

# 1. irqbalance alone: give it two of its rounds with interrupts to count.
disk_irqs; sleep 12; disk_irqs; sleep 10
irq_map > /tmp/irqs.before
placed=
while IFS='=' read -r n l; do on_iso "$l" && placed="$placed $n=$l"; done < /tmp/irqs.before
fact irqs_before "$(tr '\n' ' ' < /tmp/irqs.before)"
if [ -n "$placed" ]; then pass "irqbalance placed IRQs on the would-be isolated CPUs:$placed"
else info "irqbalance placed no IRQ on 2-3 alone in this run (the check below still FAILs)"; fi
profile ban
expect_eq "the irqbalance check FAILs while irqbalance runs unbanned" "$(check_status check-before)" FAIL
grep -i irqbalance "$OUT/check-before.flat" | grep -i 'summary\|detail' | head -2 | sed 's/^/  V| /'

# 2. apply bans 2-3 and restarts irqbalance.
rt_expect plan 0 plan $P
expect_grep "plan names irqbalance's banned CPUs" "irqbalance banned CPUs" "$OUT/plan.out"
rt_expect apply 0 apply $P --json
sed 's/^/  A| /' "$OUT/apply.err" | tail -5
expect_grep "apply records the restart command" "try-restart" "$OUT/apply.out"
expect_eq "$CFG bans the isolated CPUs" "$(sed -n 's/^IRQBALANCE_BANNED_CPULIST=//p' $CFG | tr -d '"')" $ISO
i=0
while [ "$(systemctl is-active irqbalance.service)" != active ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
pid1=$(ib_pid)
expect_eq "irqbalance.service active after apply" "$(systemctl is-active irqbalance.service)" active
if [ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ]; then pass "irqbalance was restarted (pid $pid0 -> $pid1)"
else fail "irqbalance was restarted" "MainPID $pid0 -> $pid1"; fi
expect_eq "the new irqbalance has the ban in its environment" "$(ib_env "$pid1")" "IRQBALANCE_BANNED_CPULIST=$ISO"
expect_eq "the irqbalance check PASSes after apply" "$(check_status check-after)" PASS

# Over 30 s, three of irqbalance's rounds, with disk interrupts to balance: no IRQ moves onto
# 2 or 3 (one the kernel keeps there, a managed queue, is no move).
irq_map > /tmp/irqs.applied
moved=
t=0
while [ $t -lt 15 ]; do
  disk_irqs; sleep 2; t=$((t + 1))
  irq_map > /tmp/irqs.now
  while IFS='=' read -r n l; do
    was=$(sed -n "s/^$n=//p" /tmp/irqs.applied)
    [ "$l" != "$was" ] && touches "$l" && moved="$moved $n:$was->$l"
  done < /tmp/irqs.now
done
fact irqs_after_window "$(tr '\n' ' ' < /tmp/irqs.now)"
fact irqbalance_changes_in_window "$(diff /tmp/irqs.applied /tmp/irqs.now | grep '^[-+][0-9]' | tr '\n' ' ')"
if [ -z "$moved" ]; then pass "in 30 s banned irqbalance moved no IRQ onto 2-3"
else fail "banned irqbalance moves no IRQ onto 2-3" "moved:$moved"; fi
expect_eq "irqbalance still runs with the ban" "$(ib_pid)" "$pid1"

# 3. revert puts the file back byte for byte and restarts irqbalance unbanned.
rt_expect revert 0 revert
grep -i irqbalance "$OUT/revert.out" | head -3 | sed 's/^/  R| /'
if [ -e /tmp/irqbalance.before ]; then
  if cmp -s /tmp/irqbalance.before $CFG; then pass "revert: $CFG byte-identical to before"
  else fail "revert: $CFG byte-identical" "$(diff /tmp/irqbalance.before $CFG | head -5 | tr '\n' '|')"; fi
else
  if [ -e $CFG ]; then fail "revert removes the $CFG apply made" "still there"; else pass "revert removed the $CFG apply made"; fi
fi
i=0
while [ "$(systemctl is-active irqbalance.service)" != active ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
pid2=$(ib_pid)
if [ "$pid2" != "$pid1" ] && [ "$pid2" != 0 ]; then pass "revert restarted irqbalance (pid $pid1 -> $pid2)"
else fail "revert restarted irqbalance" "MainPID $pid1 -> $pid2"; fi
expect_eq "the restarted irqbalance is unbanned again" "$(ib_env "$pid2")" ""
expect_eq "the irqbalance check FAILs again" "$(check_status check-reverted)" FAIL

# 4. hold with irqs.irqbalance: leave: each restart of irqbalance re-places every IRQ; what it
# puts on 2-3 hold moves back, naming irqbalance.
profile leave
rtagent hold $P > "$OUT/hold.out" 2> "$OUT/hold.err" &
hpid=$!
i=0
while [ $i -lt 300 ] && ! grep -q '"state": "holding"' /run/rtagent/state.json 2>/dev/null; do
  kill -0 $hpid 2>/dev/null || break
  sleep 0.2; i=$((i + 1))
done
if grep -q '"state": "holding"' /run/rtagent/state.json 2>/dev/null; then pass "hold (irqbalance: leave) reached holding"
else fail "hold reached holding" "$(head -5 "$OUT/hold.err" | tr '\n' '|')"; fi
tries=0
while [ $tries -lt 3 ] && ! grep -q 'moved by irqbalance' "$OUT/hold.err"; do
  systemctl restart irqbalance.service
  disk_irqs
  i=0
  while [ $i -lt 60 ] && ! grep -q 'moved by irqbalance' "$OUT/hold.err"; do sleep 0.25; i=$((i + 1)); done
  tries=$((tries + 1))
done
fact irqbalance_restarts_for_drift "$tries"
grep 'drift:' "$OUT/hold.err" | head -4 | sed 's/^/  H| /'
if grep -q 'moved by irqbalance' "$OUT/hold.err"; then
  expect_grep "hold logs the drift as irqbalance's" "drift: IRQ .*moved by irqbalance \(process [0-9]+" "$OUT/hold.err"
elif grep -q 'drift: IRQ' "$OUT/hold.err"; then
  fail "hold names irqbalance as the mover" "drift lines without 'moved by irqbalance'"
else
  skip "hold logs an irqbalance drift" "irqbalance moved no IRQ in $tries restarts"
fi
kill -TERM $hpid
wait $hpid
expect_eq "hold exits 0 on SIGTERM" "$?" 0
if [ -e /tmp/irqbalance.before ]; then
  if cmp -s /tmp/irqbalance.before $CFG; then pass "hold (leave) never touched $CFG"
  else fail "hold (leave) never touched $CFG" "it changed"; fi
fi
finish
