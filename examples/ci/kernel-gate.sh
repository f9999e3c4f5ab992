#!/bin/bash
# The kernel gate: is the candidate kernel (or image) at least as good as the baseline?
# Compares two verdicts of the same acceptance run (rtagent accept --json on each kernel, same
# profile, same board or the same virtual machine) with `rtagent diff` and writes the result for
# the CI system: gate.md (shown in the log), gate.json, gate.junit.xml in OUTDIR.
#
#   examples/ci/kernel-gate.sh BASELINE.json CANDIDATE.json [OUTDIR]
#
# Environment:
#   RTAGENT             the rtagent binary (default: rtagent on PATH)
#   GATE_TOLERANCE      --tolerance for diff, e.g. "max=10%,p99=5%" (default: diff's own,
#                       10 % or 5 µs per statistic, right for a board). Under an emulator the
#                       figures are the emulator's: widen it (tests/qemu/host/kernel-gate.sh).
#   GATE_REQUIRE_SAME   facts that must match, default "profile" (a different profile is not a
#                       kernel change; exit 2). Add "host" when both runs must be the same board.
# Exit: 0 no regression, 1 regression (named in gate.md and as failed JUnit cases),
#       2 the verdicts cannot be compared (unreadable, different profile), 3 rtagent missing.
set -uo pipefail
base=${1:?usage: kernel-gate.sh BASELINE.json CANDIDATE.json [OUTDIR]}
cand=${2:?usage: kernel-gate.sh BASELINE.json CANDIDATE.json [OUTDIR]}
out=${3:-.}
rt=${RTAGENT:-rtagent}
command -v "$rt" >/dev/null 2>&1 || { echo "kernel-gate: $rt not found (set RTAGENT)" >&2; exit 3; }
mkdir -p "$out"
args=(diff --require-same "${GATE_REQUIRE_SAME:-profile}" --junit "$out/gate.junit.xml")
[ -n "${GATE_TOLERANCE:-}" ] && args+=(--tolerance "$GATE_TOLERANCE")
"$rt" "${args[@]}" "$base" "$cand" > "$out/gate.md"
rc=$?
"$rt" diff --json --require-same "${GATE_REQUIRE_SAME:-profile}" ${GATE_TOLERANCE:+--tolerance "$GATE_TOLERANCE"} \
  "$base" "$cand" > "$out/gate.json" 2>/dev/null
cat "$out/gate.md"
case $rc in
  0) echo "kernel-gate: PASS: no regression against the baseline" ;;
  1) echo "kernel-gate: FAIL: regression against the baseline (above, and $out/gate.junit.xml)" ;;
  *) echo "kernel-gate: ERROR: the verdicts cannot be compared (exit $rc)" ;;
esac
exit $rc
