#!/bin/sh
# kernel: rt
# A real `rtla timerlat hist` (Debian's rtla package, copied in by mkinitramfs.sh when the
# build machine has it) on the RT kernel's isolated CPUs, handed to the host as it came out
# (ARTIFACT), and read back in the guest by `rtagent report --from-rtla` (issue 15: the
# imports read real files of each tool). tests/imports/rtla-6.1-timerlat-hist-qemu*.txt are such
# files, kept for the unit tests. No latency figure is asserted: under TCG every wake-up is
# the emulator's.
. /rtagent/lib.sh
if ! command -v rtla > /dev/null; then
  skip "rtla timerlat hist" "no rtla in the initramfs (apt-get install rtla on the build machine: tools/setup.sh --test)"
  finish
fi
fact rtla "$(rtla timerlat hist --help 2>&1 | head -1)"

# record NAME ARGS...: one rtla run, its output handed to the host as NAME, read back by rtagent.
record() {
  name=$1; shift
  t0=$(cut -d' ' -f1 /proc/uptime)
  rtla timerlat hist "$@" > "$OUT/$name" 2> "$OUT/$name.err"
  rc=$?
  fact "${name}_seconds" "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{printf "%.1f", b-a}') (rtla timerlat hist $*)"
  if [ $rc = 0 ]; then pass "rtla timerlat hist $* exits 0"; else fail "rtla timerlat hist $*" "exit $rc: $(head -3 "$OUT/$name.err" | tr '\n' '|')"; return; fi
  expect_grep "$name: rtla's histogram header" '^# RTLA timerlat histogram' "$OUT/$name"
  expect_grep "$name: a Thr column per CPU" '^Index .*Thr-002' "$OUT/$name"
  artifact $name "$OUT/$name"
  rt_verdict "import-$name" report --from-rtla "$OUT/$name" --json "$OUT/$name.json" --md "$OUT/$name.md"
  json_flat "$OUT/$name.json" > "$OUT/$name.flat"
  jexpect "$name: the kernel is unknown, not stated" "$OUT/$name.flat" host.preempt_rt null
  fact "${name}_import" "$(grep -c . "$OUT/$name") lines; $(grep -m1 '^over:' "$OUT/$name")"
}
# The defaults (1 µs buckets, 256 of them, a 1 ms period) on both isolated CPUs: under TCG most
# wake-ups land past the last bucket, so "over:" carries them.
record rtla-hist-default.txt -c 2-3 -d 5s
# Buckets wide enough for the emulator's tens of milliseconds, at a 10 ms period on CPU 2.
record rtla-hist-e40000.txt -c 2 -E 40000 -p 10000 -d 5s
# The tracer is left as rtla found it.
expect_file "current_tracer back to nop" /sys/kernel/tracing/current_tracer nop
finish
