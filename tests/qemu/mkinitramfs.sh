#!/bin/bash
# Build a cpio (newc) initramfs that runs rtagent's QEMU scenarios.
#
#   tests/qemu/mkinitramfs.sh -k KERNEL_DIR -r RTAGENT_BINARY -o OUT.cpio [-m "mod1 mod2"]
#
# KERNEL_DIR is an unpacked linux-image package (fetch-kernels.sh). The image holds:
#   /bin/busybox + one symlink per applet (busybox-static; never over "busybox" itself)
#   /usr/bin/rtagent and /usr/libexec/rtagent/rtagent-sampler (debug info stripped) and every
#     library ldd names, at the same paths, plus the dynamic loader
#   /usr/bin/chrt from util-linux (busybox-static has no chrt applet; scenarios start
#     real-time threads of their own with it)
#   /usr/bin/rtla (Debian's rtla package) when this machine has it: rt-rtla records a real
#     `rtla timerlat hist` with it; without it that scenario SKIPs and nothing else changes
#   /usr/local/bin/<tool> for each tool a scenario's "# tools:" header names (iproute2's ip:
#     busybox's has no veth queue counts), with the libraries ldd names
#   /lib/modules/<release>/<name>.ko for the modules asked for (with no -m: the virtio set
#     and every module a scenario's "# modules:" header names) and their dependencies
#     (decompressed when the package ships .ko.xz/.ko.zst/.ko.gz), and modules.deps
#     ("name: dep dep") so the guest loads them in order
#   /rtagent/lib.sh, /rtagent/hang-report.sh, /rtagent/scenarios/*.sh (tests/qemu/), /rtagent/profiles (profiles/)
#   /init (tests/qemu/init.sh)
# The scenario to run is chosen on the kernel command line: rtagent.scenario=NAME.
#
#   tests/qemu/mkinitramfs.sh -k KERNEL_DIR -b BASE.tar [-d PACKAGE.deb] [-e SCRIPT] -o OUT.cpio
#
# -b: the guest's root is a whole Debian (BASE.tar: debian-base.sh --arch arm64) instead of
# busybox and the host's rtagent: no -r, nothing of this host's architecture is copied in. The
# harness, the modules and /init are added as above; -d puts the package to install at
# /rtagent/PACKAGE.deb (the scenario runs dpkg -i); -e adds SCRIPT as one more scenario
# (debian-base.sh's second stage).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KDIR= RTAGENT= OUT= BASE= DEB= EXTRA= MODULES_GIVEN=
MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk crc32c_generic ext4"
USAGE="usage: $0 -k KERNEL_DIR (-r RTAGENT | -b BASE.tar [-d PACKAGE.deb] [-e SCRIPT]) -o OUT.cpio [-m MODULES]"
while getopts "k:r:o:m:b:d:e:" opt; do
  case $opt in
    k) KDIR=$OPTARG ;; r) RTAGENT=$OPTARG ;; o) OUT=$OPTARG ;; m) MODULES=$OPTARG MODULES_GIVEN=1 ;;
    b) BASE=$OPTARG ;; d) DEB=$OPTARG ;; e) EXTRA=$OPTARG ;;
    *) echo "$USAGE" >&2; exit 2 ;;
  esac
done
[ -n "$KDIR" ] && [ -n "$OUT" ] && { [ -n "$RTAGENT" ] || [ -n "$BASE" ]; } || { echo "$USAGE" >&2; exit 2; }
[ -z "$BASE" ] || [ -f "$BASE" ] || { echo "mkinitramfs: no base tarball $BASE" >&2; exit 2; }
[ -z "$DEB" ] || [ -f "$DEB" ] || { echo "mkinitramfs: no package $DEB" >&2; exit 2; }
[ -n "$BASE" ] || [ -x "$RTAGENT" ] || { echo "mkinitramfs: $RTAGENT is not an executable" >&2; exit 2; }
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || { echo "mkinitramfs: $BUSYBOX missing (apt-get install busybox-static)" >&2; exit 3; }
if ldd "$BUSYBOX" >/dev/null 2>&1; then echo "mkinitramfs: $BUSYBOX is not static (install busybox-static)" >&2; exit 3; fi

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
cd "$STAGE"
if [ -n "$BASE" ]; then
  # A whole Debian of the guest's architecture: its own shell, tools, libraries and dpkg.
  tar --numeric-owner -xpf "$BASE"
  # debootstrap --foreign leaves /proc as a symlink to the host's /proc: the guest mounts its own.
  for d in proc sys dev run tmp; do [ -L "$d" ] && rm "$d"; mkdir -p "$d"; done
  mkdir -p rtagent/scenarios
  [ -z "$DEB" ] || cp "$DEB" rtagent/
  [ -z "$EXTRA" ] || cp "$EXTRA" rtagent/scenarios/
else
mkdir -p bin sbin usr/bin usr/sbin proc sys dev run tmp etc root rtagent/scenarios lib64

# busybox and its applets
cp "$BUSYBOX" bin/busybox
for applet in $("$BUSYBOX" --list); do
  [ "$applet" = busybox ] && continue
  [ -e "bin/$applet" ] || ln -s busybox "bin/$applet"
done

