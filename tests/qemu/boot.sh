#!/bin/bash
# Boot one kernel + initramfs under QEMU (software emulation) and print the scenario's output.
#
#   tests/qemu/boot.sh -k KERNEL_DIR -i INITRAMFS -s SCENARIO -l CONSOLE_LOG
#                      [-a "extra kernel args"] [-q "extra qemu args"] [-t TIMEOUT_S] [-N] [-M]
#   tests/qemu/boot.sh -D -s SCENARIO -l CONSOLE_LOG -q "the disks" [-t TIMEOUT_S] [-M]
#   tests/qemu/boot.sh -A arm64 -k KERNEL_DIR -i INITRAMFS -s SCENARIO -l CONSOLE_LOG ...
#
# -A arm64 boots an arm64 kernel under qemu-system-aarch64: the `virt` machine with a GICv3 and
# four Cortex-A57 (`-cpu max` emulates pointer authentication and reaches /init 5 times slower),
# 2 GiB (the guest's root is a whole Debian in the initramfs), the console on the PL011 (ttyAMA0),
# housekeeping CPU 0 and CPUs 1-3 isolated. Debian's arm64 vmlinuz is a plain Image: no unpacking.
#
# -D boots through the firmware (SeaBIOS) from the disk with bootindex=0 in -q, the way a PC
# boots: its boot loader picks the kernel and its command line. The guest may reboot as often
# as the scenario needs (no -no-reboot); the timeout covers every boot together, and the run
# ends when the guest powers off.
# -N boots without the isolation arguments (isolcpus, nohz_full, rcu_nocbs, irqaffinity): for
# the irqbalance and TuneD scenarios, where irqbalance would ban the booted isolated CPUs on its
# own and the profile's isolation is what is tested.
# -M gives QEMU a QMP monitor on a unix socket (a fresh folder under $TMPDIR, removed at the end)
# and carries out what the guest asks of it while it runs: a console line
#   RTAGENT-HOST-MONITOR device_add virtio-net-pci,id=hp0,bus=hp      (or device_del hp0)
# (lib.sh's host_monitor) is sent to the monitor by qmp.py, which takes only those two commands,
# and answered in the console log with "HOST-MONITOR <request>: ok" or, counted as a failed
# check, "FAIL host monitor: <request>: <QEMU's answer>". The guest sees the effect itself (a
# device appears or goes); nothing is sent back to it.
# The whole console goes to CONSOLE_LOG; the text between
#   === RTAGENT-SCENARIO-BEGIN SCENARIO === / === RTAGENT-SCENARIO-END SCENARIO rc=N ===
# is printed on stdout. Exit: the scenario's rc, or 124 when the end marker never came
# (timeout, kernel panic, QEMU error) — a hang is a failure, never a pass.
# The kernel is booted as an ELF vmlinux through its PVH entry when it can be unpacked from
# the XZ bzImage (about twice as fast to reach /init under TCG), otherwise as the bzImage.
# RTAGENT_QEMU_ACCEL (default tcg) and RTAGENT_QEMU_BZIMAGE=1 (skip the vmlinux) override.
set -uo pipefail

KDIR= INITRD= SCEN= LOG= EXTRA_APPEND= EXTRA_QEMU= TMO=${RTAGENT_QEMU_TIMEOUT:-240} DISKBOOT=0 ARCH=amd64 MONITOR=0
ISOLATION="isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1"
while getopts "k:i:s:l:a:q:t:A:DNM" opt; do
  case $opt in
    A) ARCH=$OPTARG ;;
    k) KDIR=$OPTARG ;; i) INITRD=$OPTARG ;; s) SCEN=$OPTARG ;; l) LOG=$OPTARG ;;
    a) EXTRA_APPEND=$OPTARG ;; q) EXTRA_QEMU=$OPTARG ;; t) TMO=$OPTARG ;; D) DISKBOOT=1 ;; N) ISOLATION= ;; M) MONITOR=1 ;;
    *) echo "usage: see the head of $0" >&2; exit 2 ;;
  esac
done
[ -n "$SCEN" ] && [ -n "$LOG" ] || { echo "boot.sh: usage: see the head of $0" >&2; exit 2; }
[ $DISKBOOT = 1 ] || { [ -n "$KDIR" ] && [ -f "$INITRD" ]; } || { echo "boot.sh: usage: see the head of $0" >&2; exit 2; }

case $ARCH in amd64|arm64) ;; *) echo "boot.sh: -A $ARCH: amd64 or arm64" >&2; exit 2 ;; esac
[ $ARCH = amd64 ] || [ $DISKBOOT = 0 ] || { echo "boot.sh: -D is for amd64 only" >&2; exit 2; }
KERNEL=
if [ $ARCH = arm64 ]; then
  KERNEL=$(ls "$KDIR"/boot/vmlinuz-* | head -1)
