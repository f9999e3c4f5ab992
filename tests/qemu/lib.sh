# Helpers for the scenarios that run inside the QEMU guest (busybox sh).
# Sourced by /rtagent/scenarios/*.sh. Every result is one line on the console:
#   PASS <check>
#   FAIL <check>: <why>
#   SKIP <check>: <why>        (an rtagent command that is not built yet, a file this kernel lacks)
#   FACT <key>: <value>        (what the kernel exposes; run.sh collects these)
#   STEP <name>: rtagent ARGS -> exit N
# `finish` prints "RESULT pass=N fail=M skip=K" and exits 1 when anything failed.
# rtagent.strict=1 on the kernel command line turns "not built yet" into FAIL.

# A scenario that reboots keeps its results on the guest's disk (guest/run-phases.sh sets it).
RESULTS=${RTAGENT_RESULTS:-/tmp/rtagent-results}
OUT=/tmp/out            # rtagent's outputs, one file per step
mkdir -p "$OUT"
: >> "$RESULTS"
STRICT=0
grep -qw rtagent.strict=1 /proc/cmdline && STRICT=1
[ -e /rtagent/strict ] && STRICT=1   # a boot-loader scenario's harness disk (mkharness.sh -S)

pass() { echo "PASS $1"; echo PASS >> "$RESULTS"; }
fail() { echo "FAIL $1: $2"; echo FAIL >> "$RESULTS"; }
skip() { echo "SKIP $1: $2"; echo SKIP >> "$RESULTS"; }
# A check that fails because of a known, documented rtagent bug: shown, not counted as a pass.
knownbug() { echo "XFAIL $1: $2 (known bug, see docs/qemu.md)"; echo KNOWNBUG >> "$RESULTS"; }
fact() { k=$1; shift; echo "FACT $k: $*"; }
info() { echo "INFO $*"; }
# artifact NAME [FILE]: FILE (or standard input) to the host as "ARTIFACT NAME <line>" lines
# (run.sh appends each line to NAME), at most 32 KiB at a time with 0.2 s of quiet between.
# QEMU's 16550 raises an interrupt for every byte it sends, and the PREEMPT_RT kernel's
# threaded 8250 handler takes them with interrupts on, so its spurious-interrupt detector
# counts almost every one as unhandled; 99,900 in a row, with no pause of 0.1 s, and it
# disables the console's IRQ and the guest goes silent for good (docs/qemu.md, "The console's
# IRQ"). A pause starts its count again.
artifact() {
  _a=/tmp/artifact.$$
  if [ -n "${2:-}" ]; then sed "s/^/ARTIFACT $1 /" "$2"; else sed "s/^/ARTIFACT $1 /"; fi > $_a
  _n=$(wc -c < $_a) _k=0
  while [ $((_k * 32768)) -lt "$_n" ]; do
    [ $_k = 0 ] || sleep 0.2
    dd if=$_a bs=32768 skip=$_k count=1 2>/dev/null
    _k=$((_k + 1))
  done
  rm -f $_a
}

# expect_eq CHECK ACTUAL EXPECTED
expect_eq() {
  if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1" "got '$2', expected '$3'"; fi
}
# expect_file CHECK FILE EXPECTED: the file reads back EXPECTED
expect_file() {
  if [ ! -e "$2" ]; then fail "$1" "$2 does not exist"; return; fi
  expect_eq "$1" "$(cat "$2" 2>&1)" "$3"
}
# expect_grep CHECK PATTERN FILE...: grep -E finds PATTERN
expect_grep() {
  c=$1 p=$2; shift 2
  if grep -Eq -- "$p" "$@" 2>/dev/null; then pass "$c"; else fail "$c" "/$p/ not found in $*"; fi
}
# file_fact KEY FILE: the file's content as a fact, or "absent"
file_fact() {
  if [ -e "$2" ]; then fact "$1" "$(cat "$2" 2>&1 | tr '\n' ' ' | sed 's/ *$//')"; else fact "$1" "absent ($2)"; fi
}
# exists_fact KEY PATH
exists_fact() { if [ -e "$2" ]; then fact "$1" "present ($2)"; else fact "$1" "absent ($2)"; fi; }

