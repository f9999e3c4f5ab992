#!/usr/bin/env bash
# rtagent's latency sampler against cyclictest (Debian's rt-tests) in one run, alternating,
# with the same interval, priority, measured CPU and load: CPU time per wake-up, memory of the
# measuring process (the one that locks its memory: rtagent's rtagent-sampler child, cyclictest
# itself) and of the whole tool, and the latency distribution (p50, p99, max). Root only.
#
#   ours:       rtagent accept (no pre-flight, no built-in load), its verdict JSON
#   cyclictest: cyclictest -m -t1 -a CPU -p PRIO -i INTERVAL -l N -h LIMIT -q --laptop
#               (--laptop: no PM QoS note of its own, as rtagent's default; -m: mlockall)
#   load:       stress-ng --cpu 1 on the housekeeping CPU for the whole run, both alike
#
# CPU time is the tool's user + system time (GNU time, children included: rtagent's agent and
# its measuring process together) divided by its wake-ups (samples plus skipped periods), so
# each tool's own start-up is counted in. GNU time's peak RSS is its largest process's. The distributions come
# from each tool's own histogram, read by the same code (rtagent report --from-cyclictest).
#
# usage: bash bench/sampler_vs_cyclictest.sh [--rtagent BIN] [--seconds S] [--rounds N]
#        [--cpu C] [--load-cpu C] [--interval US] [--priority P]
# Prints a Markdown table for docs/performance.md. These are virtual-machine figures when run
# on a virtual machine (the table says which).
set -euo pipefail
cd "$(dirname "$0")/.."
rtagent=build/rtagent seconds=30 rounds=3 cpu=1 load_cpu=0 interval=1000 prio=90 limit=2000
while (($#)); do
  case "$1" in
    --rtagent) rtagent=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --load-cpu) load_cpu=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --priority) prio=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench: needs root (SCHED_FIFO, mlockall)" >&2; exit 3; }
[ -x "$rtagent" ] || { echo "bench: $rtagent missing; run bash tools/setup.sh first" >&2; exit 3; }
for tool in cyclictest:rt-tests stress-ng:stress-ng /usr/bin/time:time; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    apt-get install -y -qq "${tool##*:}" >/dev/null || { echo "bench: ${tool##*:} is needed" >&2; exit 3; }
  fi
done