elif [ $DISKBOOT = 0 ]; then
BZIMAGE=$(ls "$KDIR"/boot/vmlinuz-* | head -1)
# vmlinux from the bzImage: the payload is an XZ stream starting at the XZ magic (FD 37 7A 58 5A 00).
vmlinux_of() {
  local bz=$1 out="$KDIR/boot/vmlinux-${1##*/vmlinuz-}" off
  if [ -s "$out" ]; then echo "$out"; return 0; fi
  off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$off" ] || return 1
  tail -c +$((off + 1)) "$bz" | xz -dc --single-stream > "$out.tmp.$$" 2>/dev/null
  if [ "$(head -c 4 "$out.tmp.$$" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; then
    mv "$out.tmp.$$" "$out"; echo "$out"; return 0
  fi
  rm -f "$out.tmp.$$"; return 1
}
KERNEL=$BZIMAGE
if [ "${RTAGENT_QEMU_BZIMAGE:-0}" != 1 ] && V=$(vmlinux_of "$BZIMAGE"); then KERNEL=$V; fi
fi

CMD=(qemu-system-x86_64 -machine q35 -accel "${RTAGENT_QEMU_ACCEL:-tcg}" -cpu max -smp 4 -m 1024 -nographic)
if [ $ARCH = arm64 ]; then
  CMD=(qemu-system-aarch64 -machine virt,gic-version=3 -accel "${RTAGENT_QEMU_ACCEL:-tcg}" -cpu cortex-a57 -smp 4 -m 2048 -nographic
       -no-reboot -kernel "$KERNEL" -initrd "$INITRD"
       -append "console=ttyAMA0 panic=-1 isolcpus=nohz,domain,managed_irq,1-3 nohz_full=1-3 rcu_nocbs=1-3 irqaffinity=0 rtagent.scenario=$SCEN rtagent.timeout=$TMO $EXTRA_APPEND")
elif [ $DISKBOOT = 1 ]; then
  # No network card (its option ROM would add a network boot attempt to every boot), no
  # graphics card (the boot loader and the kernel use the serial console).
  CMD+=(-nic none -vga none)
else
  APPEND="console=ttyS0 panic=-1 $ISOLATION rtagent.scenario=$SCEN rtagent.timeout=$TMO $EXTRA_APPEND"
  CMD+=(-no-reboot -kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND")
fi
# shellcheck disable=SC2206
CMD+=($EXTRA_QEMU)
QMP_SOCK=
if [ $MONITOR = 1 ]; then
  # A short path: a unix socket's name has at most 107 bytes, and --out folders can be long.
  QMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rtagent-qmp.XXXXXX")
  QMP_SOCK=$QMP_DIR/qmp.sock
  trap 'rm -rf "$QMP_DIR"' EXIT
  CMD+=(-qmp "unix:$QMP_SOCK,server=on,wait=off")
fi
# host_monitor REQUEST: a guest's RTAGENT-HOST-MONITOR request, carried out (-M) and answered
# in the console log.
host_monitor() {
  local req=$1 answer
  if [ -z "$QMP_SOCK" ]; then
    echo "FAIL host monitor: $req: no monitor (boot.sh without -M; a scenario asks for it with # monitor: qmp)"
  elif answer=$(python3 "$(dirname "$0")/qmp.py" "$QMP_SOCK" ${req%% *} "${req#* }" < /dev/null 2>&1); then
    echo "HOST-MONITOR $req: $answer"
  else
    echo "FAIL host monitor: $req: $answer"
  fi
}
# A guest kernel that prints nothing for this long after "Linux version" and before it starts
# its init has stalled in its own early boot (QEMU 7.2's TCG has been seen to do that in CI: a
# rebooted guest's kernel stopped 1.2 s in, QEMU spinning on both host CPUs, with 20 minutes
# of its timeout left). Nothing of the scenario has run in that boot.
STALL_S=${RTAGENT_QEMU_STALL_S:-120}
# boot_once: one run of QEMU, its console into $LOG; sets QRC, START, END and STALLED (1 when
# boot_once stopped QEMU because the guest's kernel stalled before its init).
boot_once() {
  { echo "# boot.sh: ${CMD[*]}"; echo "# timeout ${TMO}s"; } > "$LOG"
  START=$(date +%s.%N)
  local fifo qpid line partial= in_kernel=0 quiet_since=$SECONDS
  fifo=$(mktemp -u "${TMPDIR:-/tmp}/rtagent-boot-fifo.XXXXXX")
  mkfifo "$fifo"
  timeout --kill-after=10 "$TMO" "${CMD[@]}" < /dev/null > "$fifo" 2>&1 &
  qpid=$!
  STALLED=0
  {
    while :; do
      if IFS= read -r -t 5 line; then
        line=$partial$line partial=
        quiet_since=$SECONDS
      elif [ $? -gt 128 ]; then
        # no whole line within 5 s (what came of one is kept for the next read)
        partial=$partial$line
        if [ $in_kernel = 1 ] && [ $STALLED = 0 ] && [ $((SECONDS - quiet_since)) -ge "$STALL_S" ]; then
          STALLED=1
          echo "# boot.sh: the guest's kernel printed nothing for ${STALL_S} s before starting its init: stalled in its early boot; QEMU stopped"
          kill -TERM $qpid 2>/dev/null
        fi
        continue
      else
        [ -z "$partial$line" ] || printf '%s\n' "$partial$line"
        break
      fi
      printf '%s\n' "$line"
      case $line in
        *"Linux version "*) in_kernel=1 ;;
        *"Run /init as init process"*|*"Run /sbin/init as init process"*|*"=== RTAGENT-SCENARIO-BOOT "*) in_kernel=0 ;;
        *"=== RTAGENT-SCENARIO-BEGIN"*) in_kernel=0; echo "${EPOCHREALTIME/,/.}" > "$LOG.init-at" ;;
        "RTAGENT-HOST-MONITOR "*) req=${line#RTAGENT-HOST-MONITOR }; host_monitor "${req%$'\r'}" ;;
      esac
    done < "$fifo"
  } >> "$LOG"
  wait $qpid
  QRC=$?
  rm -f "$fifo"
  END=$(date +%s.%N)
}
# QEMU itself killed by a signal (timeout passes on 128 + the signal: SIGSEGV 139, SIGABRT 134,
# SIGBUS 135, SIGFPE 136, SIGILL 132) is a fault of the emulator on the host, not a result of the
# guest: QEMU 7.2's TCG has been seen to segfault in a guest's early boot on one run in many. Such
# a run is booted again from the start, at most RTAGENT_QEMU_CRASH_RETRIES times (default 1), when
# that start is the same as the first: QEMU is given no disk the guest can write for good (every
# -drive is snapshot=on or readonly=on; the initramfs lives in memory), or the guest's /init had
# not printed its begin marker yet, before which it has changed nothing on its disks. The crashed
# console is kept beside the log ($LOG.crash-N) and the retry is said on stdout and in the log.
# A guest kernel that stalled before its init (STALL_S above; boot_once stops QEMU) is treated
# the same way, under the same conditions and the same count: the scenario never ran in that
# boot. So is a guest that froze whole: timed out after its current boot armed the hang report
# ("INFO hang report armed", hang-report.sh), and the report, due 25 s before the timeout at
# SCHED_FIFO 99, never came. Nothing ran in that guest any more, not even a shell above every
# thread a scenario starts; a scenario that hangs while its guest lives gets its report and is
# never retried (CI of 1b26b04: rt-explain silent from its 5th second to the timeout, after 14
# passing runs; grub-reboot once in six runs here, in boot 2; and before either, the early-boot
# stall above). Any other timeout (124, or 137 after --kill-after) is never retried: a hang after
# init is the guest's, and so is a second stall or freeze.
writable_drives() {
  local a n=0
  for a in "${CMD[@]}"; do
    case $a in file=*) case ,$a, in *,snapshot=on,*|*,readonly=on,*) ;; *) n=$((n + 1)) ;; esac ;; esac
  done
  echo $n
}
# guest_froze QRC: the run timed out after the last begin or boot marker armed a hang report,
# and no report came.
guest_froze() {
  case $1 in 124|137) ;; *) return 1 ;; esac
  tr -d '\r' < "$LOG" | awk '
    /^=== RTAGENT-SCENARIO-(BEGIN|BOOT) / { armed = 0; reported = 0 }
    /^INFO hang report armed: / { armed = 1 }
    /^HANG report at / { reported = 1 }
    END { exit !(armed && !reported) }'
}
emulator_crash() {
  FROZEN=0
  [ "$STALLED" = 0 ] && guest_froze "$1" && FROZEN=1
  [ "$STALLED" = 1 ] || [ "$FROZEN" = 1 ] || case $1 in 132|134|135|136|139) ;; *) return 1 ;; esac
  [ "$(writable_drives)" = 0 ] || ! grep -q "=== RTAGENT-SCENARIO-BEGIN" "$LOG"
}
INIT_AT=
ATTEMPT=1
while :; do
  rm -f "$LOG.init-at"
  boot_once
  if [ "$ATTEMPT" -le "${RTAGENT_QEMU_CRASH_RETRIES:-1}" ] && emulator_crash "$QRC"; then
    mv "$LOG" "$LOG.crash-$ATTEMPT"
    if [ "$FROZEN" = 1 ]; then
      echo "boot.sh: the guest froze ($SCEN): no end marker within ${TMO}s, and the hang report it armed, due 25 s before that at SCHED_FIFO 99, never came: nothing ran in it any more; booting again from the start (attempt $((ATTEMPT + 1)); the frozen console is $LOG.crash-$ATTEMPT)"
    elif [ "$STALLED" = 1 ]; then
      echo "boot.sh: the guest's kernel stalled in its early boot (nothing on the console for ${STALL_S} s before its init) ($SCEN); booting again from the start (attempt $((ATTEMPT + 1)); the stalled console is $LOG.crash-$ATTEMPT)"
    else
      echo "boot.sh: QEMU died by signal $((QRC - 128)) (exit $QRC) ($SCEN); booting again from the start (attempt $((ATTEMPT + 1)); the crashed console is $LOG.crash-$ATTEMPT)"
    fi
    tail -3 "$LOG.crash-$ATTEMPT" | sed 's/^/  > /'
    [ -n "$QMP_SOCK" ] && rm -f "$QMP_SOCK"
    ATTEMPT=$((ATTEMPT + 1))
    continue
  fi
  break
