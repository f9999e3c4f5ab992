#!/bin/bash
# After stock-bench, on the host: `rtagent bench --compare` of rt-bench's and stock-bench's runs
# (the JSON lines they handed over as ARTIFACT lines). Prints PASS/FAIL/SKIP/FACT lines that
# count as stock-bench's.  Usage: bench-compare.sh OUTDIR RTAGENT
OUT=$1 RTAGENT=$2
a=$OUT/rt-bench/bench.jsonl b=$OUT/stock-bench/bench.jsonl
if [ ! -s "$a" ] || [ ! -s "$b" ]; then
  echo "SKIP bench compare: needs both rt-bench and stock-bench in this run"
  exit 0
fi
"$RTAGENT" bench --compare "$a" "$b" > "$OUT/bench-compare.md" 2>&1
rc=$?
if [ $rc = 0 ]; then echo "PASS bench --compare of the RT and the stock run exits 0"; else echo "FAIL bench --compare: exit $rc: $(head -3 "$OUT/bench-compare.md" | tr '\n' '|')"; exit 0; fi
if grep -q '^| PREEMPT_RT | yes | no |$' "$OUT/bench-compare.md"; then echo "PASS compare: A is PREEMPT_RT, B is not"; else echo "FAIL compare: the PREEMPT_RT row"; fi
for phase in idle lower equal; do
  if grep -q "^## $phase\$" "$OUT/bench-compare.md"; then echo "PASS compare: a $phase table"; else echo "FAIL compare: no $phase table"; fi
done
echo "FACT bench_compare: $OUT/bench-compare.md"
grep -E '^\| (a real system call|thread to thread switch|pipe \(thread\)|periodic timer every 2 ms)' "$OUT/bench-compare.md" | head -8 | sed 's/^/INFO /'
