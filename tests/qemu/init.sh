#!/bin/sh
# /init of rtagent's QEMU initramfs (tests/qemu/mkinitramfs.sh puts it there).
# Mounts the kernel's file systems, runs /rtagent/scenarios/$NAME.sh (NAME from
# rtagent.scenario=NAME on the kernel command line), prints its output between
#   === RTAGENT-SCENARIO-BEGIN NAME ===
#   === RTAGENT-SCENARIO-END NAME rc=N ===
# on the console (ttyS0), and powers off.
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup || echo "init: cannot mount cgroup2"
mount -t tracefs tracefs /sys/kernel/tracing || echo "init: cannot mount tracefs"
mount -t debugfs debugfs /sys/kernel/debug || echo "init: cannot mount debugfs"
hostname rtagent-qemu

NAME=
for arg in $(cat /proc/cmdline); do
  case $arg in rtagent.scenario=*) NAME=${arg#rtagent.scenario=} ;; esac
done
# Keep kernel messages off the console while the scenario prints (they stay in dmesg).
echo 1 > /proc/sys/kernel/printk
UPTIME=$(cut -d' ' -f1 /proc/uptime)
echo "=== RTAGENT-SCENARIO-BEGIN ${NAME:-none} ==="
echo "FACT init_reached_s: $UPTIME"
if [ -z "$NAME" ] || [ ! -f "/rtagent/scenarios/$NAME.sh" ]; then
  echo "FAIL scenario: no /rtagent/scenarios/${NAME:-<none>}.sh (rtagent.scenario= on the command line)"
  rc=2
else
  cd /tmp
  sh "/rtagent/scenarios/$NAME.sh"
  rc=$?
fi
echo "FACT scenario_done_s: $(cut -d' ' -f1 /proc/uptime)"
echo "=== RTAGENT-SCENARIO-END ${NAME:-none} rc=$rc ==="
sync
poweroff -f
# poweroff -f should not return; if it does, make the kernel stop (panic=-1 + -no-reboot exit QEMU).
echo o > /proc/sysrq-trigger
sleep 5
