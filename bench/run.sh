#!/usr/bin/env bash
# Benchmarks, compared against a reference in the same run (never timed assertions in tests).
#
#   inspect: `rtagent inspect --json` on a generated 256-CPU / 4,096-IRQ / 20,000-thread tree,
#            against the floor: reading the very same files once (the list comes from
#            `rtagent capture`, which records every file inspect reads); then inspect --json
#            and verify against the floor of every path each opens (bench/inspect_verify.sh).
#   sampler: `rtagent accept`'s sampler against cyclictest -m (bench/sampler_vs_cyclictest.sh).
#   live:    `rtagent inspect --json` of this machine with 10,000 extra threads held by a helper
#            (bench/live_threads.sh; --baseline OLD compares two builds).
#   tune:    `rtagent plan`, `apply` and `revert` with bench/tune-large.yaml on a copy of the
#            same tree: wall time, peak RSS, journal entries (bench/tune.sh).
#   startup: `rtagent --version` and `validate` against their floors (bench/startup.sh).
#   histogram: a long acceptance run's memory: the sampler's histogram fed 1e6, 1e7 and 1e8
#            wake-ups, peak RSS and CPU time per sample at each (bench/histogram_samples.cc).
#
# usage: bash bench/run.sh [--cpus N --irqs N --threads N] [--runs N]
# Needs build/rtagent, build/rtagent_bench_readfiles and build/rtagent_bench_histogram (bash tools/setup.sh), python3, and
# hyperfine (installed with apt-get when missing). Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cpus=256 irqs=4096 threads=20000 runs=10
while (($#)); do
  case "$1" in
    --cpus) cpus=$2; shift 2 ;;
    --irqs) irqs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
for bin in build/rtagent build/rtagent_bench_readfiles build/rtagent_bench_histogram; do
  [ -x "$bin" ] || { echo "bench: $bin missing; run bash tools/setup.sh first" >&2; exit 3; }
done
if ! command -v hyperfine >/dev/null; then
  apt-get install -y -qq hyperfine >/dev/null || { echo "bench: hyperfine is needed (apt-get install hyperfine)" >&2; exit 3; }
fi

work=$(mktemp -d /tmp/rtagent-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
tree=$work/tree
echo "generating the tree ($cpus CPUs, $irqs IRQs, $threads threads) ..." >&2
python3 bench/gen_large_sysroot.py "$tree" --cpus "$cpus" --irqs "$irqs" --threads "$threads" >&2

# The exact files inspect reads: capture records them.
build/rtagent capture --root "$tree" -o "$work/cap" >/dev/null
(cd "$work/cap" && find . -type f ! -name MANIFEST ! -name README.md | sed 's|^\./||') > "$work/files.txt"
nfiles=$(wc -l < "$work/files.txt")
echo "inspect reads $nfiles files" >&2

hyperfine --warmup 2 --runs "$runs" --export-json "$work/h.json" -N \
  --command-name "rtagent inspect --json" "build/rtagent inspect --json --root $tree" \
  --command-name "read the same files once" "sh -c 'build/rtagent_bench_readfiles $tree < $work/files.txt'" >&2

# Peak memory of one inspect run.
rss_kb=$(python3 - "$tree" <<'PY'
import resource, subprocess, sys
subprocess.run(["build/rtagent", "inspect", "--json", "--root", sys.argv[1]], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)

python3 - "$work/h.json" "$nfiles" "$rss_kb" "$cpus" "$irqs" "$threads" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
nfiles, rss, cpus, irqs, threads = sys.argv[2:7]
r = {x["command"]: x for x in h["results"]}
ins, floor = r["rtagent inspect --json"], r["read the same files once"]
print(f"| tree | files read | inspect --json (mean ± sd) | read the files once | ratio | inspect peak RSS |")
print(f"|---|---|---|---|---|---|")
print(f"| {cpus} CPUs, {irqs} IRQs, {threads} threads | {nfiles} | {ins['mean']*1000:.0f} ± {ins['stddev']*1000:.0f} ms "
      f"| {floor['mean']*1000:.0f} ± {floor['stddev']*1000:.0f} ms | {ins['mean']/floor['mean']:.2f}x | {int(rss)/1024:.1f} MiB |")
PY

# inspect --json and verify against the read-once floor of the very paths each opens (strace),
# interleaved with it round by round, with peak RSS against the JSON's size (issue 19).
bash bench/inspect_verify.sh --rtagent build/rtagent --tree "$tree" --runs 5

# inspect --json of this machine with 10,000 extra sleeping threads: the live root's reads of
# kernel files (read and openat calls, CPU time), as on a large server (issue 19).
bash bench/live_threads.sh --rtagent build/rtagent --threads 10000 --runs 5

# plan, apply and revert on a copy of the same tree (issue 3).
bash bench/tune.sh --rtagent build/rtagent --tree "$tree" --runs 3

# Start-up of --version and validate against true, cyclictest --help and the library floor.
bash bench/startup.sh --rtagent build/rtagent

# A long acceptance run's memory from 1e6 to 1e8 samples, without the hours such a run takes:
# the sampler's own histogram fed that many wake-ups, with rare overflows (issue 19).
build/rtagent_bench_histogram

# The hold daemon over a few minutes on this machine (issue 6; root only, it tunes the live
# system and reverts): RSS, CPU time, wake-ups per second and the CPUs it ran on.
if [ "$(id -u)" = 0 ]; then
  bash bench/hold.sh --rtagent build/rtagent
else
  echo "bench: bench/hold.sh skipped (needs root)" >&2
fi

# rtagent's latency sampler against cyclictest (rt-tests), alternating, same interval,
# priority, CPU and load (issue 5; root only): CPU time per wake-up, peak RSS, p50/p99/max.
if [ "$(id -u)" = 0 ]; then
  bash bench/sampler_vs_cyclictest.sh --rtagent build/rtagent
else
  echo "bench: bench/sampler_vs_cyclictest.sh skipped (needs root)" >&2
fi
