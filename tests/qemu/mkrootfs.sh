#!/bin/bash
# Build the disk of a scenario that boots a real systemd: a minimal Debian with rtagent
# installed the way a board gets it (`cmake --install`), rtagent.service enabled, and a guest
# unit that runs the scenario once the system is up.
#
#   tests/qemu/mkrootfs.sh -r RTAGENT_BINARY -s SCENARIO -o DISK.img [-p PROFILE.yaml|none] [-S | -V VARIANT] [-x HOOK]
#   tests/qemu/mkrootfs.sh -N -s SCENARIO -o DISK.img [-S | -V VARIANT] [-x HOOK]
#
# SCENARIO is a name in tests/qemu/scenarios/ or the path of a script elsewhere (the Ansible
# fleet's guests run tests/qemu/fleet/fleet-node.sh, which run.sh must not pick up).
# -S starts from `debian-base.sh --ssh` (openssh-server, python3, sudo) instead of the plain base;
#    -V VARIANT from `debian-base.sh --variant VARIANT` (irqbalance, tuned). A TuneD in the image
#    is disabled: it would apply its recommended profile at boot, before the scenario's "before".
# -p none: no /etc/rtagent/profile.yaml and rtagent.service not enabled (the scenario writes its
#    own profile and starts rtagent itself, after it has seen the system untouched).
# -N: no rtagent on the disk at all (no binary, units, /etc/rtagent or profile; implies -p none):
#    something in the guest installs it, as the Ansible fleet's role does from the .deb
#    (fleet-ansible.sh --deb).
# -x HOOK runs `HOOK ROOT` on the staged tree just before the image is made (the fleet's
#    hostname, keys and network); a failing hook fails the build.
#
# 1. The base system: debian-base.sh's minimal Debian with systemd (debootstrap, made once
#    and kept as a tarball in $RTAGENT_QEMU_CACHE, default /var/cache/rtagent-qemu).
# 2. A copy of it with rtagent installed by install-rtagent.sh (`cmake --install` of the build
#    folder RTAGENT_BINARY lives in: binary, units, tmpfiles entry; the libraries ldd names
#    that the base lacks);
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
RTAGENT= SCEN= OUT= PROFILE=$HERE/profiles/hold.yaml BASE_ARGS=() HOOK= NONE=0
while getopts "r:s:o:p:SV:x:N" opt; do
  case $opt in
    r) RTAGENT=$OPTARG ;; s) SCEN=$OPTARG ;; o) OUT=$OPTARG ;; p) PROFILE=$OPTARG ;;
    S) BASE_ARGS=(--ssh) ;; V) BASE_ARGS=(--variant "$OPTARG") ;; x) HOOK=$OPTARG ;; N) NONE=1 ;;
    *) echo "usage: $0 (-r RTAGENT | -N) -s SCENARIO -o DISK.img [-p PROFILE]" >&2; exit 2 ;;
  esac
done
[ $NONE = 1 ] && PROFILE=none
{ [ $NONE = 1 ] || [ -x "$RTAGENT" ]; } && [ -n "$SCEN" ] && [ -n "$OUT" ] || { echo "usage: $0 (-r RTAGENT | -N) -s SCENARIO -o DISK.img [-p PROFILE]" >&2; exit 2; }
SCEN_FILE=$HERE/scenarios/$SCEN.sh
case $SCEN in */*) SCEN_FILE=$SCEN; SCEN=$(basename "$SCEN" .sh) ;; esac
[ -f "$SCEN_FILE" ] || { echo "mkrootfs: no scenario $SCEN ($SCEN_FILE)" >&2; exit 2; }
[ -z "$HOOK" ] || [ -x "$HOOK" ] || { echo "mkrootfs: -x $HOOK is not an executable" >&2; exit 2; }
[ "$PROFILE" = none ] || [ -f "$PROFILE" ] || { echo "mkrootfs: no profile $PROFILE" >&2; exit 2; }

BASE=$("$HERE/debian-base.sh" "${BASE_ARGS[@]}") || exit $?

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
R=$STAGE/root
mkdir -p "$R"
tar -C "$R" -xf "$BASE"

# rtagent as `cmake --install` lays it out, then the libraries the base system lacks.
if [ $NONE = 0 ]; then
  "$HERE/install-rtagent.sh" "$RTAGENT" "$R"
  UNIT=$(find "$R" -name rtagent.service -path '*systemd/system/*' | head -1)
  mkdir -p "$R/etc/rtagent"
fi
UNITS="rtagent.service rtagent-scenario.service"
if [ "$PROFILE" = none ]; then UNITS=rtagent-scenario.service; else cp "$PROFILE" "$R/etc/rtagent/profile.yaml"; fi

# The harness inside the guest.
mkdir -p "$R/rtagent/scenarios"
cp "$HERE/lib.sh" "$HERE/apply-lib.sh" "$HERE/hang-report.sh" "$HERE/guest/run-scenario.sh" "$R/rtagent/"
cp "$SCEN_FILE" "$R/rtagent/scenarios/$SCEN.sh"
[ -d "$HERE/profiles" ] && cp -r "$HERE/profiles" "$R/rtagent/qemu-profiles"
cp -r "$REPO/profiles" "$R/rtagent/profiles"
chmod 755 "$R/rtagent/run-scenario.sh" "$R/rtagent/hang-report.sh" "$R/rtagent/scenarios/$SCEN.sh"
# Without a profile the scenario must not pull rtagent.service in (its Wants=): a hold of the
# built-in default beside the scenario's own apply would re-assert over it.
no_hold=()
[ "$PROFILE" = none ] && no_hold=(-e '/^Wants=rtagent.service/d' -e 's/^After=rtagent.service /After=/')
sed -e "s/@SCENARIO@/$SCEN/" "${no_hold[@]}" "$HERE/guest/rtagent-scenario.service" \
  > "$R/etc/systemd/system/rtagent-scenario.service"

echo rtagent-qemu > "$R/etc/hostname"
: > "$R/etc/machine-id"
systemctl --root="$R" enable $UNITS > "$STAGE/enable.log" 2>&1 \
  || { cat "$STAGE/enable.log" >&2; exit 1; }
systemctl --root="$R" mask serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service \
  apt-daily.timer apt-daily-upgrade.timer >> "$STAGE/enable.log" 2>&1 || true
[ -e "$R/lib/systemd/system/tuned.service" ] && { systemctl --root="$R" disable tuned.service >> "$STAGE/enable.log" 2>&1 || true; }

[ -z "$HOOK" ] || "$HOOK" "$R" || { echo "mkrootfs: the hook $HOOK failed on $R" >&2; exit 1; }

SIZE_MB=$(( $(du -sm "$R" | cut -f1) + 200 ))
rm -f "$OUT"
mkfs.ext4 -q -F -L rtagent-root -d "$R" "$OUT" "${SIZE_MB}M"
if [ $NONE = 1 ]; then
  echo "mkrootfs: $OUT (${SIZE_MB} MB, Debian + systemd, no rtagent)" >&2
else
  echo "mkrootfs: $OUT (${SIZE_MB} MB, Debian + systemd, rtagent from $(dirname "$RTAGENT"), unit $(basename "$UNIT"))" >&2
fi
