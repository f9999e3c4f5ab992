#!/bin/sh
# kernel: stock
# Debian's stock (PREEMPT_DYNAMIC) kernel with the same isolation arguments: not PREEMPT_RT,
# no forced IRQ threads, no hwlat/timerlat tracer, THP present.
. /rtagent/lib.sh

fact kernel_release "$(uname -r)"
fact kernel_version "$(uname -v)"
case "$(uname -v)" in *PREEMPT_RT*) fail "uname -v is not PREEMPT_RT" "$(uname -v)" ;; *) pass "uname -v is not PREEMPT_RT" ;; esac
file_fact sys_kernel_realtime /sys/kernel/realtime
if [ -e /sys/kernel/realtime ]; then fail "/sys/kernel/realtime absent" "present: $(cat /sys/kernel/realtime)"; else pass "/sys/kernel/realtime absent"; fi
file_fact preempt_mode /sys/kernel/debug/sched/preempt
expect_file "isolated cpus" /sys/devices/system/cpu/isolated 2-3
expect_file "nohz_full cpus" /sys/devices/system/cpu/nohz_full 2-3

threads > /tmp/threads
n=$(grep -c ' irq/' /tmp/threads)
fact irq_threads "$n"
expect_eq "no irq/* threads without threadirqs" "$n" 0
fact rt_threads "$(awk '$4 != 0 {print $3 "=" ($4==1?"FIFO":$4==2?"RR":$4==6?"DL":$4) "/" $5}' /tmp/threads | sort -u | tr '\n' ' ')"

file_fact available_tracers /sys/kernel/tracing/available_tracers
if grep -qw hwlat /sys/kernel/tracing/available_tracers; then fail "no hwlat tracer on stock" "hwlat present"; else pass "no hwlat tracer on stock"; fi
if [ -d /sys/kernel/mm/transparent_hugepage ]; then
  pass "transparent hugepages present"
  file_fact thp_enabled /sys/kernel/mm/transparent_hugepage/enabled
  file_fact thp_defrag /sys/kernel/mm/transparent_hugepage/defrag
  # THP is tunable here (the stock-kernel scenario of issue 7 tunes it): write and read back.
  old=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
  echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
  expect_eq "THP enabled can be set to madvise" "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)" madvise
  echo "$old" > /sys/kernel/mm/transparent_hugepage/enabled
else
  fail "transparent hugepages present" "no /sys/kernel/mm/transparent_hugepage"
fi
file_fact sched_rt_runtime_us /proc/sys/kernel/sched_rt_runtime_us
exists_fact fair_server /sys/kernel/debug/sched/fair_server
file_fact clocksource /sys/devices/system/clocksource/clocksource0/current_clocksource

rtagent --version > /tmp/v 2>&1; fact rtagent_version "$(cat /tmp/v)"
if rt inspect-json inspect --json; then
  json_flat "$OUT/inspect-json.out" > /tmp/inspect.flat
  jexpect "inspect: kernel.preempt_rt" /tmp/inspect.flat kernel.preempt_rt false
  jexpect "inspect: kernel.preempt_model" /tmp/inspect.flat kernel.preempt_model PREEMPT_DYNAMIC
  jexpect "inspect: kernel.realtime_sysfs" /tmp/inspect.flat kernel.realtime_sysfs null
  jexpect "inspect: cpus.isolated" /tmp/inspect.flat cpus.isolated 2-3
  jexpect "inspect: cpus.nohz_full" /tmp/inspect.flat cpus.nohz_full 2-3
  jexpect "inspect: memory.thp.enabled.selected" /tmp/inspect.flat memory.thp.enabled.selected always
  n=$(grep -cE '^threads\.realtime\.[0-9]+\.comm=irq/' /tmp/inspect.flat)
  expect_eq "inspect: no irq/* thread in threads.realtime" "$n" 0
fi
rt inspect-table inspect
finish
