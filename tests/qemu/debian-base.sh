#!/bin/bash
# The minimal Debian every disk-booted scenario starts from, made once and cached.
#
#   tests/qemu/debian-base.sh          # prints the path of the tarball
#
# `debootstrap --variant=minbase` of this machine's Debian release (Debian's own tool, from the
# archive apt uses) with systemd and what a boot-loader disk needs (mkbootdisk.sh): udev and
# initramfs-tools with zstd (Debian's kernel package depends on them and installs its
# initramfs with them), linux-base and grub-pc.
# One tarball for every scenario (mkrootfs.sh and mkbootdisk.sh), kept in $RTAGENT_QEMU_CACHE
# (default /var/cache/rtagent-qemu) under a name that carries the release and a hash of the
# package list, so a changed list makes a new one (older ones are deleted).
# Exit 0, 77 when debootstrap or the archive cannot be had (reason on stderr).
set -euo pipefail

CACHE=${RTAGENT_QEMU_CACHE:-/var/cache/rtagent-qemu}
INCLUDE=systemd,systemd-sysv,kmod,udev,initramfs-tools,zstd,linux-base,grub-pc

. /etc/os-release
RELEASE=${VERSION_CODENAME:-bookworm}
MIRROR=${RTAGENT_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) .*/\1/p' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
KEY=$(echo "$INCLUDE" | sha256sum | cut -c1-8)
BASE=$CACHE/debian-$RELEASE-$KEY.tar

mkdir -p "$CACHE"
if [ ! -s "$BASE" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 || { echo "UNAVAILABLE: debootstrap cannot be installed" >&2; exit 77; }
  fi
  TMPB=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
  echo "debian-base: debootstrap $RELEASE from $MIRROR (once; cached as $BASE)" >&2
  if ! DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase --include="$INCLUDE" "$RELEASE" "$TMPB/root" "$MIRROR" > "$TMPB.log" 2>&1; then
    tail -5 "$TMPB.log" >&2; rm -rf "$TMPB" "$TMPB.log"
    echo "UNAVAILABLE: debootstrap of $RELEASE from $MIRROR failed" >&2; exit 77
  fi
  tar -C "$TMPB/root" -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE"
  rm -rf "$TMPB" "$TMPB.log"
  for old in "$CACHE"/debian-"$RELEASE"-????????.tar; do
    [ "$old" = "$BASE" ] || rm -f "$old"
  done
fi
echo "$BASE"
