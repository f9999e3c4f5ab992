#!/bin/bash
# Run rtagent's end-to-end scenarios on Debian's PREEMPT_RT and stock kernels under QEMU.
#
#   tests/qemu/run.sh [--rtagent PATH] [--deb PACKAGE.deb] [--out DIR] [--strict] [scenario...]
#
# With no scenario names it runs every tests/qemu/scenarios/*.sh. Each scenario's header says
# which kernel it boots and what it needs:
#   # kernel: rt | stock
#   # arch: arm64                Debian's RT arm64 kernel under qemu-system-aarch64 (boot.sh -A
#                                arm64), the guest a whole Debian arm64 (debian-base.sh --arch
#                                arm64) with --deb's package at /rtagent/ to install with dpkg -i
#   # disk: SIZE                 a raw image at @WORK@/disk.img (truncate -s SIZE)
#   # qemu: ARGS                 extra QEMU arguments (@WORK@ is the scenario's work folder)
#   # append: ARGS               extra kernel arguments
#   # rootfs: debian             boot a real systemd from a minimal Debian disk (mkrootfs.sh)
#   # profile: PATH              with rootfs: the profile rtagent.service holds (repo-relative);
#                                `none`: no profile and rtagent.service not enabled
#   # base: VARIANT              with rootfs: start from debian-base.sh --variant VARIANT
#                                (irqbalance, tuned) instead of the plain base
#   # isolation: none            boot without boot.sh's isolation arguments (boot.sh -N)
#   # bootdisk: grub             boot through that boot loader from a disk (mkbootdisk.sh); the
#                                scenario runs at every boot (guest/run-phases.sh) and reboots
#   # boots: N                   how many boots it takes (the timeout is N times the per-boot one:
#                                RTAGENT_QEMU_TIMEOUT, default 240 s, 480 s for a bootdisk: or
#                                rootfs: debian scenario)
#   # timeout: S                 a direct boot's own limit in seconds, for a scenario that runs long
#                                by design (RTAGENT_QEMU_TIMEOUT still wins)
#   # host-after: SCRIPT         run tests/qemu/host/SCRIPT OUTDIR RTAGENT on the host afterwards
#   # monitor: qmp               QEMU's monitor on a unix socket (boot.sh -M): the guest's
#                                host_monitor (lib.sh) hot-plugs and unplugs devices while it runs
# A scenario hands files to the host with "ARTIFACT NAME TEXT" lines (TEXT appended to NAME in
# its folder under OUTDIR).
# rtagent: --rtagent, else $RTAGENT_BIN, else build/rtagent. --strict (or RTAGENT_QEMU_STRICT=1)
# makes an rtagent command that is still a stub ("not built yet") a failure instead of a SKIP.
# Logs (full console per scenario, facts.txt) stay in --out (default a fresh /tmp folder).
# Prints one summary line per scenario and then "N passed, M failed".
# Exit: 0 all passed, 1 a scenario failed, 2 usage, 77 qemu or the kernels cannot be obtained.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RTAGENT=${RTAGENT_BIN:-$REPO/build/rtagent}
OUTDIR=${RTAGENT_QEMU_OUT:-}
DEB=${RTAGENT_ARM64_DEB:-}
STRICT=${RTAGENT_QEMU_STRICT:-0}
SCENARIOS=()
while [ $# -gt 0 ]; do
  case $1 in
    --rtagent) RTAGENT=$2; shift 2 ;;
    --out) OUTDIR=$2; shift 2 ;;
    --deb) DEB=$2; shift 2 ;;
    --strict) STRICT=1; shift ;;
    -h|--help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) SCENARIOS+=("${1%.sh}"); shift ;;
  esac
