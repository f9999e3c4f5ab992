#!/bin/bash
# ctest entry for the QEMU end-to-end scenarios.
#
#   tests/qemu/ctest.sh [RTAGENT_BINARY]     (default: $RTAGENT_BIN, else build/rtagent)
#
# Runs every scenario (tests/qemu/run.sh). Exit 0 all passed, 1 a scenario failed, and 77
# (map it with SKIP_RETURN_CODE 77) only when QEMU or Debian's kernels cannot be obtained;
# then it says why, loudly. Logs: $RTAGENT_QEMU_OUT, default a fresh /tmp/rtagent-qemu.* folder.
HERE=$(cd "$(dirname "$0")" && pwd)
# Every rtagent command is built: a "not built yet" answer is a failure here (--strict).
args=(--strict)
[ -n "${1:-}" ] && args+=(--rtagent "$1")
"$HERE/run.sh" "${args[@]}"
rc=$?
if [ $rc = 77 ]; then
  echo "************************************************************************"
  echo "* QEMU END-TO-END SCENARIOS SKIPPED: qemu-system-x86, busybox-static or  *"
  echo "* Debian's linux-image-rt-amd64 / linux-image-amd64 could not be had     *"
  echo "* (reason above). Nothing was tested on a real PREEMPT_RT kernel.        *"
  echo "************************************************************************"
fi
exit $rc
