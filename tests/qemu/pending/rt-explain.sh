#!/bin/sh
# kernel: rt
# The timerlat tracer with osnoise, sched and irq events on isolated CPU 2 only, while a
# named FIFO 98 thread ("noise-spin") spins on CPU 2 every 100 ms and IRQ 4 (ttyS0) is sent to
# CPU 2 and made to fire by console output from CPU 0. Tracing stops itself at a thread latency
# above 15 ms (stop_tracing_total_us), and the end of the trace is printed between
# TRACE-BEGIN/TRACE-END (tests/traces/ holds one such trace). Then `rtagent explain --from` on
# that trace and a live `rtagent explain` must name noise-spin first and put tracefs back. Under TCG timerlat once hung the
# guest: here it runs on one CPU only, with a 1 ms period and a 512 KB buffer, and a watchdog
# switches it off after 20 s whatever happens.
. /rtagent/lib.sh
T=/sys/kernel/tracing
grep -qw timerlat $T/available_tracers || { fail "timerlat available" "not in available_tracers"; finish; }

# (1) a FIFO thread above timerlat's FIFO 95, named, spinning ~25 ms every 100 ms on CPU 2.
# Under TCG the emulated timer alone wakes ~11 ms late from idle (tests/traces/
# qemu-rt-timerlat-idle.txt), so the spin and the threshold (15 ms) sit above that; on
# hardware the issue's 2 ms would do. The loop is timed first to find its count.
# Timed with /proc/uptime (centiseconds; busybox's date has no nanoseconds) over at least 200 ms.
uptime_cs() { read -r u _ < /proc/uptime; echo "${u%.*}${u#*.}"; }
n=20000
while :; do
  t1=$(uptime_cs); i=0; while [ $i -lt $n ]; do i=$((i+1)); done; t2=$(uptime_cs)
  [ $((t2 - t1)) -ge 20 ] && break
  n=$((n * 4))
done
per=$(( (t2 - t1) * 10000000 / n )); [ $per -gt 0 ] || per=1
N=$(( 25000000 / per ))
fact spin_loop "$per ns per iteration, $N iterations for 25 ms"
chrt -f 98 taskset -c 2 sh -c "echo -n noise-spin > /proc/self/comm; while :; do i=0; while [ \$i -lt $N ]; do i=\$((i+1)); done; usleep 100000; done" &
SPIN=$!
# (2) IRQ 4 (ttyS0) on CPU 2, fired by output from housekeeping CPU 0
echo 2 > /proc/irq/4/smp_affinity_list 2>/dev/null
fact irq4_affinity "$(cat /proc/irq/4/smp_affinity_list)"
taskset -c 0 sh -c 'while :; do echo "serial noise ................................................"; usleep 20000; done' > /dev/ttyS0 &
SER=$!

echo 0 > $T/tracing_on
echo > $T/trace
echo 4 > $T/tracing_cpumask
echo 512 > $T/buffer_size_kb
echo 2 > $T/osnoise/cpus
echo 1000 > $T/osnoise/timerlat_period_us
echo 15000 > $T/osnoise/stop_tracing_total_us
for e in osnoise/enable sched/sched_switch/enable sched/sched_wakeup/enable irq/irq_handler_entry/enable \
         irq/irq_handler_exit/enable irq/softirq_entry/enable irq/softirq_exit/enable; do
  echo 1 > $T/events/$e
done
( sleep 20; echo 0 > $T/tracing_on; echo nop > $T/current_tracer ) &
DOG=$!
t0=$(date +%s)
echo timerlat > $T/current_tracer
echo 1 > $T/tracing_on
n=0
while [ "$(cat $T/tracing_on)" = 1 ] && [ $n -lt 150 ]; do usleep 100000; n=$((n+1)); done
fact timerlat_stopped_after_ds "$n"
echo 0 > $T/tracing_on
cat $T/trace > /tmp/rec.txt
kill $SER 2>/dev/null; wait $SER 2>/dev/null
echo nop > $T/current_tracer
kill $DOG 2>/dev/null
pass "timerlat switched on and back off on CPU 2 ($(( $(date +%s) - t0 )) s)"
echo "=== TRACE-BEGIN"
tail -n 3000 /tmp/rec.txt
echo "=== TRACE-END"
echo 0 > $T/events/enable
echo 0 > $T/osnoise/stop_tracing_total_us
echo 1 > $T/tracing_on

# rtagent explain on the recorded trace, then a recording of its own with the same noise.
first_cause() { awk 'NR == 3 { for (i = 3; i <= NF; i++) printf "%s ", $i; exit }' "$1"; }
rt_expect explain-from 1 explain --from /tmp/rec.txt --cpus 2 --threshold 15000
sed 's/^/  | /' "$OUT/explain-from.out" | head -20
case "$(first_cause "$OUT/explain-from.out")" in
  *noise-spin*) pass "explain --from names noise-spin first" ;;
  *) fail "explain --from names noise-spin first" "$(first_cause "$OUT/explain-from.out")" ;;
esac
for f in current_tracer tracing_on osnoise/stop_tracing_total_us osnoise/cpus tracing_cpumask; do cat $T/$f > /tmp/before.$(echo $f | tr / _); done
taskset -c 0 sh -c 'while :; do echo "serial noise ................................................"; usleep 20000; done' > /dev/ttyS0 &
SER=$!
rt_expect explain-live 1 explain --cpus 2 --threshold 15000 --duration 15s --trace /tmp/live.txt
kill $SER 2>/dev/null; wait $SER 2>/dev/null
sed 's/^/  | /' "$OUT/explain-live.out" "$OUT/explain-live.err" | head -24
case "$(first_cause "$OUT/explain-live.out")" in
  *noise-spin*) pass "explain names noise-spin first" ;;
  *) fail "explain names noise-spin first" "$(first_cause "$OUT/explain-live.out")" ;;
esac
for f in current_tracer tracing_on osnoise/stop_tracing_total_us osnoise/cpus tracing_cpumask; do
  expect_file "explain put $f back" $T/$f "$(cat /tmp/before.$(echo $f | tr / _))"
done
kill $SPIN $SER 2>/dev/null
finish
