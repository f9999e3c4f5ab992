#!/bin/bash
# Self-test of boot.sh's handling of the emulator itself, with a stand-in for
# qemu-system-x86_64 first on PATH (no guest is booted): a QEMU killed by a signal is booted
# again once and said so, when nothing the guest wrote survives it (no writable disk, or before
# the begin marker); after the begin marker with a writable disk, or a second time, it is not; a run without an end marker fails with 124, showing
# the guest's hang report (init.sh, timed from the rtagent.timeout= boot.sh appends) when there is one, and a guest kernel's disabled interrupt line; a guest whose armed hang report never came (frozen) is booted again like a crashed one; a guest's host-monitor request
# without -M is answered with a failed check in the console log.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/rtagent-boot-self-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/k/boot"
: > "$T/k/boot/vmlinuz-0-test"; : > "$T/initrd"
# The stand-in: what each of its runs does is the next line of $T/plan
# (crash-early | crash-late | ok | monitor | silent | hang | irq-off | frozen | armed-hang | stall-early | stall-late | stall-begun); it counts its runs in $T/runs.
cat > "$T/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/bash
D=$(dirname "$(dirname "$0")")
n=$(( $(cat "$D/runs" 2>/dev/null || echo 0) + 1 )); echo $n > "$D/runs"
what=$(sed -n "${n}p" "$D/plan")
echo "[    0.000000] Linux version 0-test"
case $what in
  crash-early) kill -SEGV $$ ;;
  crash-late) echo "=== RTAGENT-SCENARIO-BEGIN s ==="; kill -SEGV $$ ;;
  ok) printf '=== RTAGENT-SCENARIO-BEGIN s ===\r\nPASS one\r\n=== RTAGENT-SCENARIO-END s rc=0 ===\r\n' ;;
  monitor) echo "=== RTAGENT-SCENARIO-BEGIN s ==="; printf 'RTAGENT-HOST-MONITOR device_add virtio-net-pci,id=hp0\r\n'
           echo "=== RTAGENT-SCENARIO-END s rc=0 ===" ;;
  silent) exit 1 ;;
  stall-early) echo "[    0.000000] Linux version 0-test (stalls)"; exec sleep 60 ;;
  stall-late) printf '%s\n' "[    0.0] Linux version 0-test" "[    2.7] Run /init as init process" "STEP quiet for a while"; exec sleep 6 ;;
  stall-begun) printf '%s\n' "[    0.0] Linux version 0-test" "=== RTAGENT-SCENARIO-BEGIN s ===" "STEP quiet for a while"; exec sleep 6 ;;
  frozen) printf '%s\n' "=== RTAGENT-SCENARIO-BEGIN s ===" "INFO hang report armed: due in 1 s" "STEP the last step"; exec sleep 60 ;;
  armed-hang) printf '%s\n' "=== RTAGENT-SCENARIO-BEGIN s ===" "INFO hang report armed: due in 1 s" "HANG report at 1.00 s: the scenario has not ended; its processes:" "HANG report ends"; exec sleep 60 ;;
  irq-off) echo "[    0.08] Kernel command line: $(sed 's/.*-append //' <<< "$*")"; echo "=== RTAGENT-SCENARIO-BEGIN s ==="
           printf '%s' "ARTIFACT v.json   \"na"; echo "[   33.686063] Disabling IRQ #4"; exit 1 ;;
  hang) echo "=== RTAGENT-SCENARIO-BEGIN s ==="; echo "STEP the last step"; echo "appended: $(grep -o 'rtagent\.timeout=[0-9]*' <<< "$*")"
        printf '%s\n' "HANG report at 1.00 s: the scenario has not ended; its processes:" "HANG pid 7: rtagent verify p.yaml" \
          "HANG   tid 7 (rtagent) state S (sleeping), cpu 1, policy 0 prio 0, wchan do_wait, allowed 0-1" \
          "HANG dmesg [    1.0] sysrq: Show Blocked State" "HANG sched cpu#0, 2096.008 MHz" "HANG report ends"
        exit 1 ;;
esac
FAKE
chmod +x "$T/bin/qemu-system-x86_64"