# rt STEP ARGS...: run rtagent, stdout to $OUT/STEP.out, stderr to $OUT/STEP.err.
# Returns 0 when it exited 0, 2 when the command is not built yet (reported SKIP), 1 otherwise
# (reported FAIL with the first lines of stderr). The exit code is left in $RT_RC.
rt() {
  step=$1; shift
  rtagent "$@" > "$OUT/$step.out" 2> "$OUT/$step.err"
  RT_RC=$?
  echo "STEP $step: rtagent $* -> exit $RT_RC ($(wc -c < "$OUT/$step.out") bytes out)"
  if [ $RT_RC = 0 ]; then pass "$step exits 0"; return 0; fi
  if [ $RT_RC = 3 ] && grep -q "not built yet" "$OUT/$step.err"; then
    if [ $STRICT = 1 ]; then fail "$step" "rtagent $1 is not built yet"; return 1; fi
    skip "$step" "rtagent $1 is not built yet (exit 3)"; return 2
  fi
  fail "$step" "exit $RT_RC: $(head -5 "$OUT/$step.err" | tr '\n' '|')"
  return 1
}
# rt_expect STEP RC ARGS...: run rtagent and expect exit code RC (a FAIL verdict is exit 1).
rt_expect() {
  step=$1 want=$2; shift 2
  rtagent "$@" > "$OUT/$step.out" 2> "$OUT/$step.err"
  RT_RC=$?
  echo "STEP $step: rtagent $* -> exit $RT_RC (want $want)"
  if [ $RT_RC = "$want" ]; then pass "$step exits $want"; return 0; fi
  if [ $RT_RC = 3 ] && grep -q "not built yet" "$OUT/$step.err"; then
    if [ $STRICT = 1 ]; then fail "$step" "rtagent $1 is not built yet"; return 1; fi
    skip "$step" "rtagent $1 is not built yet (exit 3)"; return 2
  fi
  fail "$step" "exit $RT_RC, expected $want: $(head -5 "$OUT/$step.err" | tr '\n' '|')"
  return 1
}

# rt_verdict STEP ARGS...: a command that ends in a verdict (commission, verify, accept):
# exit 0 (PASS) or 1 (FAIL, e.g. on an emulated machine) both count as "ran"; 2, 3 (other than
# "not built yet"), 4 or a crash fail. Tighten per scenario once the verdict is known.
rt_verdict() {
  step=$1; shift
  rtagent "$@" > "$OUT/$step.out" 2> "$OUT/$step.err"
  RT_RC=$?
  echo "STEP $step: rtagent $* -> exit $RT_RC"
  case $RT_RC in
    0|1) pass "$step ran to a verdict (exit $RT_RC)"; return 0 ;;
    3) if grep -q "not built yet" "$OUT/$step.err"; then
         if [ $STRICT = 1 ]; then fail "$step" "rtagent $1 is not built yet"; return 1; fi
         skip "$step" "rtagent $1 is not built yet (exit 3)"; return 2
       fi ;;
  esac
  fail "$step" "exit $RT_RC: $(head -5 "$OUT/$step.err" | tr '\n' '|')"
  return 1
}

