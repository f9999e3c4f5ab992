#!/bin/sh
# Runs a scenario that reboots (a boot-loader disk, tests/qemu/mkbootdisk.sh) one boot at a
# time. Started at every boot by rtagent-harness from the harness disk mounted on /rtagent.
# The state lives on the guest's own disk (/var/lib/rtagent-qemu: boot count, phase, results),
# so each boot goes on where the last one stopped:
#   boot 1: "=== RTAGENT-SCENARIO-BEGIN NAME ===", rtagent installed from /rtagent/install
#           (cp without overwriting what the system has), phase 1;
#   every boot: "=== RTAGENT-SCENARIO-BOOT NAME boot=N phase=P ===", then the scenario with
#           RTAGENT_PHASE=P. A scenario that calls `reboot_to_phase Q` (lib.sh) ends its boot
#           with a reboot the guest makes itself (`systemctl reboot`); otherwise the run ends:
#           "=== RTAGENT-SCENARIO-END NAME rc=N ===" and poweroff.
# More than MAX_BOOTS boots (a scenario that never ends) is a failure.
NAME=$(cat /rtagent/scenario)
STATE=/var/lib/rtagent-qemu
MAX_BOOTS=6
mkdir -p $STATE
boot=$(( $(cat $STATE/boot 2>/dev/null || echo 0) + 1 ))
echo $boot > $STATE/boot
phase=$(cat $STATE/phase 2>/dev/null || echo 1)
end() {
  echo "FACT scenario_done_s: $(cut -d' ' -f1 /proc/uptime)"
  echo "=== RTAGENT-SCENARIO-END $NAME rc=$1 ==="
  sync
  systemctl poweroff --force --force
  exit 0
}
# The kernel's boot messages were on the console; its later ones stay in dmesg.
dmesg -n 1
if [ $boot = 1 ]; then
  echo "=== RTAGENT-SCENARIO-BEGIN $NAME ==="
  if ! cp -a -n /rtagent/install/. / || ! command -v rtagent >/dev/null; then
    echo "FAIL install: cannot copy rtagent from /rtagent/install"
    end 1
  fi
  systemctl daemon-reload
fi
echo "=== RTAGENT-SCENARIO-BOOT $NAME boot=$boot phase=$phase ==="
echo "FACT scenario_start_s: $(cut -d' ' -f1 /proc/uptime)"
if [ $boot -gt $MAX_BOOTS ]; then
  echo "FAIL $NAME: boot $boot and the scenario has not ended (at most $MAX_BOOTS boots)"
  end 1
fi
rm -f $STATE/reboot
cd /tmp
# 25 s before the host stops QEMU (mkharness.sh -d: the deadline of the whole run, every boot
# together), say on the console where this boot's part of the scenario is stuck.
HANG_REPORTER=$(/rtagent/hang-report.sh --arm-at "$(cat /rtagent/deadline 2>/dev/null)")
RTAGENT_RESULTS=$STATE/results RTAGENT_PHASE=$phase RTAGENT_STATE=$STATE sh "/rtagent/scenarios/$NAME.sh"
rc=$?
/rtagent/hang-report.sh --disarm "$HANG_REPORTER"
if [ -f $STATE/reboot ]; then
  echo "=== RTAGENT-SCENARIO-REBOOT $NAME boot=$boot next_phase=$(cat $STATE/phase) ==="
  systemctl reboot --check-inhibitors=no
  exit 0
fi
end $rc
