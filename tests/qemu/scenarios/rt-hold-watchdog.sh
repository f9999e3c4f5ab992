#!/bin/sh
# kernel: rt
# rootfs: debian
# profile: tests/qemu/profiles/hold.yaml
# A watchdog miss under a real systemd (issue 17; docs/service.md, "Under chaos"): rtagent.service
# as installed, with a runtime drop-in making WatchdogSec=6s, TimeoutAbortSec=5s and
# RestartSec=1s so the test waits seconds, not the unit's minute. The daemon is frozen with
# SIGSTOP: it stops sending WATCHDOG=1, systemd ends it (SIGABRT, then SIGKILL when the frozen
# process cannot take it) and restarts it (Restart=on-failure): a new pid, active/running again
# (so READY=1 came), the PM QoS note held again, the journal naming the watchdog timeout.
. /rtagent/lib.sh

mkdir -p /run/systemd/system/rtagent.service.d
cat > /run/systemd/system/rtagent.service.d/90-test-watchdog.conf <<'EOF'
[Service]
WatchdogSec=6s
TimeoutAbortSec=5s
RestartSec=1s
EOF
systemctl daemon-reload
systemctl restart rtagent.service
expect_eq "rtagent.service active again with the short watchdog" \
  "$(systemctl show -p ActiveState --value rtagent.service)/$(systemctl show -p SubState --value rtagent.service)" "active/running"
fact watchdog "$(systemctl show -p WatchdogUSec --value rtagent.service)"
restarts=$(systemctl show -p NRestarts --value rtagent.service)
old=$(systemctl show -p MainPID --value rtagent.service)
qos() { od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' '; }
expect_eq "the note is held before the freeze" "$(qos)" 20

t0=$(cut -d' ' -f1 /proc/uptime)
kill -STOP "$old"
i=0
while [ $i -lt 300 ]; do
  new=$(systemctl show -p MainPID --value rtagent.service)
  state=$(systemctl show -p ActiveState --value rtagent.service)
  [ "$new" != "$old" ] && [ "$new" != 0 ] && [ "$state" = active ] && break
  sleep 0.2; i=$((i + 1))
done
fact restarted_after_s "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
if [ "$new" != "$old" ] && [ "$state" = active ]; then pass "a new daemon (pid $new) replaced the frozen one ($old)"
else fail "the frozen daemon is replaced" "MainPID $new, ActiveState $state"; fi
expect_eq "systemd counted one restart" "$(systemctl show -p NRestarts --value rtagent.service)" "$((restarts + 1))"
if [ -d /proc/$old ]; then fail "the frozen daemon is gone" "pid $old still exists"; else pass "the frozen daemon is gone"; fi
expect_eq "the new daemon holds the note" "$(qos)" 20
journalctl -u rtagent.service --no-pager -o cat 2>/dev/null | tail -12 | sed 's/^/  J| /'
if journalctl -u rtagent.service --no-pager -o cat | grep -qi "watchdog timeout"; then pass "the journal names the watchdog timeout"
else fail "the journal names the watchdog timeout" "no 'Watchdog timeout' line"; fi
rtagent status > "$OUT/status.out" 2>&1
expect_grep "status says the new daemon runs" "running \(pid $new\)" "$OUT/status.out"
rm -rf /run/systemd/system/rtagent.service.d
systemctl daemon-reload
systemctl stop rtagent.service
finish