# json_value FILE KEY: the first value of "KEY" anywhere in FILE ("" when absent): a string
# (unquoted), a number or boolean, or a flat array with its spaces removed ("[2,3]").
# Good enough for flat facts until the guest has a JSON tool; the first match wins, so pick
# keys that are unique in inspect's output or tighten with a more specific pattern.
json_value() {
  tr -d '\n' < "$1" | grep -o "\"$2\"[[:space:]]*:[[:space:]]*\(\"[^\"]*\"\|\[[^]]*\]\|[^],}[:space:]]*\)" | head -1 \
    | sed "s/^\"$2\"[[:space:]]*:[[:space:]]*//; s/^\"//; s/\"\$//; /^\[/s/[[:space:]]//g"
}
# json_check CHECK FILE KEY EXPECTED[|ALTERNATIVE...]: when KEY is in the JSON, its value must be
# one of the alternatives (e.g. "2-3|[2,3]" for a CPU set printed as a list or as an array);
# when it is not (inspect's format is not final), SKIP so the lead can tighten the key name.
json_check() {
  v=$(json_value "$2" "$3")
  if [ -z "$v" ] && ! grep -q "\"$3\"" "$2"; then skip "$1" "no \"$3\" key in $(basename "$2")"; return; fi
  case $v in "{"*) skip "$1" "\"$3\" is an object in $(basename "$2"): tighten this check"; return ;; esac
  old_ifs=$IFS; IFS='|'
  for want in $4; do
    if [ "$v" = "$want" ]; then IFS=$old_ifs; pass "$1 ($v)"; return; fi
  done
  IFS=$old_ifs
  fail "$1" "got '$v', expected '$4'"
}

# load_modules NAME...: insmod each module after its dependencies (modules.deps from mkinitramfs).
load_module() {
  local m=$1 dir=/lib/modules/$(uname -r) d err
  grep -q "^$m\$" /tmp/.loaded 2>/dev/null && return 0
  [ -d "/sys/module/$m" ] && { echo "$m" >> /tmp/.loaded; return 0; }
  for d in $(sed -n "s/^$m: *//p" "$dir/modules.deps"); do load_module "$(echo "$d" | tr - _)" || return 1; done
  if [ ! -f "$dir/$m.ko" ]; then echo "INFO module $m: not in the initramfs"; return 1; fi
  if err=$(insmod "$dir/$m.ko" 2>&1); then echo "$m" >> /tmp/.loaded; echo "INFO insmod $m: ok"; return 0; fi
  echo "INFO insmod $m: $err"; return 1
}
load_modules() {
  local ok=1 mod
  for mod in "$@"; do load_module "$mod" || ok=0; done
  if [ $ok = 1 ]; then pass "modules loaded ($*)"; else fail "modules loaded" "see INFO lines above"; fi
}

