#!/bin/sh
# kernel: rt
# tools: cyclictest
# A real `cyclictest --json=FILE` with -h (rt-tests, copied in from the build machine by
# mkinitramfs.sh's "# tools:" header) on the RT kernel's isolated CPUs, handed to the host as it
# came out (ARTIFACT), and read back in the guest by `rtagent report --from-cyclictest` (issue
# 15: the imports read real files of each tool). tests/imports/cyclictest-rt-qemu-*.json are such
# files, kept for the unit tests. No latency figure is asserted: under TCG every wake-up is the
# emulator's.
. /rtagent/lib.sh
PATH=/usr/local/bin:$PATH   # where mkinitramfs.sh puts a "# tools:" header's programs
if ! command -v cyclictest > /dev/null; then
  skip "cyclictest --json" "no cyclictest in the initramfs (apt-get install rt-tests on the build machine: tools/setup.sh --test)"
  finish
fi
fact cyclictest "$(cyclictest --help 2>&1 | head -1)"

# record NAME ARGS...: one cyclictest run with --json=NAME; the JSON and the -h text on stdout
# are handed to the host as NAME and NAME.txt, and the JSON is read back by rtagent.
record() {
  name=$1; shift
  cyclictest "$@" --json="$OUT/$name" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  rc=$?
  if [ $rc = 0 ]; then pass "cyclictest $* exits 0"; else fail "cyclictest $*" "exit $rc: $(head -3 "$OUT/$name.err" | tr '\n' '|')"; return; fi
  expect_grep "$name: a thread object" '"thread"' "$OUT/$name"
  artifact $name "$OUT/$name"
  # The -h text has a line per bucket: handed over only when short (-h 40000 would be 40,000
  # lines on the serial console, longer than the boot's time limit).
  [ "$(wc -l < "$OUT/$name.txt")" -le 1000 ] && artifact $name.txt "$OUT/$name.txt"
  rt_verdict "import-$name" report --from-cyclictest "$OUT/$name" --json "$OUT/$name.v.json" --md "$OUT/$name.md"
  json_flat "$OUT/$name.v.json" > "$OUT/$name.flat"
  jexpect "$name: the kernel is PREEMPT_RT (uname -v in the file)" "$OUT/$name.flat" host.preempt_rt true
  fact "${name}_import" "$(grep -c . "$OUT/$name") lines; $(grep -m1 'realtime' "$OUT/$name" | tr -d ' ')"
}
# Two threads on the isolated CPUs, a 1 ms period, 3 s, 1 µs buckets up to 400 µs: under TCG
# many wake-ups land past the last bucket (overflows).
record cyclictest-rt-qemu-h400.json -m -p 80 -i 1000 -l 3000 -t 2 -a 2-3 -h 400 -q
# One thread, a 10 ms period and buckets out to 40 ms, wide enough for the emulator.
record cyclictest-rt-qemu-h40000.json -m -p 80 -i 10000 -l 300 -t 1 -a 2 -h 40000 -q
# Without -h cyclictest still writes "histogram": {}: no histogram, so no percentile can be
# read from the file, and rtagent refuses it (exit 2) rather than call every wake-up an overflow.
name=cyclictest-rt-qemu-noh.json
if cyclictest -m -p 80 -i 1000 -l 500 -t 1 -a 2 -q --json="$OUT/$name" > /dev/null 2> "$OUT/$name.err"; then
  artifact $name "$OUT/$name"
  rt_expect "import-$name" 2 report --from-cyclictest "$OUT/$name" --json "$OUT/$name.v.json"
  expect_grep "$name: the error says to run with -h" 'run it with -h' "$OUT/import-$name.err"
else
  fail "cyclictest without -h" "$(head -3 "$OUT/$name.err" | tr '\n' '|')"
fi
finish
