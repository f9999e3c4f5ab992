#!/bin/bash
# The harness disk of a boot-loader scenario (tests/qemu/mkbootdisk.sh): a small ext4 image
# (label rtagent-harness, made with `mkfs.ext4 -d`, nothing mounted) that the guest's
# rtagent-harness mounts read-only on /rtagent at every boot. It holds:
#   run-phases.sh (guest/), lib.sh, reboot-lib.sh, hang-report.sh, scenarios/SCENARIO.sh,
#   `scenario` (its name), `deadline` (-d: when the host will stop QEMU, seconds since the epoch),
#   profiles/ (the repository's), qemu-profiles/ (tests/qemu/profiles/),
#   install/: rtagent as install-rtagent.sh lays it out, which the guest copies over its root
#   at the first boot without overwriting anything it has.
#
#   tests/qemu/mkharness.sh -r RTAGENT_BINARY -s SCENARIO -o HARNESS.img [-S] [-d DEADLINE]
# -S (run.sh --strict): a `strict` file that makes lib.sh fail an rtagent command still a stub.
# Exit 0, 1 when the install fails, 2 usage.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RTAGENT= SCEN= OUT= STRICT=0 DEADLINE=
while getopts "r:s:o:Sd:" opt; do
  case $opt in
    r) RTAGENT=$OPTARG ;; s) SCEN=$OPTARG ;; o) OUT=$OPTARG ;; S) STRICT=1 ;; d) DEADLINE=$OPTARG ;;
    *) echo "usage: $0 -r RTAGENT -s SCENARIO -o HARNESS.img" >&2; exit 2 ;;
  esac
done
[ -x "$RTAGENT" ] && [ -n "$SCEN" ] && [ -n "$OUT" ] || { echo "usage: $0 -r RTAGENT -s SCENARIO -o HARNESS.img" >&2; exit 2; }
[ -f "$HERE/scenarios/$SCEN.sh" ] || { echo "mkharness: no scenario $SCEN" >&2; exit 2; }
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
H=$STAGE/harness
mkdir -p "$H/scenarios"
"$HERE/install-rtagent.sh" "$RTAGENT" "$H/install"
cp "$HERE/lib.sh" "$HERE/reboot-lib.sh" "$HERE/hang-report.sh" "$HERE/guest/run-phases.sh" "$H/"
[ -z "$DEADLINE" ] || echo "$DEADLINE" > "$H/deadline"
cp "$HERE/scenarios/$SCEN.sh" "$H/scenarios/"
echo "$SCEN" > "$H/scenario"
[ $STRICT = 1 ] && : > "$H/strict"
cp -r "$REPO/profiles" "$H/profiles"
[ -d "$HERE/profiles" ] && cp -r "$HERE/profiles" "$H/qemu-profiles"
SIZE_MB=$(( $(du -sm "$H" | cut -f1) + 16 ))
rm -f "$OUT"
mkfs.ext4 -q -F -L rtagent-harness -d "$H" "$OUT" "${SIZE_MB}M" >&2