done
[ "$ATTEMPT" = 1 ] || echo "# boot.sh: attempt $ATTEMPT; attempt $((ATTEMPT - 1)) ended with QEMU killed by signal, its kernel stalled before init or the guest frozen (see $LOG.crash-$((ATTEMPT - 1)))" >> "$LOG"
# Note the wall time at which the guest's /init printed its begin marker.
[ -f "$LOG.init-at" ] && INIT_AT=$(awk -v a="$START" -v b="$(cat "$LOG.init-at")" 'BEGIN{printf "%.1f", b-a}') && rm -f "$LOG.init-at"
# The console uses CRLF line ends.
sed -i 's/\r$//' "$LOG"
echo "# qemu exit $QRC after $(awk -v a="$START" -v b="$END" 'BEGIN{printf "%.1f", b-a}') s" >> "$LOG"

if ! grep -q "=== RTAGENT-SCENARIO-END $SCEN rc=" "$LOG"; then
  echo "boot.sh: no end marker for $SCEN (qemu exit $QRC$([ $QRC = 124 ] && echo ", timed out after ${TMO}s")); last console lines:"
  guest_froze "$QRC" && echo "boot.sh: the guest froze: the hang report it armed, due 25 s before the timeout at SCHED_FIFO 99, never came (not booted again: $([ "$ATTEMPT" -gt 1 ] && echo "this was attempt $ATTEMPT" || echo "a disk keeps the guest's writes"))"
  # A guest kernel that disabled an interrupt line says so once, at KERN_EMERG; when that line is
  # the console's, nothing after it reaches the host (lib.sh's `artifact` paces long writes so
  # that its spurious-interrupt detector cannot trip: docs/qemu.md, "The console's IRQ").
  irq_off=$(grep -a -o 'Disabling IRQ #[0-9]*' "$LOG" | head -1)
  [ -z "$irq_off" ] || echo "boot.sh: the guest's kernel printed \"$irq_off\" (its spurious-interrupt detector): if that is the serial console's IRQ (4 on a PC), the console went silent there and every process writing to it waits; the kernel command line: $(grep -a -o -m1 'Kernel command line: .*' "$LOG" | cut -c22-)"
  if grep -q '^HANG report at ' "$LOG"; then
    # init.sh's hang report: the console before it, then where each process waited.
    sed '/^HANG report at /,$d' "$LOG" | tail -25 | sed 's/^/  > /'
    grep -E '^HANG (report|pid|  |load)' "$LOG" | head -120 | sed 's/^/  > /'
    echo "  > (the kernel's blocked tasks and run queues: HANG dmesg and HANG sched lines in $LOG)"
    tail -2 "$LOG" | sed 's/^/  > /'
  else
    tail -25 "$LOG" | sed 's/^/  > /'
  fi
  exit 124
fi
sed -n "/^=== RTAGENT-SCENARIO-BEGIN $SCEN ===/,/^=== RTAGENT-SCENARIO-END $SCEN rc=/p" "$LOG"
echo "BOOT kernel=$(basename "${KERNEL:-from-disk}") init_after=${INIT_AT:-?}s total=$(awk -v a="$START" -v b="$END" 'BEGIN{printf "%.1f", b-a}')s"
RC=$(sed -n "s/^=== RTAGENT-SCENARIO-END $SCEN rc=\([0-9]*\) ===.*/\1/p" "$LOG" | tail -1)
exit "${RC:-1}"
