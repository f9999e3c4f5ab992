#!/usr/bin/env bash
# Builds the whole suite with AddressSanitizer and UndefinedBehaviorSanitizer and runs the
# hermetic ctest set there (docs/reliability.md, "Sanitizers"). Any report fails: ASan and
# LeakSanitizer exit non-zero, UBSan stops at the first error (-fno-sanitize-recover=all).
#
#   tools/sanitize.sh [--build-dir DIR] [-- CTEST_ARGS...]
#     --build-dir DIR  default build-asan (-DRTAGENT_SANITIZE=ON, the compiler cmake picks: gcc).
#                      CI passes build-fuzz: tools/fuzz.sh has already compiled every library
#                      there with clang and the same sanitizers (plus libFuzzer's coverage
#                      counters, which do nothing without libFuzzer), so only the CLI, the
#                      daemon and the tests are left to compile.
#     CTEST_ARGS       default: -L hermetic
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
ctest_args=(-L hermetic)
while (($#)); do
  case "$1" in
    --build-dir) dir="$2"; shift 2 ;;
    --) shift; ctest_args=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "sanitize: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
((jobs > 2)) && jobs=2

t0=$SECONDS
if [ ! -f "$dir/CMakeCache.txt" ]; then
  # -O1: fast enough to run, quick to compile (ASan's own advice); -g1: line numbers in reports.
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DRTAGENT_SANITIZE=ON >/dev/null
fi
if ! grep -qE '^RTAGENT_(SANITIZE|FUZZ):BOOL=ON' "$dir/CMakeCache.txt"; then
  echo "sanitize: $dir is not a sanitizer build (-DRTAGENT_SANITIZE=ON or -DRTAGENT_FUZZ=ON)" >&2
  exit 2
fi
# What the hermetic cases run: the CLI, the test binary, the man pages, and the write floor's
# replayer (bench_write_floor).
cmake --build "$dir" -j"$jobs" --target rtagent rtagent_tests rtagent_man rtagent_bench_writefloor >"$dir/sanitize-build.log" 2>&1 || {
  tail -n 40 "$dir/sanitize-build.log" >&2
  echo "sanitize: the build of $dir failed (log: $dir/sanitize-build.log)" >&2
  exit 1
}
echo "sanitize: build of $dir took $((SECONDS - t0)) s"
t1=$SECONDS
# The reports go to the test's output (ctest --output-on-failure shows them).
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
rc=0
ctest --test-dir "$dir" "${ctest_args[@]}" -j"$jobs" --output-on-failure || rc=$?
echo "sanitize: tests took $((SECONDS - t1)) s"
exit $rc
