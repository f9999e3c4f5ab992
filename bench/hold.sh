#!/usr/bin/env bash
# The hold daemon over a few minutes on this machine (root): resident memory, CPU time,
# wake-ups per second (voluntary + involuntary context switches from /proc/PID/status) and
# which CPUs it ran on (/proc/PID/task/*/stat field 39, sampled every second).
# Goal (issue 6): under 4 MiB RSS, no measurable CPU, zero wake-ups on isolated CPUs.
#
# usage: sudo bash bench/hold.sh [--rtagent PATH] [--seconds N] [--interval 5s] [--profile FILE]
# Without --profile it holds a small profile: housekeeping CPU 0, the rest isolated, the
# PM QoS note, and reverts everything when it stops. Since issue 19 a tick plans the whole
# profile only when a cheap signal moved (and every --replan-interval): the cost measured is
# mostly quiet ticks; --tick-vs-plan below compares the two kinds on the large tree.
# Prints a Markdown table for docs/performance.md, and on stderr what the resident memory is
# at the end, per mapped file.
#
#        bash bench/hold.sh --tick-vs-plan [--tree DIR] [--runs N]   (no root needed)
# The price of one tick on the large tree (issue 19): a full plan against a tick whose cheap
# signals find nothing changed (build/rtagent_bench_holdtick, CPU time, median of N), on a fresh
# bench/gen_large_sysroot.py tree (or a copy of DIR) with bench/tune-large.yaml's file values in place.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --tick-vs-plan ]; then
  shift
  tree="" runs=5
  while (($#)); do
    case "$1" in
      --tree) tree=$2; shift 2 ;;
      --runs) runs=$2; shift 2 ;;
      *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
  done
  [ -x build/rtagent_bench_holdtick ] || { echo "bench: build/rtagent_bench_holdtick missing: cmake --build build --target rtagent_bench_holdtick" >&2; exit 3; }
  work=$(mktemp -d /tmp/rtagent-holdtick.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  if [ -n "$tree" ]; then cp -a "$tree" "$work/tree"; else python3 bench/gen_large_sysroot.py "$work/tree" >&2; fi
  build/rtagent_bench_holdtick "$work/tree" bench/tune-large.yaml "$runs"
  exit
fi
rtagent=build/rtagent seconds=180 interval=5s profile=""
while (($#)); do
  case "$1" in
    --rtagent) rtagent=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$rtagent" ] || { echo "bench: $rtagent missing; build it first" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "bench: hold needs root (it tunes the live system)" >&2; exit 3; }
[ -e /run/rtagent/journal.json ] && { echo "bench: /run/rtagent/journal.json exists (an earlier apply); not touching it" >&2; exit 3; }

work=$(mktemp -d /tmp/rtagent-hold-bench.XXXXXX)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  "$rtagent" revert >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

ncpu=$(nproc --all)
if [ -z "$profile" ]; then
  profile=$work/bench.yaml
  isolated="1-$((ncpu - 1))"
  [ "$ncpu" -gt 1 ] || { echo "bench: needs two CPUs" >&2; exit 3; }
  cat > "$profile" <<YAML
version: 1
name: hold-bench
cores:
  housekeeping: 0
  isolated: $isolated
  runtime:
    workqueue_cpumask: keep
    default_smp_affinity: keep
irqs:
  default: keep                 # some VMs refuse IRQ moves with EPERM; the watch plans them anyway
power:
  cpu_dma_latency_us: 0
service:
  on_stop: revert
  watch_interval: $interval
YAML
fi

"$rtagent" hold "$profile" 2> "$work/hold.log" &
pid=$!
for _ in $(seq 600); do
  grep -q '"state": "holding"' /run/rtagent/state.json 2>/dev/null && grep -q "\"pid\": $pid" /run/rtagent/state.json && break
  sleep 0.1
done
grep -q '"state": "holding"' /run/rtagent/state.json || { cat "$work/hold.log" >&2; echo "bench: hold did not start" >&2; exit 1; }
echo "holding (pid $pid); sampling for ${seconds}s ..." >&2

read_status() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$pid/status"; }
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"; }  # utime + stime
hz=$(getconf CLK_TCK)
vol0=$(read_status voluntary_ctxt_switches); nvol0=$(read_status nonvoluntary_ctxt_switches); t0=$(cpu_ticks)
max_rss=0
declare -A ran_on
for _ in $(seq "$seconds"); do
  sleep 1
  rss=$(read_status VmRSS)
  (( rss > max_rss )) && max_rss=$rss
  for s in /proc/$pid/task/*/stat; do
    c=$(awk '{ sub(/^.*\) /, ""); print $37 }' "$s")  # field 39: the CPU it last ran on
    ran_on[$c]=1
  done
done
vol1=$(read_status voluntary_ctxt_switches); nvol1=$(read_status nonvoluntary_ctxt_switches); t1=$(cpu_ticks)
rss=$(read_status VmRSS)
anon=$(read_status RssAnon)
pss=$(awk '$1 == "Pss:" {print $2}' "/proc/$pid/smaps_rollup")  # shared pages divided by their sharers
allowed=$(read_status Cpus_allowed_list)
state_ticks=$(python3 -c "import json;print(json.load(open('/run/rtagent/state.json'))['ticks'])")
tick_us=$(python3 -c "import json;print(json.load(open('/run/rtagent/state.json'))['last_tick_us'])")
# What the resident memory is, per file (stderr): Rss and its anonymous (copy-on-write) part.
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6 ? $6 : "[anon]"); n = split(name, parts, "/"); name = parts[n] }
     $1 == "Rss:" { rss[name] += $2 } $1 == "Anonymous:" { anon[name] += $2 }
     END { for (m in rss) if (rss[m] > 0) printf "%8d kB %6d kB anon  %s\n", rss[m], anon[m], m }' \
  "/proc/$pid/smaps" | sort -rn >&2
kill -TERM "$pid"; wait "$pid" || true; pid=""

cpus_seen=$(printf '%s\n' "${!ran_on[@]}" | sort -n | paste -sd, -)
python3 - "$seconds" "$rss" "$max_rss" "$((t1 - t0))" "$hz" "$((vol1 - vol0))" "$((nvol1 - nvol0))" \
  "$cpus_seen" "$allowed" "$interval" "$state_ticks" "$tick_us" "$ncpu" "$anon" "$pss" <<'PY'
import sys
secs, rss, max_rss, ticks_cpu, hz, vol, nvol, seen, allowed, interval, state_ticks, tick_us, ncpu, anon, pss = sys.argv[1:16]
secs = int(secs); cpu_ms = int(ticks_cpu) * 1000 / int(hz)
# Ticks inside the sampled window, from the interval: the state file's count lags by up to a
# minute (it is rewritten once a minute when nothing drifts) and counts ticks before the window.
iv = float(interval[:-2]) / 1000 if interval.endswith("ms") else float(interval[:-1])
ticks = int(secs // iv)
print(f"state file: {state_ticks} ticks since start; {ticks} in the sampled window", file=sys.stderr)
mib = lambda kb: f"{int(kb)/1024:.2f}"
print("| run | watch interval | RSS (max) | of which anonymous | PSS | CPU time | CPU share | CPU per tick | wake-ups/s (vol + invol) | ran on CPUs | allowed | last tick (wall) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
print(f"| {secs} s, {ncpu} CPUs, {ticks} ticks | {interval} | {mib(rss)} MiB ({mib(max_rss)}) | {mib(anon)} MiB | {mib(pss)} MiB | {cpu_ms:.0f} ms "
      f"| {cpu_ms / (secs * 10):.3f} % | {cpu_ms / max(int(ticks), 1):.1f} ms | {(int(vol) + int(nvol)) / secs:.2f} ({vol} + {nvol}) | {seen} | {allowed} | {int(tick_us)/1000:.1f} ms |")
PY