done
if [ ${#SCENARIOS[@]} = 0 ]; then
  for f in "$HERE"/scenarios/*.sh; do SCENARIOS+=("$(basename "$f" .sh)"); done
fi
for s in "${SCENARIOS[@]}"; do
  [ -f "$HERE/scenarios/$s.sh" ] || { echo "run.sh: no scenario $s (tests/qemu/scenarios/$s.sh)" >&2; exit 2; }
done
[ -x "$RTAGENT" ] || { echo "run.sh: no rtagent binary at $RTAGENT (build it, or pass --rtagent PATH)" >&2; exit 2; }
RTAGENT=$(cd "$(dirname "$RTAGENT")" && pwd)/$(basename "$RTAGENT")
[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d "${TMPDIR:-/tmp}/rtagent-qemu.XXXXXX")
mkdir -p "$OUTDIR"
T0=$(date +%s)

header() { sed -n "s/^# $2: *//p" "$HERE/scenarios/$1.sh" | head -1; }

# 1. qemu, busybox-static and the kernels of each architecture the scenarios need
declare -A KDIR INITRD
for arch in amd64 arm64; do
  need=0
  for s in "${SCENARIOS[@]}"; do a=$(header "$s" arch); [ "${a:-amd64}" = $arch ] && need=1; done
  [ $need = 1 ] || continue
  if [ $arch = arm64 ]; then
    [ -f "$DEB" ] || { echo "run.sh: an arm64 scenario needs --deb rtagent_<version>_arm64.deb (tests/package/build-and-check.sh --arch arm64)" >&2; exit 2; }
    DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")
  fi
  KOUT=$("$HERE/fetch-kernels.sh" --arch $arch) ; frc=$?
  if [ $frc != 0 ]; then
    if [ $frc = 77 ]; then echo "run.sh: SKIPPED: qemu or Debian's $arch kernels cannot be obtained (see above)"; exit 77; fi
    echo "run.sh: fetch-kernels.sh --arch $arch failed (exit $frc)"; exit 1
  fi
  # amd64 kernels are "rt" and "stock"; arm64's "arm64-rt"
  while read -r flavour dir; do
    if [ $arch = amd64 ]; then KDIR[$flavour]=$dir; else KDIR[$arch-$flavour]=$dir; fi
  done <<< "$KOUT"
done

passed=0 failed=0 skipped=0 summary=()
: > "$OUTDIR/facts.txt"
for s in "${SCENARIOS[@]}"; do
  flavour=$(header "$s" kernel); flavour=${flavour:-rt}
  arch=$(header "$s" arch); arch=${arch:-amd64}
  [ $arch = amd64 ] || flavour=$arch-$flavour
  if [ -z "${KDIR[$flavour]:-}" ]; then
    summary+=("FAIL $s: unknown kernel '$flavour' (rt or stock; arm64: rt)"); failed=$((failed+1)); continue
  fi
  # 2. one initramfs per kernel (modules differ), built once per run; arm64's is a whole Debian
  #    arm64 with the package to install
  if [ -z "${INITRD[$flavour]:-}" ] && [ $arch = arm64 ]; then
    if base=$("$HERE/debian-base.sh" --arch arm64) &&
       "$HERE/mkinitramfs.sh" -k "${KDIR[$flavour]}" -b "$base" -d "$DEB" -o "$OUTDIR/initramfs-$flavour.cpio"; then
      INITRD[$flavour]=$OUTDIR/initramfs-$flavour.cpio
    else
      summary+=("FAIL $s: debian-base.sh --arch arm64 or mkinitramfs failed"); failed=$((failed+1)); continue
    fi
  fi
  if [ -z "${INITRD[$flavour]:-}" ]; then
    if "$HERE/mkinitramfs.sh" -k "${KDIR[$flavour]}" -r "$RTAGENT" -o "$OUTDIR/initramfs-$flavour.cpio"; then
      INITRD[$flavour]=$OUTDIR/initramfs-$flavour.cpio
    else
      summary+=("FAIL $s: mkinitramfs failed"); failed=$((failed+1)); continue
    fi
  fi
  # 3. boot
  work=$OUTDIR/$s; rm -rf "$work"; mkdir -p "$work"
  disk=$(header "$s" disk)
  [ -n "$disk" ] && truncate -s "$disk" "$work/disk.img"
  qargs=$(header "$s" qemu); qargs=${qargs//@WORK@/$work}
  append=$(header "$s" append)
  if [ "$(header "$s" rootfs)" = debian ]; then
    # A real systemd from a Debian disk (mkrootfs.sh); the initramfs only switches root to it.
    prof=$(header "$s" profile); [ "$prof" = none ] || prof=${prof:+$REPO/$prof}
    variant=$(header "$s" base)
    if ! "$HERE/mkrootfs.sh" -r "$RTAGENT" -s "$s" -o "$work/root.img" ${prof:+-p "$prof"} ${variant:+-V "$variant"} 2> "$work/mkrootfs.log"; then
      sed 's/^/  | /' "$work/mkrootfs.log" | tail -8
      summary+=("FAIL $s: mkrootfs.sh failed ($work/mkrootfs.log)"); failed=$((failed+1)); continue
    fi
    # One boot, through a snapshot: the image stays as mkrootfs.sh made it, so a guest that froze
    # whole can be booted again from the same start (boot.sh).
    qargs="$qargs -drive file=$work/root.img,if=none,format=raw,snapshot=on,id=root -device virtio-blk-pci,drive=root"
    append="$append rtagent.root=vda rw systemd.show_status=0 loglevel=3"
    mods=$(header "$s" modules)
    [ -n "$mods" ] && append="$append rtagent.modules=$(echo $mods | tr ' ' ,)"
  fi
  [ "$STRICT" = 1 ] && append="$append rtagent.strict=1"
  boots=$(header "$s" boots); boots=${boots:-1}
  mon=; [ "$(header "$s" monitor)" = qmp ] && mon=-M
  loader=$(header "$s" bootdisk)
  t=$(date +%s.%N)
  if [ -n "$loader" ]; then
    # Through a real boot loader: the cached disk (made once by an installer boot of this
    # kernel and initramfs) written to only through a snapshot, and the harness disk of this run.
    # A boot from the disk runs SeaBIOS, GRUB, Debian's initramfs and a whole systemd: twice
    # the per-boot time of a direct boot by default. The guest learns when the host will stop it
    # from the harness disk (its hang report, mkharness.sh -d).
    run_tmo=$(( boots * ${RTAGENT_QEMU_TIMEOUT:-480} ))
    if ! base=$("$HERE/mkbootdisk.sh" -l "$loader" -k "${KDIR[$flavour]}" -i "${INITRD[$flavour]}" 2> "$work/mkbootdisk.log") \
       || ! "$HERE/mkharness.sh" -r "$RTAGENT" -s "$s" -o "$work/harness.img" $([ "$STRICT" = 1 ] && echo -S) \
              -d $(( $(date +%s) + run_tmo )) 2>> "$work/mkbootdisk.log"; then
      sed 's/^/  | /' "$work/mkbootdisk.log" | tail -12
      summary+=("FAIL $s: mkbootdisk.sh or mkharness.sh failed ($work/mkbootdisk.log)"); failed=$((failed+1)); continue
    fi
    echo "--- $s (kernel $flavour through $loader: $(basename "$base"))"
    "$HERE/boot.sh" -D $mon -s "$s" -l "$work/console.log" -t $run_tmo \
        -q "-drive file=$base,if=none,format=raw,snapshot=on,id=root -device virtio-blk-pci,drive=root,bootindex=0
            -drive file=$work/harness.img,if=none,format=raw,readonly=on,id=harness -device virtio-blk-pci,drive=harness" \
        > "$work/result.txt"
  else
    echo "--- $s (kernel $flavour: $(basename "${KDIR[$flavour]}"))"
    tmo=$(header "$s" timeout)
    # A Debian disk boots a whole systemd under TCG: 480 s, as a boot-loader boot gets. At 240 s
    # rt-irqbalance was cut off mid-run, still passing, while two compilers shared the CPUs.
    [ -n "$tmo" ] || [ "$(header "$s" rootfs)" != debian ] || tmo=480
    noiso=; [ "$(header "$s" isolation)" = none ] && noiso=-N
    "$HERE/boot.sh" -A $arch -k "${KDIR[$flavour]}" -i "${INITRD[$flavour]}" -s "$s" -l "$work/console.log" \
        -a "$append" -q "$qargs" -t "${RTAGENT_QEMU_TIMEOUT:-${tmo:-240}}" $noiso $mon > "$work/result.txt"
  fi
  rc=$?
  secs=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  # Files a scenario hands to the host: each "ARTIFACT NAME TEXT" line appends TEXT to $work/NAME,
  # as it was (its leading and trailing blanks kept: a JSON file's indentation is part of it).
  grep '^ARTIFACT ' "$work/result.txt" | while IFS= read -r line; do
    rest=${line#ARTIFACT }; name=${rest%% *}; text=${rest#"$name"}; text=${text# }
    printf '%s\n' "$text" >> "$work/$name"
  done
  # A step on the host after the boot (# host-after: SCRIPT, in tests/qemu/host/): its
  # PASS/FAIL/SKIP/FACT lines count as the scenario's.
  after=$(header "$s" host-after)
  [ -n "$after" ] && "$HERE/host/$after" "$OUTDIR" "$RTAGENT" >> "$work/result.txt" 2>&1
  grep -v '^ARTIFACT ' "$work/result.txt"
  sed -n "s/^FACT /$s /p" "$work/result.txt" >> "$OUTDIR/facts.txt"
  np=$(grep -c '^PASS ' "$work/result.txt"); nf=$(grep -c '^FAIL ' "$work/result.txt"); ns=$(grep -c '^SKIP ' "$work/result.txt")
  if [ $rc = 0 ] && [ "$nf" = 0 ] && [ "$np" -gt 0 ]; then
    summary+=("PASS $s: $np checks passed, $ns skipped (${secs}s)"); passed=$((passed+1))
  elif [ $rc = 0 ] && [ "$nf" = 0 ] && [ "$ns" -gt 0 ]; then
    summary+=("SKIP $s: every check is pending ($ns skipped: rtagent commands not built yet) (${secs}s)"); skipped=$((skipped+1))
  elif [ $rc = 124 ]; then
    summary+=("FAIL $s: no end marker: hang, panic or timeout (${secs}s; $work/console.log)"); failed=$((failed+1))
  else
    summary+=("FAIL $s: rc=$rc, $nf checks failed: $(grep '^FAIL ' "$work/result.txt" | head -3 | cut -c6- | tr '\n' ';') ($work/console.log)"); failed=$((failed+1))
  fi
done

echo
echo "=== QEMU scenarios ($(( $(date +%s) - T0 ))s, logs in $OUTDIR)"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
