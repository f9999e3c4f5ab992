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

# rtagent.root=DEV (vda, vda1): a scenario that boots a real systemd from a disk
# (tests/qemu/mkrootfs.sh), or the installer boot of a boot-loader disk (mkbootdisk.sh).
# Load the virtio modules, mount the disk and hand PID 1 over to its systemd.
ROOTDEV=$(sed -n 's/.*rtagent\.root=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
if [ -n "$ROOTDEV" ]; then
  . /rtagent/lib.sh
  for m in virtio_pci virtio_blk crc32c_generic ext4; do load_module $m; done
  # and the modules a rootfs scenario's "# modules:" header names (run.sh: rtagent.modules=a,b):
  # the Debian disk has no modules of this kernel.
  for m in $(sed -n 's/.*rtagent\.modules=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' '); do load_module $m; done
  i=0; while [ ! -e /dev/$ROOTDEV ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
  mkdir -p /newroot
  if mount -t ext4 /dev/$ROOTDEV /newroot; then
    for m in /sys/kernel/tracing /sys/kernel/debug /sys/fs/cgroup /dev/pts /run /tmp; do umount $m 2>/dev/null; done
    mount --move /dev /newroot/dev
    mount --move /proc /newroot/proc
    mount --move /sys /newroot/sys
    exec switch_root /newroot /lib/systemd/systemd
  fi
  N=$(sed -n 's/.*rtagent.scenario=\([^ ]*\).*/\1/p' /proc/cmdline)
  echo "=== RTAGENT-SCENARIO-BEGIN $N ==="
  echo "FAIL switch_root: cannot mount /dev/$ROOTDEV as ext4"
  echo "=== RTAGENT-SCENARIO-END $N rc=1 ==="
  poweroff -f
fi

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
  # 25 s before the host's timeout kills QEMU (rtagent.timeout=, from boot.sh), say on the
  # console where the scenario is stuck: a killed guest says nothing more.
  HANG_REPORTER=$(/rtagent/hang-report.sh --arm)
  cd /tmp
  sh "/rtagent/scenarios/$NAME.sh"
  rc=$?
  /rtagent/hang-report.sh --disarm "$HANG_REPORTER"
fi
echo "FACT scenario_done_s: $(cut -d' ' -f1 /proc/uptime)"
echo "=== RTAGENT-SCENARIO-END ${NAME:-none} rc=$rc ==="
sync
poweroff -f
# poweroff -f should not return; if it does, make the kernel stop (panic=-1 + -no-reboot exit QEMU).
echo o > /proc/sysrq-trigger
sleep 5