FAILS=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; FAILS=$((FAILS + 1)); fi; }
# run PLAN...: boot.sh with the stand-in doing PLAN's steps in turn, given the QEMU arguments in
# $QARGS; sets RC, OUT, RUNS.
QARGS=
run() {
  printf '%s\n' "$@" > "$T/plan"; rm -f "$T/runs" "$T"/console.log*
  OUT=$(PATH="$T/bin:$PATH" RTAGENT_QEMU_BZIMAGE=1 RTAGENT_QEMU_CRASH_RETRIES=1 RTAGENT_QEMU_ACCEL=tcg "$HERE/boot.sh" -k "$T/k" -i "$T/initrd" -s s \
        -l "$T/console.log" -t "${BOOT_T:-20}" -q "$QARGS" 2>&1)
  RC=$?; RUNS=$(cat "$T/runs" 2>/dev/null || echo 0)
}

run crash-early ok
check "a crash before /init is booted again, and the second boot's result counts" '[ $RC = 0 ] && [ $RUNS = 2 ]'
check "the retry is said on stdout with the signal" 'grep -q "QEMU died by signal 11 (exit 139) (s); booting again from the start" <<< "$OUT"'
check "the crashed console is kept beside the log" 'grep -q "Linux version 0-test" "$T/console.log.crash-1"'
check "the log says it is the second attempt" 'grep -q "^# boot.sh: attempt 2" "$T/console.log"'

QARGS="-drive file=$T/disk.img,if=virtio,format=raw"
run crash-late ok
check "a crash after /init began, with a disk the guest writes, is not booted again: 124" '[ $RC = 124 ] && [ $RUNS = 1 ]'
check "... and its console is shown" 'grep -q "no end marker for s (qemu exit 139)" <<< "$OUT"'
run crash-early ok
check "a crash before /init began, with a disk the guest writes, is booted again" '[ $RC = 0 ] && [ $RUNS = 2 ]'
QARGS="-drive file=$T/disk.img,if=none,format=raw,snapshot=on,id=root -drive file=$T/h.img,if=none,readonly=on,id=h"
run crash-late ok
check "a crash after /init began is booted again when no disk keeps the guest's writes" '[ $RC = 0 ] && [ $RUNS = 2 ]'
QARGS=
run crash-late ok
check "... and when there is no disk at all (the initramfs is in memory)" '[ $RC = 0 ] && [ $RUNS = 2 ]'

run crash-early crash-early ok
check "a second crash is not booted a third time" '[ $RC = 124 ] && [ $RUNS = 2 ]'

STALL_RUN() { RTAGENT_QEMU_STALL_S=3 run "$@"; }
STALL_RUN stall-early ok
check "a kernel silent for RTAGENT_QEMU_STALL_S before its init is stopped and booted again" '[ $RC = 0 ] && [ $RUNS = 2 ]'
check "... said on stdout" 'grep -q "the guest.s kernel stalled in its early boot (nothing on the console for 3 s before its init) (s); booting again from the start (attempt 2" <<< "$OUT"'
check "... and in the stalled console" 'grep -q "^# boot.sh: the guest.s kernel printed nothing for 3 s before starting its init" "$T/console.log.crash-1"'
STALL_RUN stall-early stall-early ok
check "a second stall is not booted a third time" '[ $RC = 124 ] && [ $RUNS = 2 ]'
STALL_RUN stall-late ok
check "a guest quiet after its init began is no stall: its own timeout decides" '[ $RC = 124 ] && [ $RUNS = 1 ] && ! grep -q "stalled" <<< "$OUT"'
STALL_RUN stall-begun ok
check "... nor one quiet after the begin marker, whatever the kernel printed" '[ $RC = 124 ] && [ $RUNS = 1 ] && ! grep -q "stalled" <<< "$OUT"'

run silent ok
check "QEMU ending without a signal and without an end marker is not retried" '[ $RC = 124 ] && [ $RUNS = 1 ]'

run hang
check "the guest is told the timeout (rtagent.timeout=, for init.sh's hang report)" 'grep -q "^appended: rtagent.timeout=20$" "$T/console.log"'
check "a hang's message shows the console before the hang report" '[ $RC = 124 ] && grep -q "^  > STEP the last step$" <<< "$OUT"'
check "... and each process's lines of the report" 'grep -q "^  > HANG pid 7: rtagent verify p.yaml$" <<< "$OUT" && grep -q "^  > HANG   tid 7 (rtagent) state S" <<< "$OUT"'
check "... and points at the kernel's part in the log instead of printing it" \
  '! grep -q "> HANG dmesg \[\|> HANG sched cpu" <<< "$OUT" && grep -q "HANG dmesg and HANG sched lines in $T/console.log" <<< "$OUT"'