work=$(mktemp -d /tmp/rtagent-bench-sampler.XXXXXX)
load_pid=""
cleanup() {
  [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null && wait "$load_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

loops=$((seconds * 1000000 / interval))
cat > "$work/profile.yaml" <<EOF
name: bench-sampler
cores:
  housekeeping: $load_cpu
  isolated: $cpu
acceptance:
  duration: ${seconds}s
  interval_us: $interval
  priority: $prio
  cpus: $cpu
  histogram_limit_us: $limit
  loads:
    builtin: []
EOF

taskset -c "$load_cpu" stress-ng --cpu 1 --timeout 0 --quiet &
load_pid=$!
sleep 1

# Follows the measuring process (the one that calls mlockall) while `waitpid` runs: the last
# VmHWM and VmLck seen, in kB, into FILE. rtagent measures in its child rtagent-sampler;
# cyclictest measures in itself.
watch_measurer() {  # watch_measurer WAITPID PROCESS_NAME FILE
  local wpid=$1 name=$2 file=$3 mpid hwm=0 lck=0 h l
  while kill -0 "$wpid" 2>/dev/null; do
    mpid=$(pgrep -x "$name" | head -1 || true)
    if [ -n "$mpid" ]; then
      h=$(awk '/^VmHWM:/{print $2}' "/proc/$mpid/status" 2>/dev/null || true)
      l=$(awk '/^VmLck:/{print $2}' "/proc/$mpid/status" 2>/dev/null || true)
      [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
      [ -n "$l" ] && [ "$l" -gt "$lck" ] && lck=$l
    fi
    sleep 0.5
  done
  echo "$hwm $lck" > "$file"
}

for ((i = 1; i <= rounds; i++)); do
  echo "round $i/$rounds: rtagent" >&2
  CI=true /usr/bin/time -f "%U %S %M" -o "$work/ours-$i.time" \
    "$rtagent" accept "$work/profile.yaml" --preflight none --json "$work/ours-$i.json" >/dev/null &
  run_pid=$!
  watch_measurer "$run_pid" rtagent-sampler "$work/ours-$i.mem"
  wait "$run_pid" || true
  echo "round $i/$rounds: cyclictest" >&2
  /usr/bin/time -f "%U %S %M" -o "$work/cyc-$i.time" \
    cyclictest -m -t1 -a "$cpu" -p "$prio" -i "$interval" -l "$loops" -h "$limit" -q --laptop \
    > "$work/cyc-$i.hist" &
  run_pid=$!
  watch_measurer "$run_pid" cyclictest "$work/cyc-$i.mem"
  wait "$run_pid"
  "$rtagent" report --from-cyclictest "$work/cyc-$i.hist" --json "$work/cyc-$i.json" >/dev/null
done

virtual=$(python3 -c 'import json,sys; print("yes" if json.load(open(sys.argv[1]))["host"]["virtual_machine"] else "no")' "$work/ours-1.json")
python3 - "$work" "$rounds" "$seconds" "$interval" "$prio" "$cpu" "$load_cpu" "$virtual" <<'PY'
import json, statistics, sys
work, rounds, seconds, interval, prio, cpu, load_cpu, virtual = sys.argv[1:]
def one(tool, i):
    u, s, rss_kb = open(f"{work}/{tool}-{i}.time").read().split()[-3:]
    hwm_kb, lck_kb = open(f"{work}/{tool}-{i}.mem").read().split()
    v = json.load(open(f"{work}/{tool}-{i}.json"))
    c = v["cpus"][0]
    wakeups = c["stats"]["samples"] + c["stats"].get("skipped_periods", 0)
    pct = {p["quantile"]: p for p in c["stats"]["percentiles"]}
    def us(q):
        p = pct.get(q)
        return "beyond" if p is None or p.get("us") is None else p["us"]
    return {
        "cpu_us_per_wakeup": (float(u) + float(s)) * 1e6 / max(1, wakeups),
        "rss_mib": int(rss_kb) / 1024,
        "measurer_hwm_mib": int(hwm_kb) / 1024, "measurer_lck_mib": int(lck_kb) / 1024,
        "p50": us(0.5), "p99": us(0.99), "max": (c["stats"]["max_ns"] or 0) / 1000, "wakeups": wakeups,
    }
rows = {t: [one(t, i) for i in range(1, int(rounds) + 1)] for t in ("ours", "cyc")}
print(f"{rounds} alternating rounds of {seconds} s each, CPU {cpu}, every {interval} µs, SCHED_FIFO {prio}, "
      f"stress-ng --cpu 1 on CPU {load_cpu}; virtual machine: {virtual}")
print()
print("| tool | wake-ups per round | CPU time per wake-up (µs) | measuring process: peak RSS (VmHWM) | measuring process: locked (VmLck) | whole tool: peak RSS of its largest process | p50 (µs) | p99 (µs) | max (µs) |")
print("|---|---|---|---|---|---|---|---|---|")
names = {"ours": "rtagent accept (sampler)", "cyc": "cyclictest -m (rt-tests)"}
for t, rs in rows.items():
    cpu_us = statistics.median(r["cpu_us_per_wakeup"] for r in rs)
    rss = max(r["rss_mib"] for r in rs)
    hwm = max(r["measurer_hwm_mib"] for r in rs)
    lck = max(r["measurer_lck_mib"] for r in rs)
    maxes = " / ".join(f"{r['max']:.0f}" for r in rs)
    print(f"| {names[t]} | {statistics.median(r['wakeups'] for r in rs):,.0f} | {cpu_us:.2f} (median of {rounds}) "
          f"| {hwm:.1f} MiB | {lck:.1f} MiB | {rss:.1f} MiB | {' / '.join(str(r['p50']) for r in rs)} | {' / '.join(str(r['p99']) for r in rs)} "
          f"| {maxes} |")
PY
