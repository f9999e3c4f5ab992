#!/usr/bin/env bash
# The benchmark scripts' argument errors, as a user meets them: an unknown option is exit 2
# naming it, a binary that is not there is exit 3 naming it, and live_threads.sh refuses a count
# that is not a whole number (exit 2) before it starts a thread. None of them measures anything
# here: each stops before its first run.
set -uo pipefail
src=$1
fail=0
expect() {  # expect CODE TEXT COMMAND...: the command exits CODE and its stderr contains TEXT
  local code=$1 text=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$code" ] || [[ "$err" != *"$text"* ]]; then
    echo "FAIL: $* -> exit $rc, stderr: $err (expected exit $code and \"$text\")"
    fail=1
  else
    echo "ok: $* -> exit $rc: $err"
  fi
}
missing=/nonexistent/rtagent
for s in hold inspect_verify live_threads run sampler_vs_cyclictest startup tune; do
  expect 2 "unknown argument --no-such-option" bash "$src/bench/$s.sh" --no-such-option
done
expect 2 "unknown argument --no-such-option" bash "$src/bench/hold.sh" --tick-vs-plan --no-such-option
for s in hold inspect_verify live_threads startup tune; do
  expect 3 "$missing missing" bash "$src/bench/$s.sh" --rtagent "$missing"
done
if [ "$(id -u)" = 0 ]; then
  expect 3 "$missing missing" bash "$src/bench/sampler_vs_cyclictest.sh" --rtagent "$missing"
else
  expect 3 "needs root" bash "$src/bench/sampler_vs_cyclictest.sh" --rtagent "$missing"
fi
expect 3 "/nonexistent/baseline missing" bash "$src/bench/live_threads.sh" --baseline /nonexistent/baseline
expect 2 "--threads needs a whole number above 0, not 'many'" bash "$src/bench/live_threads.sh" --threads many
expect 2 "--runs needs a whole number above 0, not '0'" bash "$src/bench/live_threads.sh" --runs 0
exit $fail
