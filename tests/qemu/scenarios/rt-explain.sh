#!/bin/sh
# kernel: rt
# disk: 16M
# qemu: -drive file=@WORK@/disk.img,if=none,format=raw,readonly=on,id=d0 -device virtio-blk-pci,drive=d0,vectors=0
# `rtagent explain` and `accept`'s why on Debian's PREEMPT_RT kernel (issue 13, docs/explain.md)
# with two causes injected on isolated CPU 2 whose answer is known:
# (1) "noise-spin", a FIFO 98 thread (above timerlat's FIFO 95 and the sampler's 90) spinning
#     ~80 ms, then sleeping 20 ms, on CPU 2 (80 %, under RT throttling's 95 %). Under TCG the
#     emulated timer alone wakes 11-33 ms late from idle (tests/traces/qemu-rt-timerlat-idle.txt;
#     the more so the busier the host), so the spin and the threshold (50 ms) sit well above
#     that; on hardware the issue's 2 ms would do. The loop is timed first. chrt is
#     util-linux's (mkinitramfs.sh adds it: busybox-static has none).
# (2) the virtio-blk disk's interrupt (vectors=0: one legacy IO-APIC line, whose affinity can
#     be set, unlike the managed MSI queue lines) sent to CPU 2 and fired by reads from CPU 0.
#     The disk is read-only: nothing the guest does survives it, so boot.sh may boot a guest
#     that froze whole again (docs/qemu.md).
# The serial console is only the scenario's output: no IRQ of its own is used as noise (a
# serial flood with the trace dumped over the same line made the kernel disable IRQ 4 and
# hang the console), and only the last lines of the trace are printed.
. /rtagent/lib.sh
T=/sys/kernel/tracing
grep -qw timerlat $T/available_tracers || { fail "timerlat available" "not in available_tracers"; finish; }

# (2) the disk and its IRQ on CPU 2
load_modules virtio_pci virtio_blk
i=0; while [ ! -e /sys/block/vda ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i+1)); done
[ -e /sys/block/vda ] || { fail "virtio-blk disk vda appeared" "no /sys/block/vda"; finish; }
VIRQ=$(awk '/virtio/ { sub(":", "", $1); print $1; exit }' /proc/interrupts)
fact virtio_irq "$(grep "^ *$VIRQ:" /proc/interrupts | tr -s ' ')"
echo 2 > /proc/irq/$VIRQ/smp_affinity_list 2>/dev/null
expect_file "the disk's IRQ $VIRQ is sent to CPU 2" /proc/irq/$VIRQ/smp_affinity_list 2
taskset -c 0 sh -c 'while :; do echo 3 > /proc/sys/vm/drop_caches; dd if=/dev/vda of=/dev/null bs=64k 2>/dev/null; done' &
DISK=$!

# (1) the spinning thread. Timed with /proc/uptime (centiseconds; busybox's date has no
# nanoseconds) over at least 200 ms.
uptime_cs() { read -r u _ < /proc/uptime; echo "${u%.*}${u#*.}"; }
n=20000
while :; do
  t1=$(uptime_cs); i=0; while [ $i -lt $n ]; do i=$((i+1)); done; t2=$(uptime_cs)
  [ $((t2 - t1)) -ge 20 ] && break
  n=$((n * 4))
done
per=$(( (t2 - t1) * 10000000 / n )); [ $per -gt 0 ] || per=1
N=$(( 80000000 / per ))
fact spin_loop "$per ns per iteration, $N iterations for 80 ms"
chrt -f 98 taskset -c 2 sh -c "echo -n noise-spin > /proc/self/comm; while :; do i=0; while [ \$i -lt $N ]; do i=\$((i+1)); done; usleep 20000; done" &
SPIN=$!
sleep 1
if [ "$(cat /proc/$SPIN/comm 2>/dev/null)" = noise-spin ]; then pass "noise-spin runs on CPU 2 ($(awk '{print "policy " $41 ", rt_priority " $40}' /proc/$SPIN/stat))"
else fail "noise-spin runs on CPU 2" "no such thread (PID $SPIN: $(cat /proc/$SPIN/comm 2>&1))"; fi

