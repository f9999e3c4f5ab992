#!/usr/bin/env bash
# inspect --json of the running system with many threads, two builds side by side (issue 19).
#
# The large tree (bench/gen_large_sysroot.py) measures rtagent on fixture files; this measures
# the live root, where a thread's stat, an IRQ's affinity or a sysfs attribute is a kernel
# file. A helper process holds N threads that sleep (64 KiB stacks), so the walk of
# /proc/PID/task reads N more stat files, as on a server with that many threads. Then:
#   - one traced run of each build (strace -f -c) counts its read(2) and openat(2) calls;
#   - ROUNDS interleaved rounds (a warm-up round first) give each build's CPU time (user +
#     system) and wall time, and the JSON's thread count, which must be the same for both.
# Each figure is the median over the rounds; the ratio is the median of the rounds' own
# ratios, the two builds run back to back in each round. Latencies and times measured on a
# virtual machine are the VM's, not a board's.
#
# usage: bash bench/live_threads.sh [--rtagent PATH] [--baseline PATH] [--threads N] [--runs N]
#   --baseline  the build to compare with (default: none; only --rtagent is measured)
#   --threads   threads the helper holds (default 10000; each costs the kernel a stack)
# Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rtagent=build/rtagent baseline="" threads=10000 runs=7
while (($#)); do
  case "$1" in
    --rtagent) rtagent=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
for n in "--threads:$threads" "--runs:$runs"; do
  [[ "${n#*:}" =~ ^[1-9][0-9]*$ ]] || { echo "bench: ${n%%:*} needs a whole number above 0, not '${n#*:}'" >&2; exit 2; }
done
for bin in "$rtagent" ${baseline:+"$baseline"}; do
  [ -x "$bin" ] || { echo "bench: $bin missing; build it first" >&2; exit 3; }
done
if ! command -v strace >/dev/null; then
  apt-get install -y -qq strace >/dev/null || { echo "bench: strace is needed (apt-get install strace)" >&2; exit 3; }
fi
python3 - "$rtagent" "$baseline" "$threads" "$runs" <<'PY'
import json, os, re, statistics, subprocess, sys, tempfile, time
rtagent, baseline, threads, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
builds = [("this build", rtagent)] + ([("baseline", baseline)] if baseline else [])

# The helper: N threads blocked on one event, until its standard input closes.
HOLD = """
import sys, threading
threading.stack_size(65536)
stop = threading.Event()
ts = [threading.Thread(target=stop.wait, daemon=True) for _ in range(int(sys.argv[1]))]
for t in ts: t.start()
print("ready", flush=True)
sys.stdin.read()
"""
holder = subprocess.Popen([sys.executable, "-c", HOLD, str(threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
try:
    if holder.stdout.readline().strip() != "ready":
        sys.exit("bench: the helper could not start its threads")

    def syscalls(binary):
        """read and openat calls of one run, from strace -c (its table: calls in column 4)."""
        with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
            subprocess.run(["strace", "-f", "-c", "-e", "trace=read,openat", "-o", out.name, binary, "inspect", "--json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            calls = {}
            for line in open(out.name):
                f = line.split()
                if len(f) >= 5 and f[-1] in ("read", "openat"):
                    calls[f[-1]] = int(f[3])
            return calls

    def run(binary):
        """Wall seconds, CPU seconds (user + system), threads in the JSON."""
        t0 = time.monotonic()
        p = subprocess.Popen([binary, "inspect", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        if status != 0:
            sys.exit(f"bench: {binary} inspect --json failed ({status})")
        return wall, ru.ru_utime + ru.ru_stime, json.loads(out)["threads"]["threads"]

    counts = {name: syscalls(b) for name, b in builds}
    samples = {name: [] for name, _ in builds}
    for round_ in range(runs + 1):
        row = {name: run(b) for name, b in builds}
        if round_ == 0:
            continue  # warm-up: dentries and inodes of the new threads
        for name, v in row.items():
            samples[name].append(v)
        print(f"bench: round {round_}: " + ", ".join(f"{n} {v[1]*1000:.0f} ms CPU" for n, v in row.items()), file=sys.stderr)
finally:
    holder.stdin.close()
    holder.wait()

load = open("/proc/loadavg").read().split()[:3]
print(f"\n`rtagent inspect --json` of this machine with {threads} extra sleeping threads, {runs} interleaved "
      f"rounds (median), load average at the end {' '.join(load)}; a virtual machine's figures\n")
print("| build | threads in the JSON | read calls | openat calls | wall | CPU (user + system) | CPU / baseline's (median of rounds) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, _ in builds:
    s = samples[name]
    ratio = "" if not baseline else f"{statistics.median(a[1] / b[1] for a, b in zip(s, samples['baseline'])):.2f}x"
    threads_seen = sorted({v[2] for v in s})
    print(f"| {name} | {'/'.join(map(str, threads_seen))} | {counts[name].get('read', 0)} | {counts[name].get('openat', 0)} "
          f"| {statistics.median(v[0] for v in s)*1000:.0f} ms | {statistics.median(v[1] for v in s)*1000:.0f} ms | {ratio} |")
PY
