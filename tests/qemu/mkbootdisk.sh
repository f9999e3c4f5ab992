#!/bin/bash
# A disk that boots like a PC: a partitioned raw image whose boot loader (GRUB, on SeaBIOS)
# starts Debian's PREEMPT_RT kernel, installed in the guest with dpkg.
#
#   tests/qemu/mkbootdisk.sh -l grub -k RT_KERNEL_DIR -i INITRAMFS
#
# Prints the path of the finished image, cached in $RTAGENT_QEMU_CACHE (default
# /var/cache/rtagent-qemu) as bootdisk-LOADER-KEY.img, KEY a hash of everything that went into
# it (this script, the installer, the guest units, the base tarball's name, the kernel package
# and its version); older images of the same boot loader are deleted. A scenario boots a copy.
#
# 1. On this machine, nothing mounted: debian-base.sh's tarball unpacked into a staging folder,
#    and Debian's RT kernel package (fetch-kernels.sh keeps the .deb) installed into it by the
#    tree's own dpkg under chroot: its maintainer scripts run depmod and initramfs-tools
#    (MODULES=list: the virtio disk, ext4 and its checksums) natively, in seconds (the same
#    work took the emulated CPU 13-17 minutes in the guest). Then guest/install-bootdisk.sh and its unit, the harness launcher
#    (guest/rtagent-harness, its unit enabled later by the installer), /etc/fstab; a raw image
#    with one bootable MBR partition from 1 MiB (sfdisk on the file) and the root file system
#    written into it at that offset (`mkfs.ext4 -d DIR -E offset=1048576`).
# 2. The installer boot: QEMU boots RT_KERNEL_DIR's kernel with INITRAMFS (mkinitramfs.sh;
#    rtagent.root=vda1 switches to the disk's systemd), whose unit runs install-bootdisk.sh:
#    what needs the disk as a disk, `grub-install /dev/vda` and `update-grub`; it enables the
#    harness unit and powers off. Its console: LOG beside the image (.log).
# Exit 0; 1 dpkg or the installer failed (its output's last lines printed); 2 usage; 77 debootstrap,
# sfdisk or the kernel package cannot be had.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${RTAGENT_QEMU_CACHE:-/var/cache/rtagent-qemu}
LOADER= KDIR= INITRD=
while getopts "l:k:i:" opt; do
  case $opt in
    l) LOADER=$OPTARG ;; k) KDIR=$OPTARG ;; i) INITRD=$OPTARG ;;
    *) echo "usage: $0 -l grub -k RT_KERNEL_DIR -i INITRAMFS" >&2; exit 2 ;;
  esac
done
case $LOADER in grub) ;; *) echo "usage: $0 -l grub -k RT_KERNEL_DIR -i INITRAMFS" >&2; exit 2 ;; esac
[ -d "$KDIR" ] && [ -f "$INITRD" ] || { echo "usage: $0 -l grub -k RT_KERNEL_DIR -i INITRAMFS" >&2; exit 2; }
[ -s "$KDIR/package.deb" ] || { echo "UNAVAILABLE: no $KDIR/package.deb (run fetch-kernels.sh)" >&2; exit 77; }
if ! command -v sfdisk >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fdisk >/dev/null 2>&1 \
    || { echo "UNAVAILABLE: sfdisk (package fdisk) cannot be installed" >&2; exit 77; }
fi

BASE=$("$HERE/debian-base.sh") || exit $?
GUEST=(install-bootdisk.sh rtagent-install.service rtagent-harness rtagent-harness.service)
KEY=$( { echo "$LOADER $(basename "$BASE") $(basename "$KDIR") $(cat "$KDIR/.version")"
         cat "$0"; for f in "${GUEST[@]}"; do cat "$HERE/guest/$f"; done; } | sha256sum | cut -c1-12)
OUT=$CACHE/bootdisk-$LOADER-$KEY.img
if [ -s "$OUT" ]; then echo "$OUT"; exit 0; fi

