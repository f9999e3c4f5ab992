#!/bin/sh
# /rtagent/hang-report.sh: printed on the console by init.sh shortly before the host's timeout
# would kill QEMU (boot.sh passes its limit as rtagent.timeout=S), so that a scenario that hangs
# says where: every user process, each of its threads with its state, scheduling, CPU, what it
# waits in and its kernel stack, then the blocked tasks and each CPU's run queue as the kernel
# sees them. Lines start with HANG so that boot.sh's "no end marker" message can pick them.
#
#   hang-report.sh --arm   (before the scenario) starts the report in the background, timed
#                          from rtagent.timeout= and the uptime, its output on this stderr;
#                          prints the background job's pid (nothing without rtagent.timeout=)
#   hang-report.sh --arm-at EPOCH  the same, timed from the wall clock: the host's deadline in
#                          seconds since the epoch (a boot-loader run, whose guest boots several
#                          times and has no rtagent.timeout=; its clock comes from QEMU's RTC,
#                          which starts at the host's time)
#   hang-report.sh --disarm PID   (after it) stops that job before it prints
#   hang-report.sh         prints the report now
# arm WAIT_S: the background job; its pid on stdout, and on the console a line that says a
# report is due (boot.sh takes a guest whose armed report never came for a frozen one). Where
# chrt exists the whole job runs at SCHED_FIFO 99, above any thread a scenario starts, and the
# report raises the console's interrupt thread to 99 too, so that a real-time thread spinning
# on a housekeeping CPU cannot keep it from printing. The wait itself must be real-time: on
# PREEMPT_RT the timer of an ordinary task's sleep expires in the ktimers thread (FIFO 1),
# which such a spinner starves for good, RT throttling or not; a real-time task's expires in
# the timer interrupt.
arm() {
  [ "$1" -gt 0 ] || exit 0
  echo "INFO hang report armed: due in $1 s" >&2
  if command -v chrt > /dev/null; then
    chrt -f 99 sh -c 'sleep "$1" && exec "$2"' hang-report "$1" "$0" >&2 &
  else
    ( sleep "$1" && exec "$0" ) >&2 &
  fi
  echo $!
  exit 0
}
case ${1:-} in
  --arm)
    tmo=$(sed -n 's/.*rtagent\.timeout=\([0-9]*\).*/\1/p' /proc/cmdline)
    [ -n "$tmo" ] || exit 0
    up=$(cut -d' ' -f1 /proc/uptime)
    arm $(( tmo - 25 - ${up%.*} )) ;;
  --arm-at)
    [ -n "${2:-}" ] || exit 0
    arm $(( $2 - 25 - $(date +%s) )) ;;
  --disarm)
    [ -n "${2:-}" ] || exit 0
    pkill -P "$2" 2>/dev/null
    kill "$2" 2>/dev/null
    exit 0 ;;
esac
# The console's interrupt thread to SCHED_FIFO 99 first: what this prints leaves the guest
# only through it, and a real-time thread spinning on a housekeeping CPU would starve it (a
# scenario with FIFO 98 spinners on CPUs 0-1 got no report before this).
command -v chrt > /dev/null && for t in /proc/[0-9]*; do
  case $(cat "$t/comm" 2>/dev/null) in irq/*-ttyS*|irq/*uart*) chrt -f -p 99 "${t#/proc/}" 2>/dev/null ;; esac
done
now=$(cut -d' ' -f1 /proc/uptime)
echo "HANG report at ${now} s: the scenario has not ended; its processes:"
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  cmd=$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null | cut -c1-200)
  [ -n "$cmd" ] || continue            # a kernel thread has no command line
  [ "$pid" = $$ ] && continue
  echo "HANG pid $pid: $cmd"
  for t in "$d"/task/*; do
    tid=${t##*/}
    # /proc/PID/task/TID/stat after the ")" of comm: field 3 on; 39 CPU, 40 rt_priority, 41 policy.
    set -- $(sed 's/^.*) //' "$t/stat" 2>/dev/null)
    shift 36 2>/dev/null
    echo "HANG   tid $tid ($(cat "$t/comm" 2>/dev/null)) state $(sed -n 's/^State:[[:space:]]*//p' "$t/status" 2>/dev/null), cpu ${1:-?}, policy ${3:-?} prio ${2:-?}, wchan $(cat "$t/wchan" 2>/dev/null), allowed $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null)"
    sed 's/^/HANG     /' "$t/stack" 2>/dev/null | head -12
  done
done
echo "HANG load: $(cat /proc/loadavg)"
# Blocked (D state) tasks and the run queues, from the kernel (printk is kept off the console
# while a scenario runs, init.sh: read them back from the ring).
dmesg -c > /dev/null 2>&1
echo w > /proc/sysrq-trigger 2>/dev/null
dmesg 2>/dev/null | tail -n 120 | sed 's/^/HANG dmesg /'
if [ -r /sys/kernel/debug/sched/debug ]; then
  # each CPU and the tasks on it that run or wait to run (R), or cannot be woken (D)
  grep -E '^cpu#|^ *>?[RD] ' /sys/kernel/debug/sched/debug | head -n 120 | sed 's/^/HANG sched /'
fi
echo "HANG report ends"