# rtagent, its measuring program where an install puts it (../libexec/rtagent/ from the
# binary), and the libraries ldd names for either, at the same paths
SAMPLER=$(dirname "$RTAGENT")/rtagent-sampler
[ -x "$SAMPLER" ] || { echo "mkinitramfs: no rtagent-sampler beside $RTAGENT (build the whole project)" >&2; exit 2; }
strip --strip-debug -o usr/bin/rtagent "$RTAGENT" 2>/dev/null || cp "$RTAGENT" usr/bin/rtagent
mkdir -p usr/libexec/rtagent
strip --strip-debug -o usr/libexec/rtagent/rtagent-sampler "$SAMPLER" 2>/dev/null || cp "$SAMPLER" usr/libexec/rtagent/rtagent-sampler
chmod 755 usr/bin/rtagent usr/libexec/rtagent/rtagent-sampler
CHRT=$(command -v chrt || true)
[ -n "$CHRT" ] || { echo "mkinitramfs: no chrt (util-linux) on this machine" >&2; exit 3; }
cp "$CHRT" usr/bin/chrt
RTLA=$(command -v rtla || true)
[ -z "$RTLA" ] || cp "$RTLA" usr/bin/rtla
# tools scenarios ask for by a "# tools:" header; a missing one is left out (its scenario skips)
TOOLS=()
for t in $(sed -n 's/^# tools: *//p' "$HERE"/scenarios/*.sh | tr ' ' '\n' | sort -u); do
  p=$(command -v "$t" || true)
  if [ -z "$p" ]; then echo "mkinitramfs: no $t on this machine (skipped)" >&2; continue; fi
  mkdir -p usr/local/bin
  cp -L "$p" "usr/local/bin/$t"
  TOOLS+=("$p")
done
{ ldd "$RTAGENT" 2>/dev/null || true; ldd "$SAMPLER" 2>/dev/null || true; ldd "$CHRT" 2>/dev/null || true
  [ -z "$RTLA" ] || ldd "$RTLA" 2>/dev/null || true
  for t in "${TOOLS[@]}"; do ldd "$t" 2>/dev/null || true; done; } | awk '/=> \//{print $3} /^[[:space:]]*\//{print $1}' | sort -u | while read -r lib; do
  mkdir -p ".$(dirname "$lib")"
  cp -L "$lib" ".$lib"
done
fi

# kernel modules, with their dependencies from each module's .modinfo "depends=" field
MODROOT=$(ls -d "$KDIR"/lib/modules/*/ 2>/dev/null | head -1)
KREL=$(basename "${MODROOT%/}")
mkdir -p "lib/modules/$KREL"
: > "lib/modules/$KREL/modules.deps"
add_module() {
  local name=$1 f deps d
  [ -e "lib/modules/$KREL/$name.ko" ] && return 0
  f=$(find "$MODROOT" \( -name "$name.ko" -o -name "$name.ko.*" -o -name "${name//_/-}.ko" -o -name "${name//_/-}.ko.*" \) | head -1)
  if [ -z "$f" ]; then
    if grep -q "/$name.ko" "$MODROOT/modules.builtin" 2>/dev/null; then return 0; fi
    echo "mkinitramfs: module $name not found in $MODROOT (skipped)" >&2; return 0
  fi
  case $f in
    *.ko.xz) xz -dc "$f" > "lib/modules/$KREL/$name.ko" ;;
    *.ko.zst) zstd -qdc "$f" > "lib/modules/$KREL/$name.ko" ;;
    *.ko.gz) gzip -dc "$f" > "lib/modules/$KREL/$name.ko" ;;
    *) cp "$f" "lib/modules/$KREL/$name.ko" ;;
  esac
  deps=$(tr '\0' '\n' < "lib/modules/$KREL/$name.ko" | sed -n 's/^depends=//p' | head -1 | tr ',' ' ')
  echo "$name: $deps" >> "lib/modules/$KREL/modules.deps"
  for d in $deps; do add_module "${d//-/_}"; done
}
# modules scenarios ask for by a "# modules:" header join the default set (one image serves
# every scenario of a kernel; the others never load them)
if [ -z "$MODULES_GIVEN" ]; then
  MODULES="$MODULES $(sed -n 's/^# modules: *//p' "$HERE"/scenarios/*.sh | tr '\n' ' ')"
fi
if [ -n "$MODROOT" ]; then
  for m in $MODULES; do add_module "$m"; done
fi

# harness files
cp "$HERE/init.sh" init
cp "$HERE/lib.sh" "$HERE/apply-lib.sh" "$HERE/bench-lib.sh" "$HERE/hang-report.sh" rtagent/
cp "$HERE"/scenarios/*.sh rtagent/scenarios/
[ -d "$REPO/profiles" ] && cp -r "$REPO/profiles" rtagent/profiles
[ -d "$HERE/profiles" ] && cp -r "$HERE/profiles" rtagent/qemu-profiles
[ -d "$REPO/examples/lava" ] && mkdir -p rtagent/examples && cp -r "$REPO/examples/lava" rtagent/examples/lava
chmod 755 init rtagent/scenarios/*.sh rtagent/hang-report.sh
if [ -z "$BASE" ]; then
  echo "root:x:0:0:root:/root:/bin/sh" > etc/passwd
  echo "root:x:0:" > etc/group
fi

mkdir -p "$(dirname "$OUT")"
OUT_ABS=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
find . -mindepth 1 | sed "s|^\./||" | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc > "$OUT_ABS" 2>/dev/null
echo "mkinitramfs: $OUT_ABS ($(du -h "$OUT_ABS" | cut -f1), modules for $KREL: $(cut -d: -f1 "lib/modules/$KREL/modules.deps" | tr '\n' ' '))" >&2
