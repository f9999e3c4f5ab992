#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (build-fuzz: clang, -fsanitize=fuzzer,address,undefined
# on the libraries too) and runs each for a bounded time (docs/reliability.md, "Fuzzing").
#
#   tools/fuzz.sh [--ci] [--seconds N] [--jobs N] [TARGET ...]
#     --ci          the budget CI runs: every target for $CI_SECONDS s, two at a time
#     --seconds N   seconds per target (default 60)
#     --jobs N      targets run at once (default: the number of CPUs, at most 2)
#     TARGET        e.g. profile or profile_fuzz; default: every fuzz/*_fuzz.cc
#
# Each target starts from the seeds tools/fuzz_corpus.py gathers from the repository's fixtures
# and from its corpus in $RTAGENT_FUZZ_CORPUS (default /var/cache/rtagent-fuzz/<target>, outside
# the repository), where libFuzzer keeps every input that reached new code, so the corpus grows
# from run to run. A crash, a sanitizer report, a leak, a hang (-timeout) or an out-of-memory
# fails the run; the input is kept in $RTAGENT_FUZZ_CORPUS/artifacts/ and printed with the
# command that replays it. Prints per target: executions, coverage (cov and ft of libFuzzer's
# last status line), inputs in the corpus, and the failures found.
set -euo pipefail
cd "$(dirname "$0")/.."

# CI's budget (.ci/run): 14 targets two at a time, 20 s each (import 60, below), is about
# (13 x 20 + 60) / 2 = 160 s of fuzzing plus the start of each target; the build of build-fuzz from a clean directory takes the rest
# of the ~6 minutes (docs/reliability.md has the measured figures).
CI_SECONDS=20
# Under CI's budget, a target whose corpus takes longer than that to replay never mutates it:
# import's 1,800 inputs took 41 s (each import makes its histograms dense, and under the
# sanitizers and coverage a few million bins take a second), 23 s once the harness stopped
# rendering the largest (fuzz/import_fuzz.cc). It gets 60 s, so about half its run is fuzzing.
declare -A CI_SECONDS_OF=([import]=60)
ci=0
seconds=60
jobs=$(nproc)
((jobs > 2)) && jobs=2
targets=()
while (($#)); do
  case "$1" in
    --ci) seconds=$CI_SECONDS ci=1; shift ;;
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("${1%_fuzz}"); shift ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for f in fuzz/*_fuzz.cc; do t=$(basename "$f" .cc); targets+=("${t%_fuzz}"); done
fi

if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ is missing (apt-get install clang libclang-rt-14-dev; tools/setup.sh --test installs them)" >&2
  exit 3
fi

# The build: the libraries the targets link and the targets, with the sanitizers and coverage.
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  # Ninja when there (tools/setup.sh installs it): a library's files start without waiting
  # for the libraries it links. tools/sanitize.sh --build-dir build-fuzz builds the tests here.
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  CXX=clang++ cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DRTAGENT_FUZZ=ON >/dev/null
fi
build_jobs=$(nproc)
((build_jobs > 2)) && build_jobs=2
cmake --build build-fuzz -j"$build_jobs" --target fuzz_targets >build-fuzz/fuzz-build.log 2>&1 || {
  tail -n 40 build-fuzz/fuzz-build.log >&2
  echo "fuzz: the build of build-fuzz failed (log: build-fuzz/fuzz-build.log)" >&2
  exit 1
}

cache="${RTAGENT_FUZZ_CORPUS:-/var/cache/rtagent-fuzz}"
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/rtagent-fuzz"
  mkdir -p "$cache"
fi
mkdir -p "$cache/artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 tools/fuzz_corpus.py "$work/seeds" >/dev/null

# One target: its corpus first (libFuzzer writes what it finds into the first directory), then
# the seeds. ASan's and UBSan's reports are fatal; leaks are checked after every input.
run_one() {
  local t=$1 bin="build-fuzz/${1}_fuzz" log="$work/$1.log"
  local budget=$seconds
  ((ci)) && [ -n "${CI_SECONDS_OF[$t]:-}" ] && budget=${CI_SECONDS_OF[$t]}
  local args=("$cache/$t" "$work/seeds/$t" -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048
              -max_len=65536 -print_final_stats=1 -artifact_prefix="$cache/artifacts/$t-")
  [ -f "$work/seeds/$t.dict" ] && args+=(-dict="$work/seeds/$t.dict")
  mkdir -p "$cache/$t" "$work/seeds/$t"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$bin" "${args[@]}" >"$log" 2>&1
  echo $? >"$work/$t.rc"
}

start=$SECONDS
running=0
for t in "${targets[@]}"; do
  if [ ! -x "build-fuzz/${t}_fuzz" ]; then echo "fuzz: no target $t (fuzz/${t}_fuzz.cc)" >&2; exit 2; fi
  run_one "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
done
wait || true

failed=0
printf '%-16s %10s %8s %8s %7s %7s  %s\n' target executions cov ft corpus crashes result
for t in "${targets[@]}"; do
  log="$work/$t.log"
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  status=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  corpus=$(find "$cache/$t" -type f | wc -l)
  crashes=$(grep -cE '^==[0-9]+==ERROR|^SUMMARY: (Address|Undefined|Leak)Sanitizer|runtime error:|ALARM: working on the last Unit|out-of-memory|fuzz property broken|deadly signal' "$log" || true)
  result=ok
  if [ "$rc" != 0 ]; then
    result="FAILED (exit $rc)"
    failed=1
    ((crashes == 0)) && crashes=1
  fi
  printf '%-16s %10s %8s %8s %7s %7s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes" "$result"
done
for t in "${targets[@]}"; do
  if [ "$(cat "$work/$t.rc" 2>/dev/null || echo 1)" != 0 ]; then
    echo "---- $t: the end of libFuzzer's output"
    grep -vE '^#[0-9]+|^INFO:|^MS:|^Loaded|^stat::' "$work/$t.log" | tail -n 40
    art=$(grep -o "Test unit written to .*" "$work/$t.log" | tail -n1 | sed 's/Test unit written to //')
    [ -n "$art" ] && echo "replay: build-fuzz/${t}_fuzz $art"
  fi
done
longer=
if ((ci)); then for k in "${!CI_SECONDS_OF[@]}"; do longer+=" ($k: ${CI_SECONDS_OF[$k]} s)"; done; fi
echo "fuzz: ${#targets[@]} targets, $seconds s each$longer, $jobs at a time: $((SECONDS - start)) s of fuzzing; corpus in $cache"
exit $failed
