#!/bin/sh
# kernel: rt
# `rtagent capture` on the PREEMPT_RT kernel: the tree holds the kernel's files as read live,
# and `rtagent --root TREE inspect` agrees with `rtagent inspect` on the live system.
. /rtagent/lib.sh

if rt capture capture -o /tmp/cap; then
  for f in proc/cmdline sys/devices/system/cpu/isolated sys/devices/system/cpu/nohz_full sys/devices/system/cpu/online; do
    if [ -f "/tmp/cap/$f" ]; then expect_eq "captured /$f matches live" "$(cat /tmp/cap/$f)" "$(cat /$f)"
    else fail "captured /$f" "missing from the tree"; fi
  done
  expect_grep "captured uname -v (kernel version) says PREEMPT_RT" PREEMPT_RT /tmp/cap/proc/sys/kernel/version /tmp/cap/proc/version
  fact capture_files "$(find /tmp/cap -type f | wc -l) files, $(du -sk /tmp/cap | cut -f1) KiB"
  if rt inspect-live inspect --json && rt inspect-captured --root /tmp/cap inspect --json; then
    expect_grep "inspect --root on the capture mentions PREEMPT_RT" PREEMPT_RT "$OUT/inspect-captured.out"
    # Stable facts must agree (counters and times may differ between the two reads).
    for k in release version preempt_rt isolated nohz_full online clocksource; do
      a=$(json_value "$OUT/inspect-live.out" $k); b=$(json_value "$OUT/inspect-captured.out" $k)
      if [ -z "$a$b" ]; then skip "live and captured agree on $k" "no \"$k\" key"; else expect_eq "live and captured agree on $k" "$b" "$a"; fi
    done
  fi
fi
finish
