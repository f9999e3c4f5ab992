#!/bin/sh
# kernel: rt
# timeout: 480
# `rtagent bench --quick` and `rtagent bench pi` on Debian's PREEMPT_RT kernel under QEMU
# (issue 14): every phase runs, every figure is labelled a virtual-machine figure, and the PI
# boost shows in tracefs (sched_pi_setprio). The run's JSON lines go to the host for
# `bench --compare` against stock-bench. Never a figure asserted: TCG's times are the emulator's.
. /rtagent/lib.sh
. /rtagent/bench-lib.sh
bench_quick true
bench_pi
finish
