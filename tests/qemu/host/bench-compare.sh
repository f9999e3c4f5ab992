#!/bin/bash
# After stock-bench, on the host: `rtagent bench --compare` of rt-bench's and stock-bench's runs
# (the JSON lines they handed over as ARTIFACT lines). Asserts the shapes a comparison of two
# TCG guests must have, never a figure (under TCG both kernels' times are the emulator's):
# both columns labelled virtual machine, PREEMPT_RT yes against no, a table per phase, and
# the timer-health and thread-switch rows with a figure on each side. Prints PASS/FAIL/SKIP/FACT
# lines that count as stock-bench's.  Usage: bench-compare.sh OUTDIR RTAGENT
OUT=$1 RTAGENT=$2
a=$OUT/rt-bench/bench.jsonl b=$OUT/stock-bench/bench.jsonl md=$OUT/bench-compare.md
if [ ! -s "$a" ] || [ ! -s "$b" ]; then
  echo "SKIP bench compare: needs both rt-bench and stock-bench in this run"
  exit 0
fi
"$RTAGENT" bench --compare "$a" "$b" > "$md" 2>&1
rc=$?
if [ $rc = 0 ]; then echo "PASS bench --compare of the RT and the stock run exits 0"; else echo "FAIL bench --compare: exit $rc: $(head -3 "$md" | tr '\n' '|')"; exit 0; fi
check() {  # check NAME REGEX: one line of the comparison matches
  if grep -Eq "$2" "$md"; then echo "PASS compare: $1"; else echo "FAIL compare: $1: no line matches $2"; fi
}
check "A is PREEMPT_RT, B is not" '^\| PREEMPT_RT \| yes \| no \|$'
check "both runs labelled virtual machine" '^\| virtual machine \| yes.* \| yes.* \|$'
check "the virtual-machine warning" '^> \*\*Virtual machine\*\*'
check "both runs --quick" '^\| run \| --quick \| --quick \|$'
check "a timer-health verdict each side" '^\| timer health \| (OK|COARSE CLOCK) \| (OK|COARSE CLOCK) \|$'
for phase in idle lower equal; do
  check "a $phase table" "^## $phase\$"
done
# A row has A p50, B p50, B/A, A p99, B p99, B/A: a figure in each of the six cells.
fig='[0-9.]+ (ns|µs|us|ms|s)'
ratio='×[0-9.]+'
for row in 'periodic timer every 2 ms: interval error' 'thread to thread switch'; do
  check "$row: p50 and p99 side by side" "^\| $row \| $fig \| $fig \| $ratio \| $fig \| $fig \| $ratio \|$"
done
echo "FACT bench_compare: $md"
grep -E '^\| (PREEMPT_RT|timer health|a real system call|thread to thread switch|pipe \(thread\), 4 B|periodic timer every (2|10) ms)' "$md" | head -16 | sed 's/^/INFO /'