first_cause() { awk '/^Why the wake-up/ { getline; getline; for (i = 3; i <= NF; i++) printf "%s ", $i; exit }' "$1"; }
for f in current_tracer tracing_on trace_clock osnoise/stop_tracing_total_us osnoise/cpus tracing_cpumask; do
  cat $T/$f > /tmp/before.$(echo $f | tr / _)
done
put_back() {
  for f in current_tracer tracing_on trace_clock osnoise/stop_tracing_total_us osnoise/cpus tracing_cpumask; do
    expect_file "$1 put $f back" $T/$f "$(cat /tmp/before.$(echo $f | tr / _))"
  done
}

# A live recording: the kernel stops at the first thread latency above 50 ms.
rt_expect explain-live 1 explain --cpus 2 --threshold 50000 --duration 20s --trace /tmp/live.txt
sed 's/^/  | /' "$OUT/explain-live.out" "$OUT/explain-live.err" | head -24
case "$(first_cause "$OUT/explain-live.out")" in
  *noise-spin*) pass "explain names noise-spin first" ;;
  *) fail "explain names noise-spin first" "$(first_cause "$OUT/explain-live.out")" ;;
esac
put_back explain
n=$(grep -c "irq_handler_entry: irq=$VIRQ " /tmp/live.txt)
fact virtio_irq_events_on_cpu2 "$n"
if [ "$n" -gt 0 ]; then pass "the trace holds the disk's IRQ $VIRQ on CPU 2 ($n handler entries)"
else fail "the trace holds the disk's IRQ $VIRQ on CPU 2" "no irq_handler_entry irq=$VIRQ"; fi
if grep -q "IRQ $VIRQ (virtio" "$OUT/explain-live.out"; then info "the late wake-up's table names IRQ $VIRQ"; fi

# The same trace read back gives the same table.
rt_expect explain-from 1 explain --from /tmp/live.txt --cpus 2 --threshold 50000
sed -n '/^Why the wake-up/,$p' "$OUT/explain-live.out" > /tmp/live.table
sed -n '/^Why the wake-up/,$p' "$OUT/explain-from.out" > /tmp/from.table
if [ -s /tmp/live.table ] && cmp -s /tmp/live.table /tmp/from.table; then pass "explain --from gives the live run's table"
else fail "explain --from gives the live run's table" "$(diff /tmp/live.table /tmp/from.table | head -4 | tr '\n' '|')"; fi

# accept's verdict carries the why of its first wake-up past max_us, and the trace beside it.
cat > /tmp/why.yaml <<'YAML'
name: qemu-explain
cores:
  housekeeping: 0-1
  isolated: 2-3
acceptance:
  duration: 10s
  cpus: 2
  histogram_limit_us: 100000
  max_us: 50000
  explain: on-breach
YAML
rt_verdict accept accept /tmp/why.yaml --preflight none --json "$OUT/v.json" --md "$OUT/v.md"
sed -n '/^Why/,$p' "$OUT/accept.out" | sed 's/^/  | /' | head -16
json_flat "$OUT/v.json" > /tmp/v.flat
jexpect "the verdict's why is explained" /tmp/v.flat why.status explained
case "$(jget /tmp/v.flat why.attribution.causes.0.name)" in
  noise-spin*) pass "accept's why names noise-spin first" ;;
  *) fail "accept's why names noise-spin first" "$(jget /tmp/v.flat why.attribution.causes.0.name)" ;;
esac
jexpect "the raw trace is saved beside the verdict" /tmp/v.flat why.trace.path "$OUT/v.trace.txt"
expect_grep "the saved trace is the timerlat tracer's" "^# tracer: timerlat" "$OUT/v.trace.txt"
expect_grep "the Markdown verdict has the why" "^## Why the worst wake-up was late" "$OUT/v.md"
put_back accept

kill $SPIN $DISK 2>/dev/null
# The end of the live trace, for tests/traces: a few lines over the console, nothing more.
echo "=== TRACE-BEGIN"
tail -n 60 /tmp/live.txt
echo "=== TRACE-END"
finish
