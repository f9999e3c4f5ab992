#!/usr/bin/env bash
# Line coverage of the tests, and the error paths no test reaches (docs/reliability.md,
# "Error paths the tests reach"). A developer's tool, not a CI stage: a --coverage build at
# -O0 and the test run in it take about 15 minutes on two vCPUs.
#
#   tools/coverage.sh [--build-dir DIR] [--list] [-- CTEST_ARGS...]
#     --build-dir DIR  default build-cov (gcc, -O0 --coverage, no ccache)
#     --list           print every error site no test reached (file:line and its text)
#     CTEST_ARGS       default: -L hermetic, then -L live when run as root (one case left out:
#                      the one that runs rtagent as nobody)
# Writes DIR/coverage.json (gcovr's JSON) and DIR/coverage.txt (gcovr's summary per file),
# then prints tools/error_paths.py's table. What a forked child runs is counted when the child
# ends through ExitChild (base/child_exit.h: a load's supervisor, a bench peer); a child killed
# by a signal (a load's workers, the spinners) or replaced by exec leaves no counts.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-cov list=() ctest_sets=()
while (($#)); do
  case "$1" in
    --build-dir) dir="$2"; shift 2 ;;
    --list) list=(--list); shift ;;
    --) shift; ctest_sets=("$*"); break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "coverage: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ! command -v gcovr >/dev/null; then
  apt-get install -y -qq gcovr >/dev/null || { echo "coverage: gcovr is needed (apt-get install gcovr)" >&2; exit 3; }
fi
if ((${#ctest_sets[@]} == 0)); then
  ctest_sets=("-L hermetic")
  # Left out: the case that runs rtagent as nobody (setpriv), which cannot write root's count
  # files; libgcov then prints "cannot open *.gcda" into the JSON the case reads.
  ((EUID == 0)) && ctest_sets+=("-L live -E hwlat.without.root")
fi
jobs=$(nproc)
((jobs > 2)) && jobs=2

if [ ! -f "$dir/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
    -DCMAKE_CXX_FLAGS="--coverage -fprofile-update=atomic -DRTAGENT_COVERAGE" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DRTAGENT_CCACHE=OFF >/dev/null
fi
grep -q -- '--coverage' "$dir/CMakeCache.txt" || { echo "coverage: $dir is not a --coverage build" >&2; exit 2; }
t0=$SECONDS
cmake --build "$dir" -j"$jobs" --target rtagent rtagent-sampler rtagent_tests rtagent_man rtagent_bench_writefloor >"$dir/coverage-build.log" 2>&1 || {
  tail -n 40 "$dir/coverage-build.log" >&2
  echo "coverage: the build of $dir failed (log: $dir/coverage-build.log)" >&2
  exit 1
}
echo "coverage: build took $((SECONDS - t0)) s"
find "$dir" -name '*.gcda' -delete  # counts of this run only
t1=$SECONDS
rc=0
: >"$dir/coverage-ctest.log"
for set in "${ctest_sets[@]}"; do
  # shellcheck disable=SC2086  # each set is a list of ctest arguments
  ctest --test-dir "$dir" $set -j"$jobs" --output-on-failure >>"$dir/coverage-ctest.log" 2>&1 || rc=$?
  tail -n 3 "$dir/coverage-ctest.log"
done
echo "coverage: tests took $((SECONDS - t1)) s"
((rc == 0)) || echo "coverage: some tests failed (log: $dir/coverage-ctest.log); the figures count what ran" >&2
gcovr -r . --object-directory "$dir" -f 'src/' -e '.*_test\.cc' -e '.*_test_support\.h' -j"$jobs" \
  --json "$dir/coverage.json" --txt "$dir/coverage.txt" >/dev/null
tail -n 3 "$dir/coverage.txt"
python3 tools/error_paths.py "$dir/coverage.json" "${list[@]}"
exit $rc
