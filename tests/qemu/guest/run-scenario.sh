#!/bin/sh
# Runs one QEMU scenario inside a guest that booted systemd (tests/qemu/mkrootfs.sh): prints
# the scenario between the begin/end markers that boot.sh looks for, on the serial console,
# then powers the guest off.
NAME=$1
exec >/dev/ttyS0 2>&1
echo "=== RTAGENT-SCENARIO-BEGIN $NAME ==="
echo "FACT scenario_start_s: $(cut -d' ' -f1 /proc/uptime)"
# 25 s before the host's timeout, where the scenario is stuck (tests/qemu/hang-report.sh)
HANG_REPORTER=$(/rtagent/hang-report.sh --arm)
cd /tmp
sh "/rtagent/scenarios/$NAME.sh"
rc=$?
/rtagent/hang-report.sh --disarm "$HANG_REPORTER"
echo "FACT scenario_done_s: $(cut -d' ' -f1 /proc/uptime)"
echo "=== RTAGENT-SCENARIO-END $NAME rc=$rc ==="
sync
systemctl poweroff --force --force