STAGE=$(mktemp -d "$CACHE/.bootdisk.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
R=$STAGE/root
mkdir -p "$R"
tar -C "$R" -xf "$BASE"
cp "$KDIR/package.deb" "$R/root/linux-image.deb"
# The initramfs holds the modules of the virtio disk and of ext4 with its checksums
# (MODULES=list: `dep` would look at this machine's devices through the chroot).
echo MODULES=list > "$R/etc/initramfs-tools/conf.d/rtagent-qemu.conf"
printf '%s\n' virtio_pci virtio_blk crc32c_generic ext4 >> "$R/etc/initramfs-tools/modules"
# The tree's own dpkg, with a bare environment; nothing under chroot sees this machine's
# devices, /proc or /sys (none is mounted there), and grub.cfg does not exist yet, so the
# kernel's zz-update-grub hook does nothing: GRUB is installed in the guest, on its disk.
if ! chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
     dpkg --force-unsafe-io -i /root/linux-image.deb > "$STAGE/dpkg.log" 2>&1; then
  tail -15 "$STAGE/dpkg.log" >&2
  echo "mkbootdisk: dpkg -i of $(basename "$KDIR") in the staging tree failed" >&2
  exit 1
fi
rm -f "$R/root/linux-image.deb"
KVER=$(ls "$R/lib/modules" | head -1)
[ -s "$R/boot/initrd.img-$KVER" ] || { cat "$STAGE/dpkg.log" >&2; echo "mkbootdisk: no /boot/initrd.img-$KVER after dpkg -i" >&2; exit 1; }
sed 's/^/  | /' "$STAGE/dpkg.log" >&2
install -m 755 "$HERE/guest/install-bootdisk.sh" "$R/usr/local/sbin/rtagent-install-bootdisk"
install -m 755 "$HERE/guest/rtagent-harness" "$R/usr/local/sbin/rtagent-harness"
sed "s/@LOADER@/$LOADER/" "$HERE/guest/rtagent-install.service" > "$R/etc/systemd/system/rtagent-install.service"
cp "$HERE/guest/rtagent-harness.service" "$R/etc/systemd/system/"
echo "LABEL=rtagent-root / ext4 errors=remount-ro 0 1" > "$R/etc/fstab"
echo rtagent-qemu > "$R/etc/hostname"
: > "$R/etc/machine-id"
systemctl --root="$R" enable rtagent-install.service > "$STAGE/enable.log" 2>&1 || { cat "$STAGE/enable.log" >&2; exit 1; }
systemctl --root="$R" mask serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service \
  apt-daily.timer apt-daily-upgrade.timer >> "$STAGE/enable.log" 2>&1 || true

# Room for GRUB's files and what the scenarios write.
ROOT_MB=$(( $(du -sm "$R" | cut -f1) + 200 ))
IMG=$STAGE/disk.img
truncate -s $(( ROOT_MB + 1 ))M "$IMG"
printf 'label: dos\nstart=2048, type=83, bootable\n' | sfdisk -q "$IMG"
# GRUB 2.06 reads ext4 without the features e2fsprogs 1.47 may add.
mkfs.ext4 -q -F -L rtagent-root -O ^orphan_file,^metadata_csum_seed -E offset=1048576 -d "$R" "$IMG" "${ROOT_MB}M"
rm -rf "$R"

echo "mkbootdisk: installer boot for $LOADER ($(basename "$KDIR"), console in $OUT.log)" >&2
if ! "$HERE/boot.sh" -k "$KDIR" -i "$INITRD" -s "install-$LOADER" -l "$STAGE/install.log" -t "${RTAGENT_QEMU_INSTALL_TIMEOUT:-1200}" \
    -a "rtagent.root=vda1 rw systemd.show_status=0 loglevel=3 no_timer_check" \
    -q "-drive file=$IMG,if=none,format=raw,cache=unsafe,id=root -device virtio-blk-pci,drive=root" > "$STAGE/install.out"; then
  cp "$STAGE/install.log" "$OUT.log"
  tail -25 "$STAGE/install.out" | sed 's/^/  | /' >&2
  echo "mkbootdisk: the installer boot failed (console: $OUT.log)" >&2
  exit 1
fi
grep -E '^(FACT|INFO|STEP)' "$STAGE/install.out" | sed 's/^/  | /' >&2
cp "$STAGE/install.log" "$OUT.log"
mv "$IMG" "$OUT"
for old in "$CACHE"/bootdisk-"$LOADER"-*; do
  case $old in "$OUT"|"$OUT.log") ;; *) rm -f "$old" ;; esac
done
echo "$OUT"
