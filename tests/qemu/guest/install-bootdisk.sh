#!/bin/sh
# The installer boot of a boot-loader disk (tests/qemu/mkbootdisk.sh), run once by
# rtagent-install.service in the guest: installs the boot loader LOADER (grub) on /dev/vda the
# way an administrator does (Debian's PREEMPT_RT kernel and its initramfs are on the disk
# already), enables the scenario harness (rtagent-harness.service) and powers
# off. Output between the begin/end markers on ttyS0, like a scenario.
LOADER=$1
NAME=install-$LOADER
exec >/dev/ttyS0 2>&1
echo "=== RTAGENT-SCENARIO-BEGIN $NAME ==="
rc=0
step() {
  echo "STEP $* ($(cut -d' ' -f1 /proc/uptime) s)"
  { "$@" 2>&1; echo $? > /tmp/step.rc; } | sed 's/^/  | /'
  src=$(cat /tmp/step.rc)
  if [ "$src" != 0 ]; then echo "FAIL $NAME: $* -> exit $src"; rc=1; fi
  return "$src"
}
export DEBIAN_FRONTEND=noninteractive

# Debian's kernel package is installed already (mkbootdisk.sh, dpkg under chroot on the host):
# what is left needs the disk as a disk.
KVER=$(ls /lib/modules | head -1)
echo "FACT kernel: $KVER"
echo "FACT initrd: $(ls -l /boot/initrd.img-$KVER 2>&1)"
[ -s /boot/initrd.img-$KVER ] || { echo "FAIL $NAME: no /boot/initrd.img-$KVER"; rc=1; }

case $LOADER in
grub)
  # GRUB on the serial console, no menu wait; the kernel's console on ttyS0 too, its boot
  # messages shown (a hang shows where), systemd's only on errors.
  sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=0/' \
         -e 's/^GRUB_CMDLINE_LINUX_DEFAULT=.*/GRUB_CMDLINE_LINUX_DEFAULT="systemd.show_status=error"/' \
         -e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0,115200n8 no_timer_check"/' /etc/default/grub
  printf '%s\n' 'GRUB_TERMINAL=serial' 'GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"' >> /etc/default/grub
  step grub-install /dev/vda
  step update-grub
  echo "FACT grub_linux: $(grep -m1 '^[[:space:]]*linux[[:space:]]' /boot/grub/grub.cfg | sed 's/^[[:space:]]*//')"
  ;;
esac

# What `systemctl disable` and `enable` do for these two units (WantedBy=multi-user.target), as
# the symbolic links themselves: systemctl takes 25 s for each under the emulated CPU.
WANTS=/etc/systemd/system/multi-user.target.wants
step rm -v $WANTS/rtagent-install.service
step ln -sv /etc/systemd/system/rtagent-harness.service $WANTS/rtagent-harness.service
echo "FACT root_used: $(df -m / | awk 'NR==2 {print $3 " MB"}')"
echo "=== RTAGENT-SCENARIO-END $NAME rc=$rc ==="
# A clean shutdown: the cached disk's file system is left clean, with nothing in its journal.
systemctl poweroff --check-inhibitors=no