run irq-off
check "a guest that disabled an IRQ is said so, with its command line" \
  '[ $RC = 124 ] && grep -q "^boot.sh: the guest.s kernel printed \"Disabling IRQ #4\" (its spurious-interrupt detector): if that is the serial console.s IRQ (4 on a PC), the console went silent there and every process writing to it waits; the kernel command line: console=ttyS0 panic=-1 isolcpus=" <<< "$OUT"'
run hang
check "... and a hang without one is not" '! grep -q "Disabling IRQ" <<< "$OUT"'

BOOT_T=3 run frozen ok
check "a guest whose armed hang report never came (frozen) is booted again" '[ $RC = 0 ] && [ $RUNS = 2 ]'
check "... said on stdout, and the frozen console kept" 'grep -q "the guest froze (s): no end marker within 3s, and the hang report it armed, due 25 s before that at SCHED_FIFO 99, never came" <<< "$OUT" && grep -q "^STEP the last step" "$T/console.log.crash-1"'
BOOT_T=3 run armed-hang ok
check "a guest that printed its hang report is no frozen one: not booted again" '[ $RC = 124 ] && [ $RUNS = 1 ] && ! grep -q "froze" <<< "$OUT"'
QARGS="-drive file=$T/disk.img,if=virtio,format=raw"
BOOT_T=3 run frozen ok
check "a frozen guest with a disk that keeps its writes is not booted again, and said to have frozen" \
  '[ $RC = 124 ] && [ $RUNS = 1 ] && grep -q "^boot.sh: the guest froze: .*(not booted again: a disk keeps the guest.s writes)" <<< "$OUT"'
QARGS=

run monitor
check "a host-monitor request without -M is a failed check in the console" \
  'grep -q "^FAIL host monitor: device_add virtio-net-pci,id=hp0: no monitor (boot.sh without -M; a scenario asks for it with # monitor: qmp)" "$T/console.log"'

# The boot-loader runs' hang report (guest/run-phases.sh) is timed from the wall clock: the
# host's deadline that mkharness.sh -d writes on the harness disk.
job=$("$HERE/hang-report.sh" --arm-at $(( $(date +%s) + 85 )) 2>/dev/null)
sleep 0.5
check "--arm-at a deadline 85 s away arms a job that waits about 60 s, then reports" \
  '[ -n "$job" ] && s=$(pgrep -P "$job" -x sleep) && [ -n "$s" ] && w=$(tr "\0" " " < /proc/$s/cmdline) && [ "${w% }" = "sleep 60" -o "${w% }" = "sleep 59" ]'
check "... the job and its wait at SCHED_FIFO 99 where chrt exists" \
  '[ "$(ps -o cls=,rtprio= -p "$job" -p "$(pgrep -P "$job" -x sleep)" | tr -s " \n" " ")" = " FF 99 FF 99 " ]'
"$HERE/hang-report.sh" --disarm "$job"
sleep 0.2
# (gone, or a zombie left to whoever reaps this machine's orphans)
check "... and --disarm stops it and its wait" 'st=$(ps -o stat= -p "$job"); { [ -z "$st" ] || [ "${st#Z}" != "$st" ]; } && [ -z "$(pgrep -P "$job")" ]'
# Without chrt (a guest that lacks util-linux) the job waits as an ordinary task.
mkdir -p "$T/nochrt"; for c in date sleep sh; do ln -sf "$(command -v $c)" "$T/nochrt/$c"; done
job=$(PATH="$T/nochrt" "$HERE/hang-report.sh" --arm-at $(( $(date +%s) + 85 )) 2>/dev/null)
sleep 0.5
check "--arm-at without chrt arms an ordinary job that waits about 60 s" \
  '[ -n "$job" ] && s=$(pgrep -P "$job" -x sleep) && [ "$(ps -o cls= -p "$s" | tr -d " ")" = TS ] && w=$(tr "\0" " " < /proc/$s/cmdline) && [ "${w% }" = "sleep 60" -o "${w% }" = "sleep 59" ]'
"$HERE/hang-report.sh" --disarm "$job"
check "--arm-at a deadline less than 25 s away arms nothing" '[ -z "$("$HERE/hang-report.sh" --arm-at $(( $(date +%s) + 20 )))" ]'
check "--arm-at without a deadline (no file on the harness disk) arms nothing" '[ -z "$("$HERE/hang-report.sh" --arm-at "")" ]'

[ $FAILS = 0 ] && echo "boot.sh self-test: all passed" || echo "boot.sh self-test: $FAILS failed"
[ $FAILS = 0 ]