# threads: "pid tid comm policy rt_priority" for every task (policy 1 = FIFO, 2 = RR, 6 = DEADLINE)
threads() {
  for f in /proc/[0-9]*/task/[0-9]*/stat; do
    [ -r "$f" ] || continue
    line=$(cat "$f" 2>/dev/null) || continue
    comm=${line#*(}; comm=${comm%)*}
    rest=${line##*) }
    tid=${f%/stat}; tid=${tid##*/}
    pid=${f#/proc/}; pid=${pid%%/*}
    set -- $rest
    shift 37
    echo "$pid $tid $comm $2 $1"
  done
}

# affinity_write_errno IRQ MASK: try to write /proc/irq/IRQ/smp_affinity; prints "ok" or the error
affinity_write_errno() {
  if err=$(sh -c "echo $2 > /proc/irq/$1/smp_affinity" 2>&1); then echo ok; else echo "${err##*: }"; fi
}

# json_flat FILE: every scalar of a JSON document as "path=value", one a line (path: keys and
# array indexes joined by dots, e.g. threads.realtime.3.comm=irq/4-ttyS0; strings unquoted,
# null/true/false/numbers as written). busybox awk, no JSON tool needed in the guest.
json_flat() {
  awk '
# json_flat: every scalar of a JSON document as "path=value" (path: keys and array indexes
# joined by dots; strings unquoted with \" \\ \/ \n \t unescaped; null/true/false/numbers as written).
{ s = s $0 "\n" }
END {
  n = split(s, c, "")
  d = 0; expect_key = 0
  for (i = 1; i <= n; i++) {
    ch = c[i]
    if (ch == " " || ch == "\n" || ch == "\t" || ch == "\r" || ch == ",") {
      if (ch == "," && typ[d] == "a") idx[d]++
      if (ch == "," && typ[d] == "o") expect_key = 1
      continue
    }
    if (ch == "{" || ch == "[") {
      d++; typ[d] = (ch == "{") ? "o" : "a"; idx[d] = 0; key[d] = ""
      expect_key = (ch == "{")
      continue
    }
    if (ch == "}" || ch == "]") { d--; expect_key = 0; continue }
    if (ch == ":") { expect_key = 0; continue }
    if (ch == "\"") {
      v = ""
      for (i++; i <= n && c[i] != "\""; i++) {
        if (c[i] == "\\") { i++; e = c[i]; if (e == "n") e = "\n"; else if (e == "t") e = "\t"; v = v e }
        else v = v c[i]
      }
      if (expect_key && typ[d] == "o") { key[d] = v; continue }
      emit(v); continue
    }
    v = ch
    while (i < n && c[i+1] !~ /[],}[:space:]]/) { i++; v = v c[i] }
    emit(v)
  }
}
function emit(v,   p, k) {
  p = ""
  for (k = 1; k <= d; k++) p = p (k > 1 ? "." : "") (typ[k] == "o" ? key[k] : idx[k])
  print p "=" v
}
  ' "$1"
}
# jget FLAT PATH: the value at PATH in a json_flat output ("" when absent; check with jhas)
jget() { awk -v p="$2=" 'index($0, p) == 1 { print substr($0, length(p) + 1); exit }' "$1"; }
# jexpect CHECK FLAT PATH EXPECTED[|ALT...]: the value at PATH is one of the alternatives;
# a missing path FAILs (inspect's schema is final: docs/inspect.md)
jexpect() {
  if ! awk -v p="$3=" 'index($0, p) == 1 { f = 1 } END { exit !f }' "$2"; then fail "$1" "no $3 in $(basename "$2")"; return; fi
  v=$(jget "$2" "$3")
  old_ifs=$IFS; IFS='|'
  for want in $4; do
    if [ "$v" = "$want" ]; then IFS=$old_ifs; pass "$1 ($3=$v)"; return; fi
  done
  IFS=$old_ifs
  fail "$1" "$3 is '$v', expected '$4'"
}
# result_field FLAT ID FIELD: a field of the result whose id is ID in verify's flattened JSON.
result_field() {
  n=$(sed -n "s/^results\.\([0-9]*\)\.id=$2\$/\1/p" "$1" | head -1)
  [ -n "$n" ] || return 1
  sed -n "s/^results\.$n\.$3=//p" "$1" | head -1
}
# stat_sched PID: "rt_priority/policy" (fields 40/41 of /proc/PID/stat), "" when gone
stat_sched() {
  line=$(cat /proc/$1/stat 2>/dev/null) || return 0
  rest=${line##*) }
  set -- $rest
  shift 37
  echo "$1/$2"
}

# host_monitor device_add|device_del ARGUMENT: asks the host to run that command on QEMU's
# monitor (a scenario with "# monitor: qmp"; boot.sh -M), e.g.
#   host_monitor device_add virtio-net-pci,id=hp0,bus=hp     host_monitor device_del hp0
# Returns at once: the host acts when it reads the line, and answers only in its console log
# (a refused command is a FAIL there). Wait for the effect: the device appearing or going.
host_monitor() { echo "RTAGENT-HOST-MONITOR $1 $2"; }

# reboot_to_phase N: ends this boot of a scenario that reboots (guest/run-phases.sh): the guest
# reboots by itself and the scenario runs again with RTAGENT_PHASE=N.
reboot_to_phase() {
  echo "$1" > "$RTAGENT_STATE/phase"
  : > "$RTAGENT_STATE/reboot"
  info "phase $RTAGENT_PHASE done: the guest reboots into phase $1"
  exit 0
}

finish() {
  np=$(grep -c PASS "$RESULTS"); nf=$(grep -c FAIL "$RESULTS"); ns=$(grep -c SKIP "$RESULTS")
  echo "RESULT pass=$np fail=$nf skip=$ns"
  [ "$nf" = 0 ]
  exit $?
}
