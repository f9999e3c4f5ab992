#!/bin/bash
# ctest entry for the QEMU end-to-end scenarios.
#
#   tests/qemu/ctest.sh [--boot-loader | --arm64] [RTAGENT_BINARY]   (default: $RTAGENT_BIN, else build/rtagent)
#
# Without --boot-loader (ctest's qemu_e2e): every scenario whose kernel QEMU starts itself.
# With it (qemu_e2e_boot_loader): the scenarios that boot through a boot loader from a disk
# (header `# bootdisk:`), which reboot the guest (tests/qemu/run.sh). With --arm64
# (qemu_e2e_arm64): the aarch64 scenarios (header `# arch: arm64`) with the arm64 package
# cross-built first by tests/package/build-and-check.sh --arch arm64. Exit 0 all passed, 1 a
# scenario failed, and 77 (map it with SKIP_RETURN_CODE 77) only when QEMU, Debian's kernels or
# the base system cannot be obtained; then it says why, loudly. Logs: $RTAGENT_QEMU_OUT,
# default a fresh /tmp/rtagent-qemu.* folder.
HERE=$(cd "$(dirname "$0")" && pwd)
boot_loader=0 arm64=0
[ "${1:-}" = --boot-loader ] && { boot_loader=1; shift; }
[ "${1:-}" = --arm64 ] && { arm64=1; shift; }
# Every rtagent command is built: a "not built yet" answer is a failure here (--strict).
args=(--strict)
[ -n "${1:-}" ] && args+=(--rtagent "$1")
if [ $arm64 = 1 ] && [ "${RTAGENT_QEMU_ARM64:-0}" != 1 ]; then
  # Not in CI's default run yet: from a fresh machine the arm64 chroot (6 min), the cross-build
  # and the arm64 Debian base made inside an emulated arm64 guest (21 min) do not fit CI's hour
  # (docs/qemu.md, "aarch64").
  echo "ctest: SKIPPED: qemu_e2e_arm64 runs only with RTAGENT_QEMU_ARM64=1 (docs/qemu.md, \"aarch64\")"
  exit 77
fi
if [ $arm64 = 1 ]; then
  t=$SECONDS
  pkg_out=$("$HERE/../package/build-and-check.sh" --arch arm64 2>&1); prc=$?
  printf '%s
' "$pkg_out"
  [ $prc = 77 ] && { echo "ctest: SKIPPED: the arm64 package cannot be cross-built here (above)"; exit 77; }
  [ $prc = 0 ] || { echo "ctest: FAIL: the arm64 package did not build (above)"; exit 1; }
  deb=$(ls "${RTAGENT_PACKAGE_WORKDIR:-${TMPDIR:-/tmp}/rtagent-package}-arm64"/rtagent_*_arm64.deb | head -1)
  echo "ctest: $deb cross-built and checked in $((SECONDS - t)) s"
  args+=(--deb "$deb")
fi
for f in "$HERE"/scenarios/*.sh; do
  if grep -q '^# bootdisk:' "$f"; then on=1; else on=0; fi
  if grep -q '^# arch: arm64' "$f"; then a=1; else a=0; fi
  [ $on = $boot_loader ] && [ $a = $arm64 ] || continue
  # "# opt-in: VAR": a scenario too long for CI's hour runs only with VAR=1 in the environment.
  optin=$(sed -n 's/^# opt-in: *//p' "$f" | head -1)
  if [ -n "$optin" ] && [ "${!optin:-0}" != 1 ]; then
    echo "ctest: $(basename "$f" .sh) left out: it runs only with $optin=1 (docs/qemu.md)"
    continue
  fi
  args+=("$(basename "$f" .sh)")
done
"$HERE/run.sh" "${args[@]}"
rc=$?
if [ $rc = 77 ]; then
  echo "************************************************************************"
  echo "* QEMU END-TO-END SCENARIOS SKIPPED: qemu-system-x86, busybox-static,    *"
  echo "* Debian's linux-image-rt-amd64 / linux-image-amd64 or debootstrap could *"
  echo "* not be had (reason above). Nothing was tested on a real PREEMPT_RT     *"
  echo "* kernel.                                                                *"
  echo "************************************************************************"
fi
exit $rc
