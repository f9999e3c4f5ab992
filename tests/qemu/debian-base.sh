#!/bin/bash
# The minimal Debian every disk-booted scenario starts from, made once and cached.
#
#   tests/qemu/debian-base.sh          # prints the path of the tarball
#   tests/qemu/debian-base.sh --arch arm64
#   tests/qemu/debian-base.sh --ssh    # the same plus openssh-server, python3 and sudo
#   tests/qemu/debian-base.sh --variant irqbalance|tuned   # the same plus those (below)
#   tests/qemu/debian-base.sh --cached [ARGS]   # the path when already made (exit 0), else exit 1
#
# `debootstrap --variant=minbase` of this machine's Debian release (Debian's own tool, from the
# archive apt uses) with systemd and what a boot-loader disk needs (mkbootdisk.sh): udev and
# initramfs-tools with zstd (Debian's kernel package depends on them and installs its
# initramfs with them), linux-base and grub-pc.
# One tarball for every scenario (mkrootfs.sh and mkbootdisk.sh), kept in $RTAGENT_QEMU_CACHE
# (default /var/cache/rtagent-qemu) under a name that carries the release and a hash of the
# package list, so a changed list makes a new one (older ones are deleted).
#
# --ssh: a second tarball, for the Ansible fleet run (tests/qemu/fleet-ansible.sh) only: the
# amd64 list plus what Ansible needs on a managed host (an SSH server, Python, sudo for
# `become`). Its own name (debian-RELEASE-ssh-HASH.tar) and hash, so the tarball every other
# scenario uses keeps its name and is never rebuilt or deleted because of this one. It also
# holds what installing rtagent's .deb with the role's ansible.builtin.apt `deb:` needs on a
# guest that reaches no Debian mirror (fleet-ansible.sh --deb): python3-apt (the apt module's
# library; without it the module tries to apt-get it) and the package's runtime libraries
# (RUNTIME, as the arm64 base), so apt resolves every Depends from what is installed.
#
# --variant irqbalance: the list plus Debian's irqbalance, for rt-irqbalance only; --variant tuned:
# plus irqbalance and iproute2, then TuneD (which pulls in python3, dbus, polkitd, ethtool)
# installed by apt-get in a second stage (stage2 below), for rt-tuned only. Each is a variant
# like --ssh (its own name and hash), so the plain tarball is not rebuilt for them, its
# boot-loader disk (mkbootdisk.sh) stays cached, and no other scenario boots with an
# irqbalance or a TuneD that would move its IRQs.
#
# --arch arm64: the arm64 guest's root (the aarch64 scenarios put it whole in the initramfs).
# `debootstrap --foreign --arch arm64` unpacks it here; its second stage, which runs arm64
# maintainer scripts, runs INSIDE the arm64 guest once (guest/arm64-second-stage.sh, booted on
# Debian's RT arm64 kernel with boot.sh -A arm64), which writes the finished tree as a tar to a
# raw disk that is read back here. No systemd: the scenarios' /init is init.sh. It holds the
# runtime libraries rtagent's package depends on (RUNTIME below: keep it in step with the
# package's Depends), so `dpkg -i` of the package in the guest needs no archive.
# Exit 0, 77 when debootstrap or the archive cannot be had (reason on stderr).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${RTAGENT_QEMU_CACHE:-/var/cache/rtagent-qemu}
ARCH=amd64 VARIANT='' STAGE2=''
# --cached (first): only say whether the tarball is made already: its path and exit 0, or exit 1.
CACHED_ONLY=0
[ "${1:-}" = --cached ] && { CACHED_ONLY=1; shift; }
[ "${1:-}" = --arch ] && ARCH=${2:?--arch amd64|arm64}
[ "${1:-}" = --ssh ] && VARIANT=ssh-
[ "${1:-}" = --variant ] && VARIANT=${2:?--variant ssh|irqbalance|tuned}-
INCLUDE=systemd,systemd-sysv,kmod,udev,initramfs-tools,zstd,linux-base,grub-pc
# The package's runtime libraries (its Depends, libc and libgcc aside): the arm64 guest installs
# the package with dpkg -i, the SSH base's with apt, and neither reaches a mirror.
RUNTIME=libcgroup2,libfmt9,libspdlog1.10,libutf8proc2,libyaml-cpp0.7,libsystemd0,libnettle8,libstdc++6,libmnl0,libpugixml1v5
case $VARIANT in
  '') ;;
  ssh-) INCLUDE=$INCLUDE,openssh-server,python3,sudo,python3-apt,$RUNTIME ;;
  irqbalance-) INCLUDE=$INCLUDE,irqbalance ;;
  tuned-) INCLUDE=$INCLUDE,irqbalance,iproute2 STAGE2=tuned ;;
  *) echo "debian-base.sh: --variant ${VARIANT%-}: ssh, irqbalance or tuned" >&2; exit 2 ;;
esac
[ "$ARCH" = arm64 ] && INCLUDE=kmod,procps,$RUNTIME

. /etc/os-release
RELEASE=${VERSION_CODENAME:-bookworm}
MIRROR=${RTAGENT_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) .*/\1/p' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
KEY=$( (echo "$INCLUDE"; [ -z "$STAGE2" ] || echo "apt-get install $STAGE2") | sha256sum | cut -c1-8)
BASE=$CACHE/debian-$RELEASE-$VARIANT$KEY.tar
[ "$ARCH" = amd64 ] || BASE=$CACHE/debian-$RELEASE-$ARCH-$( (echo "$INCLUDE"; cat "$HERE/guest/arm64-second-stage.sh") | sha256sum | cut -c1-8).tar

