#!/usr/bin/env bash
# Start-up (issue 19): `rtagent --version` and `rtagent validate` of the built-in default profile,
# wall time by hyperfine and peak RSS by GNU time, beside four references measured in the same
# run: a C program that does nothing (`true`, the floor of exec + the dynamic loader), a C++
# program that prints one std::string (the floor of any C++ program linked as Debian links
# them, against the shared libstdc++), an empty program linked to rtagent's own shared
# libraries (the floor any rtagent start-up pays), and cyclictest --help (rt-tests: a small C
# tool with libnuma and libc), so the figures say how much of rtagent's start-up is its own.
# At each command's exit, a preloaded library copies /proc/self/smaps_rollup: its Pss (each
# shared page divided among the processes that map it) and Private_Dirty (the pages this
# process alone wrote: its heap, stack, relocated data; what the kernel cannot drop or share)
# split the RSS into what the program itself costs and the library pages every program shares.
#
# With a static build (CMake option RTAGENT_STATIC_LIBS, docs/packaging.md "One file to copy")
# at build-static/rtagent, or named by --static, its --version and validate are measured too.
#
# usage: bash bench/startup.sh [--rtagent PATH] [--static PATH] [--runs N]
# Prints a Markdown table for docs/performance.md; hyperfine comes from apt when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rtagent=build/rtagent static=build-static/rtagent runs=200
while (($#)); do
  case "$1" in
    --rtagent) rtagent=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --static) static=$2; shift 2 ;;
    *) echo "startup: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$rtagent" ] || { echo "startup: $rtagent missing; run bash tools/setup.sh first" >&2; exit 3; }
if ! command -v hyperfine >/dev/null; then
  apt-get install -y -qq hyperfine >/dev/null || { echo "startup: hyperfine is needed (apt-get install hyperfine)" >&2; exit 3; }
fi
true_bin=$(type -P true)  # the program, not the shell builtin
# The library floor: a program that does nothing, linked to the very shared libraries rtagent
# names (its DT_NEEDED list), so the loader maps and relocates the same set.
needed=$(readelf -d "$rtagent" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
cyclictest=$(command -v cyclictest || true)

work=$(mktemp -d /tmp/rtagent-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Each command as it is measured: name, then the argv (a tab between the words keeps it exact).
printf 'int main() { return 0; }\n' > "$work/empty.cc"
printf '#include <cstdio>\n#include <string>\nint main(int argc, char**) { std::string s = "rtagent 0.1.0"; if (argc > 9) s += "+"; std::puts(s.c_str()); }\n' > "$work/hello.cc"
g++ -O2 "$work/hello.cc" -o "$work/cxx-hello"
# The preload: at exit (its destructor runs after the program's own), /proc/self/smaps_rollup
# to $RTAGENT_BENCH_SMAPS. Loading it costs about 0.3 MiB at exit on `true` and nothing visible
# on the others (docs/performance.md, "What 4 MiB leaves").
cat > "$work/smaps_at_exit.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((destructor)) static void smaps_at_exit(void) {
  const char* out = getenv("RTAGENT_BENCH_SMAPS");
  if (!out) return;
  int in = open("/proc/self/smaps_rollup", O_RDONLY), to = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char buf[4096];
  ssize_t n;
  while (in >= 0 && to >= 0 && (n = read(in, buf, sizeof buf)) > 0) (void)!write(to, buf, (size_t)n);
  if (in >= 0) close(in);
  if (to >= 0) close(to);
}
C
gcc -O2 -shared -fPIC "$work/smaps_at_exit.c" -o "$work/smaps_at_exit.so"
link=()
for lib in $needed; do link+=("-l:$lib"); done
g++ -O2 "$work/empty.cc" -o "$work/empty-with-rtagents-libraries" -Wl,--no-as-needed "${link[@]}"
{
  printf 'true (exec floor)\t%s\n' "$true_bin"
  printf 'a C++ program printing one std::string (C++ floor)\t%s\n' "$work/cxx-hello"
  printf 'an empty program with rtagent'"'"'s %s libraries (library floor)\t%s\n' "$(echo $needed | wc -w)" "$work/empty-with-rtagents-libraries"
  [ -n "$cyclictest" ] && printf 'cyclictest --help\t%s\t--help\n' "$cyclictest"
  printf 'rtagent --version\t%s\t--version\n' "$rtagent"
  printf 'rtagent validate (default profile)\t%s\tvalidate\n' "$rtagent"
  if [ -x "$static" ]; then
    printf 'static rtagent --version\t%s\t--version\n' "$static"
    printf 'static rtagent validate (default profile)\t%s\tvalidate\n' "$static"
  fi
} > "$work/commands.tsv"

args=()
while IFS=$'\t' read -r name rest; do
  args+=(--command-name "$name" "${rest//$'\t'/ }")
done < "$work/commands.tsv"
# -N: no shell between hyperfine and the program; -i: cyclictest --help exits non-zero.
hyperfine -N -i --warmup 20 --runs "$runs" --export-json "$work/h.json" "${args[@]}" >&2

# Peak RSS by GNU time (its wait4 of a child that forked from a small C program: a fork from
# Python would count Python's own pages in the child's peak). The median of 21 runs: the same
# program's peak moves by up to 0.5 MiB from run to run here (where the loader places each
# object against the kernel's 64 KiB fault-around windows).
command -v /usr/bin/time >/dev/null 2>&1 || apt-get install -y -qq time >/dev/null
while IFS=$'\t' read -r name rest; do
  read -r -a argv <<< "${rest//$'\t'/ }"
  for _ in $(seq 21); do
    /usr/bin/time -f %M -o "$work/rss" "${argv[@]}" >/dev/null 2>&1 || true
    tail -n 1 "$work/rss"
  done | sort -n | sed -n 11p > "$work/rss.$(printf '%s' "$name" | md5sum | cut -c1-8)"
  # The split at exit, from one more run with the preload.
  RTAGENT_BENCH_SMAPS="$work/smaps.$(printf '%s' "$name" | md5sum | cut -c1-8)" LD_PRELOAD="$work/smaps_at_exit.so" \
    "${argv[@]}" >/dev/null 2>&1 || true
done < "$work/commands.tsv"

python3 - "$work/h.json" "$work/commands.tsv" "$work" <<'PY'
import hashlib, json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
def rollup(path):
    """smaps_rollup's fields in KiB; empty when the program left without running destructors."""
    try:
        return {w[0].rstrip(":"): int(w[1]) for w in (l.split() for l in open(path)) if len(w) == 3 and w[2] == "kB"}
    except OSError:
        return {}

def mib(kib):
    return "?" if kib is None else f"{kib/1024:.1f} MiB"

print("| command | wall time (mean ± sd) | min | peak RSS (median of 21) | at exit: RSS | PSS | private dirty |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[2]):
    name = line.split("\t")[0]
    r = results[name]
    key = hashlib.md5(name.encode()).hexdigest()[:8]
    rss_kib = int(open(f"{sys.argv[3]}/rss.{key}").read())
    m = rollup(f"{sys.argv[3]}/smaps.{key}")
    print(f"| {name} | {r['mean']*1000:.2f} ± {r['stddev']*1000:.2f} ms | {r['min']*1000:.2f} ms | {rss_kib/1024:.1f} MiB"
          f" | {mib(m.get('Rss'))} | {mib(m.get('Pss'))} | {mib(m.get('Private_Dirty'))} |")
PY
