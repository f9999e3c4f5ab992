#!/usr/bin/env bash
# Builds the whole suite with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan,
# -DRTAGENT_SANITIZE=ON: -fsanitize=address,undefined -fno-sanitize-recover=all, with gcc like
# the normal build) and runs the hermetic ctest set there (docs/reliability.md, "Sanitizers").
# Any report fails: ASan and LeakSanitizer exit non-zero, UBSan aborts at the first error.
#
#   tools/sanitize.sh [-- CTEST_ARGS...]     (default: -L hermetic)
set -euo pipefail
cd "$(dirname "$0")/.."
ctest_args=(-L hermetic)
if [ "${1:-}" = "--" ]; then shift; ctest_args=("$@"); fi
jobs=$(nproc)
((jobs > 2)) && jobs=2

t0=$SECONDS
# -O1: ASan's own advice (fast enough to run, quick to compile); -g1: line numbers in reports.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DRTAGENT_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >build-asan/sanitize-build.log 2>&1 || {
  tail -n 40 build-asan/sanitize-build.log >&2
  echo "sanitize: the build of build-asan failed (log: build-asan/sanitize-build.log)" >&2
  exit 1
}
echo "sanitize: build took $((SECONDS - t0)) s"
t1=$SECONDS
# The reports go to the test's output (ctest --output-on-failure shows them); halt at the first.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=0:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
rc=0
ctest --test-dir build-asan "${ctest_args[@]}" -j"$jobs" --output-on-failure || rc=$?
echo "sanitize: tests took $((SECONDS - t1)) s"
exit $rc
