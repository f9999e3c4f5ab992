#!/bin/sh
# kernel: stock
# timeout: 960
# opt-in: RTAGENT_QEMU_STOCK_BENCH
# host-after: bench-compare.sh
# rt-bench's twin on Debian's stock kernel; afterwards, on the host, `rtagent bench --compare`
# of the two runs (tests/qemu/host/bench-compare.sh).
. /rtagent/lib.sh
. /rtagent/bench-lib.sh
BENCH_LIMIT=600
bench_quick false
bench_pi
finish
