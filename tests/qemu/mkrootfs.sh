#!/bin/bash
# Build the disk of a scenario that boots a real systemd: a minimal Debian with rtagent
# installed the way a board gets it (`cmake --install`), rtagent.service enabled, and a guest
# unit that runs the scenario once the system is up.
#
#   tests/qemu/mkrootfs.sh -r RTAGENT_BINARY -s SCENARIO -o DISK.img [-p PROFILE.yaml]
#
# 1. The base system: `debootstrap --variant=minbase --include=systemd,systemd-sysv,kmod` of
#    this machine's Debian release (Debian's own tool, from the archive apt uses), made once
#    and kept as a tarball in $RTAGENT_QEMU_CACHE (default /var/cache/rtagent-qemu).
# 2. A copy of it with: `cmake --install` of the build folder RTAGENT_BINARY lives in, into
#    the copy (binary, units, tmpfiles entry); the libraries ldd names that the base lacks;
#    PROFILE (default tests/qemu/profiles/hold.yaml) as /etc/rtagent/profile.yaml;
#    rtagent.service enabled with `systemctl --root`; the serial getty masked (the console
#    is the scenario's); tests/qemu/guest/rtagent-scenario.service running SCENARIO through
#    tests/qemu/guest/run-scenario.sh, which prints the begin/end markers on ttyS0 and
#    powers off.
# 3. DISK.img: an ext4 image made with `mkfs.ext4 -d` (nothing is mounted on this machine).
# The guest's /init (tests/qemu/init.sh) mounts it and switches root to systemd when the
# kernel command line says rtagent.root=vda.
# Exit 0, 2 usage, 77 when debootstrap or the archive cannot be had (reason printed).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${RTAGENT_QEMU_CACHE:-/var/cache/rtagent-qemu}
RTAGENT= SCEN= OUT= PROFILE=$HERE/profiles/hold.yaml
while getopts "r:s:o:p:" opt; do
  case $opt in
    r) RTAGENT=$OPTARG ;; s) SCEN=$OPTARG ;; o) OUT=$OPTARG ;; p) PROFILE=$OPTARG ;;
    *) echo "usage: $0 -r RTAGENT -s SCENARIO -o DISK.img [-p PROFILE]" >&2; exit 2 ;;
  esac
done
[ -x "$RTAGENT" ] && [ -n "$SCEN" ] && [ -n "$OUT" ] || { echo "usage: $0 -r RTAGENT -s SCENARIO -o DISK.img [-p PROFILE]" >&2; exit 2; }
[ -f "$HERE/scenarios/$SCEN.sh" ] || { echo "mkrootfs: no scenario $SCEN" >&2; exit 2; }
[ -f "$PROFILE" ] || { echo "mkrootfs: no profile $PROFILE" >&2; exit 2; }
BUILD=$(cd "$(dirname "$RTAGENT")" && pwd)
[ -f "$BUILD/cmake_install.cmake" ] || { echo "mkrootfs: $BUILD is not a CMake build folder (needed for cmake --install)" >&2; exit 2; }

. /etc/os-release
RELEASE=${VERSION_CODENAME:-bookworm}
MIRROR=${RTAGENT_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) .*/\1/p' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
BASE=$CACHE/debian-$RELEASE-systemd.tar

mkdir -p "$CACHE"
if [ ! -s "$BASE" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 || { echo "UNAVAILABLE: debootstrap cannot be installed" >&2; exit 77; }
  fi
  TMPB=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
  echo "mkrootfs: debootstrap $RELEASE from $MIRROR (once; cached as $BASE)" >&2
  if ! debootstrap --variant=minbase --include=systemd,systemd-sysv,kmod "$RELEASE" "$TMPB/root" "$MIRROR" > "$TMPB.log" 2>&1; then
    tail -5 "$TMPB.log" >&2; rm -rf "$TMPB"
    echo "UNAVAILABLE: debootstrap of $RELEASE from $MIRROR failed" >&2; exit 77
  fi
  tar -C "$TMPB/root" -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE"
  rm -rf "$TMPB" "$TMPB.log"
fi

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
R=$STAGE/root
mkdir -p "$R"
tar -C "$R" -xf "$BASE"

# rtagent as `cmake --install` lays it out, then the libraries the base system lacks.
DESTDIR=$R cmake --install "$BUILD" > "$STAGE/install.log" 2>&1 || { cat "$STAGE/install.log" >&2; exit 1; }
BIN=$(find "$R/usr" -path '*/bin/rtagent' -type f | head -1)
[ -n "$BIN" ] || { echo "mkrootfs: cmake --install put no bin/rtagent under $R" >&2; exit 1; }
strip --strip-debug "$BIN" 2>/dev/null || true
SAMPLER=$(find "$R/usr" -path '*/libexec/rtagent/rtagent-sampler' -type f | head -1)
[ -n "$SAMPLER" ] || { echo "mkrootfs: cmake --install put no libexec/rtagent/rtagent-sampler under $R" >&2; exit 1; }
strip --strip-debug "$SAMPLER" 2>/dev/null || true
{ ldd "$RTAGENT" 2>/dev/null || true; } | awk '/=> \//{print $3} /^[[:space:]]*\//{print $1}' | sort -u | while read -r lib; do
  [ -e "$R$lib" ] && continue
  mkdir -p "$R$(dirname "$lib")"
  cp -L "$lib" "$R$lib"
done
# Units: enable rtagent.service wherever cmake --install put it.
UNIT=$(find "$R" -name rtagent.service -path '*systemd/system/*' | head -1)
[ -n "$UNIT" ] || { echo "mkrootfs: cmake --install put no rtagent.service under $R" >&2; exit 1; }
mkdir -p "$R/etc/rtagent"
cp "$PROFILE" "$R/etc/rtagent/profile.yaml"

# The harness inside the guest.
mkdir -p "$R/rtagent/scenarios"
cp "$HERE/lib.sh" "$HERE/apply-lib.sh" "$HERE/guest/run-scenario.sh" "$R/rtagent/"
cp "$HERE/scenarios/$SCEN.sh" "$R/rtagent/scenarios/"
[ -d "$HERE/profiles" ] && cp -r "$HERE/profiles" "$R/rtagent/qemu-profiles"
cp -r "$REPO/profiles" "$R/rtagent/profiles"
chmod 755 "$R/rtagent/run-scenario.sh" "$R/rtagent/scenarios/$SCEN.sh"
sed "s/@SCENARIO@/$SCEN/" "$HERE/guest/rtagent-scenario.service" > "$R/etc/systemd/system/rtagent-scenario.service"

echo rtagent-qemu > "$R/etc/hostname"
: > "$R/etc/machine-id"
systemctl --root="$R" enable rtagent.service rtagent-scenario.service >> "$STAGE/install.log" 2>&1 \
  || { cat "$STAGE/install.log" >&2; exit 1; }
systemctl --root="$R" mask serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service \
  apt-daily.timer apt-daily-upgrade.timer >> "$STAGE/install.log" 2>&1 || true

SIZE_MB=$(( $(du -sm "$R" | cut -f1) + 200 ))
rm -f "$OUT"
mkfs.ext4 -q -F -L rtagent-root -d "$R" "$OUT" "${SIZE_MB}M"
echo "mkrootfs: $OUT (${SIZE_MB} MB, Debian $RELEASE + systemd, rtagent from $BUILD, unit $(basename "$UNIT"))" >&2
