#!/bin/sh
# kernel: rt
# rootfs: debian
# profile: tests/qemu/profiles/hold.yaml
# A real systemd boot (issue 7, scenario 4): a minimal Debian made by debootstrap with rtagent
# installed by `cmake --install` and rtagent.service enabled, holding
# tests/qemu/profiles/hold.yaml. Runs from a unit ordered after rtagent.service
# (tests/qemu/guest/), in Debian's sh, not busybox.
. /rtagent/lib.sh

fact systemd "$(systemctl --version | head -1)"
fact unit_file "$(systemctl show -p FragmentPath --value rtagent.service)"

# 1. The unit is active: for Type=notify that means READY=1 was sent.
state=$(systemctl show -p ActiveState --value rtagent.service)
sub=$(systemctl show -p SubState --value rtagent.service)
expect_eq "rtagent.service is active (READY=1 reached)" "$state/$sub" "active/running"
expect_eq "rtagent.service is Type=notify" "$(systemctl show -p Type --value rtagent.service)" "notify"
status_text=$(systemctl show -p StatusText --value rtagent.service)
fact status_text "$status_text"
if [ -n "$status_text" ]; then pass "STATUS= one-line summary is set"; else fail "STATUS= summary" "StatusText is empty"; fi
wd=$(systemctl show -p WatchdogUSec --value rtagent.service)
fact watchdog "$wd"
journalctl -u rtagent.service --no-pager -o cat 2>/dev/null | tail -20 | sed 's/^/  J| /'

# 2. The PM QoS note is held: the aggregate /dev/cpu_dma_latency reads 20 (µs) while it runs.
qos=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
expect_eq "PM QoS note held (/dev/cpu_dma_latency)" "$qos" 20
pid=$(systemctl show -p MainPID --value rtagent.service)
if ls -l /proc/$pid/fd 2>/dev/null | grep -q cpu_dma_latency; then pass "the daemon holds /dev/cpu_dma_latency open"
else fail "the daemon holds /dev/cpu_dma_latency open" "no such fd in /proc/$pid/fd"; fi
fact daemon_cpus "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)"
fact daemon_rss "$(sed -n 's/^VmRSS:[[:space:]]*//p' /proc/$pid/status)"
expect_eq "the daemon runs on the housekeeping CPUs" "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status)" "0-1"

# The daemon at rest under systemd with the watchdog on (issue 19): 32 s, a little more than one
# watchdog ping (every half of WatchdogSec), sampled every half second. Its memory (VmRSS, and
# VmHWM: the peak since it started, the start-up included), the CPUs its threads last ran on (field
# 39 of each task's stat: never an isolated one) and its wake-ups (voluntary context switches).
cs0=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
wd0=$(systemctl show -p WatchdogTimestampMonotonic --value rtagent.service)
rss_min= rss_max=0 on_isolated= n=0
while [ $n -lt 64 ]; do
  r=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
  [ -z "$rss_min" ] || [ "$r" -lt "$rss_min" ] && rss_min=$r
  [ "$r" -gt "$rss_max" ] && rss_max=$r
  for t in /proc/$pid/task/*/stat; do
    c=$(sed 's/.*) //' "$t" | cut -d' ' -f37)
    case $c in 2|3) on_isolated="$on_isolated $(basename "$(dirname "$t")"):$c" ;; esac
  done
  sleep 0.5; n=$((n + 1))
done
cs1=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
fact daemon_rss_at_rest_kib "$rss_min-$rss_max over 32 s"
fact daemon_hwm_kib "$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)"
fact daemon_wakeups_32s "$((cs1 - cs0))"
expect_eq "the daemon's threads ran only on housekeeping CPUs in 32 s at rest" "${on_isolated:-none}" none
wd1=$(systemctl show -p WatchdogTimestampMonotonic --value rtagent.service)
fact watchdog_last_ping_us "$wd0 -> $wd1"
# A ping is due every half of WatchdogSec (30 s): one must have landed in the 32 s.
if [ -n "$wd1" ] && [ "$wd1" != 0 ] && [ "$wd1" != "$wd0" ]; then pass "systemd saw a watchdog ping in the 32 s (WatchdogTimestamp moved)"
else fail "systemd saw a watchdog ping in the 32 s" "WatchdogTimestampMonotonic $wd0 -> $wd1"; fi
expect_eq "still active after the window" "$(systemctl show -p ActiveState --value rtagent.service)" active
if journalctl -u rtagent.service --no-pager -o cat | grep -qi "watchdog timeout"; then fail "no watchdog timeout" "the journal has one"
else pass "no watchdog timeout in the journal"; fi

# 3. rtagent status reports it. Its exit code says whether the daemon's last verify (the boot
# suite) failed: 0 no, 1 yes (docs/service.md); the same suite run by hand must agree.
rtagent verify /etc/rtagent/profile.yaml --suite boot > "$OUT/verify-boot.out" 2>&1
vrc=$?
grep -E '^ *(FAIL|WARN)' "$OUT/verify-boot.out" | sed 's/^/  V| /'
fact verify_boot_rc "$vrc"
rtagent status > "$OUT/status.out" 2> "$OUT/status.err"
src=$?
sed 's/^/  S| /' "$OUT/status.out"
case $vrc in 0|1) expect_eq "status exit code agrees with verify --suite boot" "$src" "$vrc" ;;
  *) fail "verify --suite boot" "exit $vrc: $(head -3 "$OUT/verify-boot.out" | tr '\n' '|')" ;; esac
expect_grep "status says running with the daemon's pid" "running \(pid $pid\)" "$OUT/status.out"
expect_grep "status shows the PM QoS note" '20 ?(µs|us).*held' "$OUT/status.out"
rtagent status --json > "$OUT/status-json.out" 2>&1
expect_grep "status --json names the daemon's pid" "\"pid\": *$pid" "$OUT/status-json.out"

# 4. Drift: an IRQ moved behind its back is put back within a few watch intervals (1 s).
IRQ=
for n in 8 9 1 12 4; do
  [ -e /proc/irq/$n/smp_affinity_list ] || continue
  if echo 2-3 > /proc/irq/$n/smp_affinity_list 2>/dev/null; then IRQ=$n; break; fi
done
if [ -z "$IRQ" ]; then
  skip "drift re-asserted" "no movable IRQ among 8 9 1 12 4"
else
  i=0
  while [ "$(cat /proc/irq/$IRQ/smp_affinity_list)" != 0-1 ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i+1)); done
  expect_eq "IRQ $IRQ moved to 2-3 behind its back is put back" "$(cat /proc/irq/$IRQ/smp_affinity_list)" "0-1"
  sleep 1
  if journalctl -u rtagent.service --no-pager -o cat | grep -q "irq.*$IRQ\|$IRQ.*2-3"; then pass "the drift is logged to the journal"
  else fail "the drift is logged to the journal" "no line naming IRQ $IRQ"; fi
fi

# 5. Stopping keeps the state (on_stop: keep) and releases the note.
systemctl stop rtagent.service
expect_eq "stopped cleanly" "$(systemctl show -p Result --value rtagent.service)" "success"
qos=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
expect_eq "the PM QoS note is released when the daemon stops" "$qos" 2000000000
expect_eq "on_stop keep: the workqueue mask stays" "$(cat /sys/devices/virtual/workqueue/cpumask)" 3
finish
