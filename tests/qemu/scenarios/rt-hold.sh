#!/bin/sh
# kernel: rt
# `rtagent hold` on the PREEMPT_RT kernel (issue 6): starts with a profile written here
# (housekeeping 0-1, isolated 2-3, IRQs to housekeeping, the PM QoS note 0 us, on_stop revert,
# a 200 ms watch), then reads back from the kernel: the note held on /dev/cpu_dma_latency,
# IRQ 8 on 0-1, the daemon allowed on 0-1 only and SCHED_OTHER; IRQ 8 is widened behind its
# back and must come back to 0-1 with a "drift:" log line; `status` says running; SIGTERM
# exits 0 and puts IRQ 8 and the note back; `status` says not running.
. /rtagent/lib.sh

P=/tmp/hold.yaml
cat > "$P" <<'YAML'
version: 1
name: qemu-hold
cores:
  housekeeping: 0-1
  isolated: 2-3
  runtime:
    workqueue_cpumask: keep
    default_smp_affinity: keep
irqs:
  default: keep
  rules:
    rtc:
      irq: [8]
      cpus: 0-1
power:
  cpu_dma_latency_us: 0
service:
  on_stop: revert
  watch_interval: 200ms
  cpus: housekeeping
YAML

note() { od -An -td4 -N4 /dev/cpu_dma_latency 2>/dev/null | tr -d ' \n'; }
echo 0-3 > /proc/irq/8/smp_affinity_list 2>/dev/null
irq_before=$(cat /proc/irq/8/smp_affinity_list)
note_before=$(note)
fact irq8_before "$irq_before"
fact pm_qos_before "$note_before"

rtagent hold "$P" > "$OUT/hold.out" 2> "$OUT/hold.err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q '"state": "holding"' /run/rtagent/state.json 2>/dev/null; do
  kill -0 $pid 2>/dev/null || break
  sleep 0.2; i=$((i + 1))
done
if grep -q '"state": "holding"' /run/rtagent/state.json 2>/dev/null; then
  pass "hold reached holding (pid $pid)"
else
  fail "hold reached holding" "$(head -5 "$OUT/hold.err" | tr '\n' '|')"
  kill -TERM $pid 2>/dev/null
  finish
fi

expect_eq "PM QoS note held while hold runs" "$(note)" 0
expect_file "IRQ 8 moved to housekeeping" /proc/irq/8/smp_affinity_list 0-1
expect_eq "hold pinned to housekeeping" "$(awk '$1 == "Cpus_allowed_list:" {print $2}' /proc/$pid/status)" 0-1
expect_eq "hold runs SCHED_OTHER (rt_priority/policy)" "$(stat_sched $pid)" 0/0
rt status-running status
expect_grep "status says running" "running \\(pid $pid\\)" "$OUT/status-running.out"

# irqbalance, or a vendor script, widens it again: the watch puts it back.
echo 0-3 > /proc/irq/8/smp_affinity_list
i=0
while [ $i -lt 300 ] && [ "$(cat /proc/irq/8/smp_affinity_list)" != 0-1 ]; do sleep 0.2; i=$((i + 1)); done
expect_file "IRQ 8 re-asserted after drift" /proc/irq/8/smp_affinity_list 0-1
i=0
while [ $i -lt 100 ] && ! grep -q "drift: IRQ 8" "$OUT/hold.err"; do sleep 0.2; i=$((i + 1)); done
expect_grep "one drift log line names IRQ 8" "drift: IRQ 8 .*0-3 -> 0-1" "$OUT/hold.err"

kill -TERM $pid
wait $pid
expect_eq "hold exits 0 on SIGTERM" "$?" 0
expect_file "on_stop revert: IRQ 8 back" /proc/irq/8/smp_affinity_list "$irq_before"
expect_eq "PM QoS note given back" "$(note)" "$note_before"
rtagent status > "$OUT/status-stopped.out" 2>&1
expect_eq "status exits 3 when stopped" "$?" 3
expect_grep "status says not running" "not running \\(stopped at .*SIGTERM: state reverted" "$OUT/status-stopped.out"
info "$(cat "$OUT/hold.err" | tail -5 | tr '\n' '|')"
finish
