#!/bin/bash
# Boot one kernel + initramfs under QEMU (software emulation) and print the scenario's output.
#
#   tests/qemu/boot.sh -k KERNEL_DIR -i INITRAMFS -s SCENARIO -l CONSOLE_LOG
#                      [-a "extra kernel args"] [-q "extra qemu args"] [-t TIMEOUT_S] [-N]
#   tests/qemu/boot.sh -D -s SCENARIO -l CONSOLE_LOG -q "the disks" [-t TIMEOUT_S]
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
# The whole console goes to CONSOLE_LOG; the text between
#   === RTAGENT-SCENARIO-BEGIN SCENARIO === / === RTAGENT-SCENARIO-END SCENARIO rc=N ===
# is printed on stdout. Exit: the scenario's rc, or 124 when the end marker never came
# (timeout, kernel panic, QEMU error) — a hang is a failure, never a pass.
# The kernel is booted as an ELF vmlinux through its PVH entry when it can be unpacked from
# the XZ bzImage (about twice as fast to reach /init under TCG), otherwise as the bzImage.
# RTAGENT_QEMU_ACCEL (default tcg) and RTAGENT_QEMU_BZIMAGE=1 (skip the vmlinux) override.
set -uo pipefail

KDIR= INITRD= SCEN= LOG= EXTRA_APPEND= EXTRA_QEMU= TMO=${RTAGENT_QEMU_TIMEOUT:-240} DISKBOOT=0 ARCH=amd64
ISOLATION="isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1"
while getopts "k:i:s:l:a:q:t:A:DN" opt; do
  case $opt in
    A) ARCH=$OPTARG ;;
    k) KDIR=$OPTARG ;; i) INITRD=$OPTARG ;; s) SCEN=$OPTARG ;; l) LOG=$OPTARG ;;
    a) EXTRA_APPEND=$OPTARG ;; q) EXTRA_QEMU=$OPTARG ;; t) TMO=$OPTARG ;; D) DISKBOOT=1 ;; N) ISOLATION= ;;
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
       -append "console=ttyAMA0 panic=-1 isolcpus=nohz,domain,managed_irq,1-3 nohz_full=1-3 rcu_nocbs=1-3 irqaffinity=0 rtagent.scenario=$SCEN $EXTRA_APPEND")
elif [ $DISKBOOT = 1 ]; then
  # No network card (its option ROM would add a network boot attempt to every boot), no
  # graphics card (the boot loader and the kernel use the serial console).
  CMD+=(-nic none -vga none)
else
  APPEND="console=ttyS0 panic=-1 $ISOLATION rtagent.scenario=$SCEN $EXTRA_APPEND"
  CMD+=(-no-reboot -kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND")
fi
# shellcheck disable=SC2206
CMD+=($EXTRA_QEMU)
{ echo "# boot.sh: ${CMD[*]}"; echo "# timeout ${TMO}s"; } > "$LOG"
START=$(date +%s.%N)
# Note the wall time at which the guest's /init printed its begin marker.
INIT_AT=
timeout --kill-after=10 "$TMO" "${CMD[@]}" < /dev/null 2>&1 | {
  while IFS= read -r line; do
    printf '%s\n' "$line"
    case $line in *"=== RTAGENT-SCENARIO-BEGIN"*) echo "${EPOCHREALTIME/,/.}" > "$LOG.init-at" ;; esac
  done
} >> "$LOG"
QRC=${PIPESTATUS[0]}
END=$(date +%s.%N)
[ -f "$LOG.init-at" ] && INIT_AT=$(awk -v a="$START" -v b="$(cat "$LOG.init-at")" 'BEGIN{printf "%.1f", b-a}') && rm -f "$LOG.init-at"
# The console uses CRLF line ends.
sed -i 's/\r$//' "$LOG"
echo "# qemu exit $QRC after $(awk -v a="$START" -v b="$END" 'BEGIN{printf "%.1f", b-a}') s" >> "$LOG"

if ! grep -q "=== RTAGENT-SCENARIO-END $SCEN rc=" "$LOG"; then
  echo "boot.sh: no end marker for $SCEN (qemu exit $QRC$([ $QRC = 124 ] && echo ", timed out after ${TMO}s")); last console lines:"
  tail -25 "$LOG" | sed 's/^/  > /'
  exit 124
fi
sed -n "/^=== RTAGENT-SCENARIO-BEGIN $SCEN ===/,/^=== RTAGENT-SCENARIO-END $SCEN rc=/p" "$LOG"
echo "BOOT kernel=$(basename "${KERNEL:-from-disk}") init_after=${INIT_AT:-?}s total=$(awk -v a="$START" -v b="$END" 'BEGIN{printf "%.1f", b-a}')s"
RC=$(sed -n "s/^=== RTAGENT-SCENARIO-END $SCEN rc=\([0-9]*\) ===.*/\1/p" "$LOG" | tail -1)
exit "${RC:-1}"
