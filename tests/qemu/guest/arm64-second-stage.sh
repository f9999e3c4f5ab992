#!/bin/sh
# Not a scenario: debian-base.sh --arch arm64 boots it once, in the arm64 guest, to finish the
# Debian that `debootstrap --foreign` unpacked on the host (the second stage runs the arm64
# maintainer scripts, which this amd64 host cannot). It then writes the finished tree, as a tar
# without the harness, to the raw disk /dev/vda; the host reads it back (nothing is mounted there).
. /rtagent/lib.sh

if /debootstrap/debootstrap --second-stage > /tmp/second-stage.log 2>&1; then
  pass "debootstrap --second-stage"
else
  tail -20 /tmp/second-stage.log
  fail "debootstrap --second-stage" "see the lines above"
  finish
fi
# debootstrap may unmount what it found mounted: put back what the rest needs.
[ -e /proc/self ] || mount -t proc proc /proc
[ -e /sys/kernel ] || mount -t sysfs sysfs /sys
fact debian_version "$(cat /etc/debian_version)"
# Smaller in RAM at every boot: no downloaded packages, lists, documentation or translations.
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/locale/* /usr/share/info/*
echo rtagent-arm64 > /etc/hostname

load_modules virtio_pci virtio_blk
i=0; while [ ! -e /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
cd /
if tar --numeric-owner --one-file-system --exclude=./rtagent --exclude=./init --exclude=./usr/lib/modules \
     -cf /tmp/base.tar . && dd if=/tmp/base.tar of=/dev/vda bs=1M conv=fsync 2>/dev/null; then
  fact base_tar_bytes "$(wc -c < /tmp/base.tar)"
  pass "the finished tree written to /dev/vda"
else
  fail "base tar" "tar or dd to /dev/vda failed"
fi
finish