if [ $CACHED_ONLY = 1 ]; then [ -s "$BASE" ] && echo "$BASE"; exit $?; fi

# arm64: the first stage here, the second in the guest; prints the tarball's path.
arm64_base() {
  local kout kdir t0 size   # tmpb is global: the EXIT trap reads it after the function returns
  kout=$("$HERE/fetch-kernels.sh" --arch arm64) || exit $?
  kdir=$(sed -n 's/^rt //p' <<<"$kout")
  tmpb=$(mktemp -d "$CACHE/debootstrap-arm64.XXXXXX")
  trap 'rm -rf "$tmpb"' EXIT
  echo "debian-base: debootstrap --foreign --arch arm64 $RELEASE from $MIRROR (once; cached as $BASE)" >&2
  t0=$SECONDS
  if ! DEBIAN_FRONTEND=noninteractive debootstrap --foreign --arch arm64 --variant=minbase --include="$INCLUDE" \
       "$RELEASE" "$tmpb/root" "$MIRROR" > "$tmpb/debootstrap.log" 2>&1; then
    tail -5 "$tmpb/debootstrap.log" >&2
    echo "UNAVAILABLE: debootstrap --foreign of $RELEASE arm64 from $MIRROR failed" >&2; exit 77
  fi
  tar -C "$tmpb/root" --numeric-owner -cf "$tmpb/foreign.tar" .
  rm -rf "$tmpb/root"
  "$HERE/mkinitramfs.sh" -k "$kdir" -b "$tmpb/foreign.tar" -e "$HERE/guest/arm64-second-stage.sh" -o "$tmpb/stage2.cpio"
  rm -f "$tmpb/foreign.tar"
  truncate -s 1G "$tmpb/out.img"
  echo "debian-base: second stage in the arm64 guest (several minutes under TCG; log $CACHE/arm64-second-stage.log)" >&2
  if ! nice -n 0 "$HERE/boot.sh" -A arm64 -k "$kdir" -i "$tmpb/stage2.cpio" -s arm64-second-stage \
       -l "$CACHE/arm64-second-stage.log" -t "${RTAGENT_QEMU_STAGE2_TIMEOUT:-2400}" \
       -q "-drive file=$tmpb/out.img,if=none,format=raw,id=out -device virtio-blk-pci,drive=out" > "$tmpb/result.txt"; then
    sed 's/^/  | /' "$tmpb/result.txt" | tail -25 >&2
    echo "debian-base: the second stage failed in the guest (console: $CACHE/arm64-second-stage.log)" >&2; exit 1
  fi
  size=$(sed -n 's/^FACT base_tar_bytes: \([0-9]*\)$/\1/p' "$tmpb/result.txt")
  [ -n "$size" ] || { echo "debian-base: the guest reported no tar size" >&2; exit 1; }
  head -c "$size" "$tmpb/out.img" > "$BASE.tmp"
  tar -tf "$BASE.tmp" ./usr/bin/dpkg >/dev/null || { rm -f "$BASE.tmp"; echo "debian-base: the guest's tar has no dpkg" >&2; exit 1; }
  mv "$BASE.tmp" "$BASE"
  for old in "$CACHE"/debian-"$RELEASE"-arm64-????????.tar; do
    [ "$old" = "$BASE" ] || rm -f "$old"
  done
  echo "debian-base: $BASE ($((size / 1048576)) MB) in $((SECONDS - t0)) s" >&2
}

# stage2 ROOT: apt-get install $STAGE2 in the debootstrapped tree, from the archive debootstrap
# wrote to its sources.list; the apt lists and .debs are cleaned after. Not through --include:
# debootstrap configures what it includes in its own order, not by dependency, and with TuneD
# included it failed configuring polkitd five times on 2026-12-02; apt-get configures each
# package after what it depends on. policy-rc.d keeps every service from starting in the chroot
# (no dbus, polkitd or tuned runs on this machine); it is removed after.
stage2() {
  local root=$1
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  echo "debian-base: apt-get install $STAGE2 in the chroot"
  chroot "$root" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -q --no-install-recommends $STAGE2 &&
    chroot "$root" apt-get clean &&
    rm -rf "$root"/var/lib/apt/lists/* "$root/usr/sbin/policy-rc.d"
}

mkdir -p "$CACHE"
if [ "$ARCH" = arm64 ]; then
  [ -s "$BASE" ] || arm64_base
elif [ ! -s "$BASE" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 || { echo "UNAVAILABLE: debootstrap cannot be installed" >&2; exit 77; }
  fi
  TMPB=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
  echo "debian-base: debootstrap $RELEASE from $MIRROR (once; cached as $BASE)" >&2
  if ! DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$INCLUDE" "$RELEASE" "$TMPB/root" "$MIRROR" > "$TMPB.log" 2>&1; then
    tail -5 "$TMPB.log" >&2; rm -rf "$TMPB" "$TMPB.log"
    echo "UNAVAILABLE: debootstrap of $RELEASE from $MIRROR failed" >&2; exit 77
  fi
  if [ -n "$STAGE2" ] && ! stage2 "$TMPB/root" >> "$TMPB.log" 2>&1; then
    tail -15 "$TMPB.log" >&2; rm -rf "$TMPB" "$TMPB.log"
    echo "debian-base: apt-get install $STAGE2 in the debootstrapped tree failed" >&2; exit 1
  fi
  tar -C "$TMPB/root" -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE"
  rm -rf "$TMPB" "$TMPB.log"
  for old in "$CACHE"/debian-"$RELEASE"-"$VARIANT"????????.tar; do
    [ "$old" = "$BASE" ] || rm -f "$old"
  done
fi
echo "$BASE"
