#!/bin/bash
# After stock-accept, on the host: the kernel gate of docs/ci.md (examples/ci/kernel-gate.sh)
# on the verdicts rt-accept and stock-accept handed over. The RT kernel against a second run of
# itself must pass; Debian's stock kernel against the RT baseline must fail, with PREEMPT_RT
# lost named. The tolerance is wide on purpose (1 s on every statistic, as the profile's limits): under TCG each
# wake-up is the emulator's, so this proves the gate's structure (roles, criteria, overflows,
# the kernel's preemption model), not a figure; on a board the defaults apply.
# Usage: kernel-gate.sh OUTDIR RTAGENT. Prints PASS/FAIL/SKIP/FACT lines (stock-accept's).
OUT=$1 RTAGENT=$2
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
if [ -n "${RTAGENT_QEMU_RT_DEB:-}${RTAGENT_QEMU_STOCK_DEB:-}" ]; then
  echo "SKIP kernel gate self-test: your own kernels were booted (RTAGENT_QEMU_*_DEB); run examples/ci/kernel-gate.sh on their verdicts"
  exit 0
fi
base=$OUT/rt-accept/verdict.json again=$OUT/rt-accept/verdict-again.json cand=$OUT/stock-accept/verdict.json
if [ ! -s "$base" ] || [ ! -s "$again" ] || [ ! -s "$cand" ]; then
  echo "SKIP kernel gate: needs rt-accept (both runs) and stock-accept in this run"
  exit 0
fi
export RTAGENT GATE_TOLERANCE="max=1000000us,p99=1000000us,p99.9=1000000us,p99.99=1000000us"
"$REPO/examples/ci/kernel-gate.sh" "$base" "$again" "$OUT/gate-rt-rt" > "$OUT/gate-rt-rt.log" 2>&1
rc=$?
if [ $rc = 0 ]; then echo "PASS gate: the RT kernel against itself passes"; else echo "FAIL gate: RT against RT: exit $rc: $(grep -m3 -i 'regress\|differs\|error' "$OUT/gate-rt-rt.log" | tr '\n' '|')"; fi
"$REPO/examples/ci/kernel-gate.sh" "$base" "$cand" "$OUT/gate-rt-stock" > "$OUT/gate-rt-stock.log" 2>&1
rc=$?
if [ $rc = 1 ]; then echo "PASS gate: the stock kernel against the RT baseline fails (exit 1)"; else echo "FAIL gate: RT against stock: exit $rc, expected 1"; fi
if grep -q 'PREEMPT_RT lost: BEFORE ran .* (PREEMPT_RT), AFTER .* is not a PREEMPT_RT kernel' "$OUT/gate-rt-stock.log"; then
  echo "PASS gate: the regression is named (PREEMPT_RT lost)"
else
  echo "FAIL gate: PREEMPT_RT lost not named in $OUT/gate-rt-stock.log"
fi
if grep -q 'name="PREEMPT_RT kept"' "$OUT/gate-rt-stock/gate.junit.xml" && grep -q '<failure message="PREEMPT_RT lost' "$OUT/gate-rt-stock/gate.junit.xml"; then
  echo "PASS gate: JUnit has the failed case PREEMPT_RT kept"
else
  echo "FAIL gate: JUnit lacks the failed PREEMPT_RT kept case"
fi
echo "FACT gate_rt_stock: $(grep -m1 '^# Latency diff' "$OUT/gate-rt-stock.log"); $(grep -m1 'kernel differs' "$OUT/gate-rt-stock.log")"
