#!/bin/sh
# kernel: rt
# The whole apply loop on the PREEMPT_RT kernel (issue 7, scenario 1): a profile written here
# (housekeeping 0-1, isolated 2-3, IRQs to housekeeping, irq/4-ttyS0 to FIFO 60 on 0-1, a
# `sleep 1000` to FIFO 55 by cmdline, an isolated cgroup v2 partition "rt" on 2-3, the
# workqueue mask, cpuidle when present; memory left alone: no THP on RT). validate, plan,
# apply, read back from the kernel files, verify, drift, verify fails, revert, read back.
. /rtagent/lib.sh
. /rtagent/apply-lib.sh

if [ -e /sys/kernel/mm/transparent_hugepage ]; then info "THP present on this RT kernel"; else pass "no THP on the RT kernel (memory left alone)"; fi
apply_loop ""
finish
