#!/usr/bin/env bash
# inspect --json and verify against the read-once floor, in one run (issue 19).
#
# One traced run of each command (strace -f -e trace=openat) gives every path under the tree
# it opens; bench/read_files.cc (build/rtagent_bench_readfiles) then opens and reads each of
# those paths once (a directory: lists it once) and does nothing else: that is the floor. The
# floor and rtagent run interleaved, round by round (floor of inspect, inspect, floor of
# verify, verify), so the load of whatever else runs on the machine hits both alike. Each
# figure is the median over the rounds, after one warm-up round; the ratio to read is the median
# of the rounds' own CPU ratios (each command beside the floor run just before it), which a
# spell of a slower machine in the middle of the run does not tilt; beside it, the best run of
# each against the best of its floor.
#
# verify runs with its timed windows off: under --root the tree is a fixture, in which no time
# passes, so the checks that wait a window (interrupts, ranks.spinning/starvation, hwlat,
# clock.resolution) and the priority-inversion experiment are skipped (docs/checks.md,
# CheckEnv::NoLiveTime); what remains reads and compares.
#
# Peak RSS is GNU time's %M for each run (not Python's wait4: see run() below).
#
# usage: bash bench/inspect_verify.sh [--rtagent PATH] [--tree DIR] [--profile YAML] [--runs N]
#   --tree     a tree made by bench/gen_large_sysroot.py (default: generate the 256-CPU,
#              4,096-IRQ, 20,000-thread one in a scratch directory)
#   --profile  the profile verify checks (default bench/tune-large.yaml)
# Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rtagent=build/rtagent tree="" runs=7 profile=bench/tune-large.yaml
while (($#)); do
  case "$1" in
    --rtagent) rtagent=$2; shift 2 ;;
    --tree) tree=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
floor=build/rtagent_bench_readfiles
for bin in "$rtagent" "$floor"; do
  [ -x "$bin" ] || { echo "bench: $bin missing; build it first" >&2; exit 3; }
done
command -v /usr/bin/time >/dev/null 2>&1 || apt-get install -y -qq time >/dev/null ||
  { echo "bench: GNU time is needed (apt-get install time)" >&2; exit 3; }
if ! command -v strace >/dev/null; then
  apt-get install -y -qq strace >/dev/null || { echo "bench: strace is needed (apt-get install strace)" >&2; exit 3; }
fi
work=$(mktemp -d /tmp/rtagent-iv-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$tree" ]; then
  tree=$work/tree
  echo "generating the tree ..." >&2
  python3 bench/gen_large_sysroot.py "$tree" >&2
fi
tree=$(cd "$tree" && pwd)
python3 - "$rtagent" "$floor" "$tree" "$profile" "$runs" "$work" <<'PY'
import os, statistics, subprocess, sys, time
rtagent, floor, tree, profile, runs, work = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
inspect = [rtagent, "inspect", "--json", "--root", tree]
verify = [rtagent, "verify", profile, "--root", tree]

def paths_opened(argv, name):
    """Every path under the tree the command opens, each once, in the order of first opening."""
    trace = os.path.join(work, name + ".strace")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,open", "-o", trace] + argv,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen, opens = {}, 0
    for line in open(trace, errors="replace"):
        q = line.find('"')
        if q < 0:
            continue
        path = line[q + 1:line.find('"', q + 1)]
        if path.startswith(tree + "/"):
            opens += 1
            seen.setdefault(path[len(tree) + 1:], None)
    listing = os.path.join(work, name + ".paths")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in seen))
    return listing, len(seen), opens

RSS_FILE = os.path.join(work, "rss")

def run(argv, stdin=None, stdout=subprocess.DEVNULL):
    """Wall seconds, CPU seconds (user + system), peak RSS in KiB.
    The peak is GNU time's %M, not this process's wait4: a child of Python starts as a copy of
    Python's memory (fork, or vfork's shared one), and the kernel keeps that peak across exec,
    so wait4 here reported this script's own 27 MiB for an inspect of 13 (docs/performance.md).
    The CPU time from wait4 includes GNU time's own, well under a millisecond."""
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", RSS_FILE] + argv, stdin=stdin, stdout=stdout,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    with open(RSS_FILE) as f:
        rss = int(f.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss

lists = {}
for name, argv in (("inspect", inspect), ("verify", verify)):
    lists[name] = paths_opened(argv, name)
    print(f"bench: {name} opens {lists[name][2]} paths under the tree, {lists[name][1]} distinct", file=sys.stderr)
json_path = os.path.join(work, "inspect.json")
with open(json_path, "wb") as out:
    run(inspect, stdout=out)
json_bytes = os.path.getsize(json_path)

def floor_run(name):
    with open(lists[name][0]) as f:
        return run([floor, tree], stdin=f)

samples = {k: [] for k in ("floor-inspect", "inspect", "floor-verify", "verify")}
for round_ in range(runs + 1):
    row = {"floor-inspect": floor_run("inspect"), "inspect": run(inspect),
           "floor-verify": floor_run("verify"), "verify": run(verify)}
    if round_ == 0:
        continue  # warm-up: page cache, dentries
    for k, v in row.items():
        samples[k].append(v)
    print(f"bench: round {round_}: " + ", ".join(f"{k} {v[0]*1000:.0f} ms" for k, v in row.items()), file=sys.stderr)

def med(k, i):
    return statistics.median(s[i] for s in samples[k])

def round_ratio(name, i):
    """The median of each round's own ratio: a command and its floor run back to back, so a
    spell in which the whole machine is slower (a neighbour on the host) hits both alike."""
    return statistics.median(a[i] / b[i] for a, b in zip(samples[name], samples["floor-" + name]))

def best_ratio(name, i):
    """The least disturbed run of each against the least disturbed of its floor."""
    return min(s[i] for s in samples[name]) / min(s[i] for s in samples["floor-" + name])

load = open("/proc/loadavg").read().split()[:3]
print(f"\n{runs} interleaved rounds (median), tree {tree}, load average at the end {' '.join(load)}; "
      f"inspect --json prints {json_bytes} bytes ({json_bytes/1048576:.2f} MiB)\n")
print("| command | distinct paths (opens) | wall | floor wall | wall ratio | CPU | floor CPU | CPU ratio | "
      "**median of the rounds' CPU ratios** | best CPU / best floor CPU | peak RSS | RSS / JSON |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for name in ("inspect", "verify"):
    w, fw = med(name, 0), med("floor-" + name, 0)
    c, fc = med(name, 1), med("floor-" + name, 1)
    rss = med(name, 2)
    print(f"| {name} | {lists[name][1]} ({lists[name][2]}) | {w*1000:.0f} ms | {fw*1000:.0f} ms | {w/fw:.2f}x "
          f"| {c*1000:.0f} ms | {fc*1000:.0f} ms | {c/fc:.2f}x | **{round_ratio(name, 1):.2f}x** | {best_ratio(name, 1):.2f}x | {rss/1024:.1f} MiB "
          f"| {rss*1024/json_bytes:.1f}x |")
PY
