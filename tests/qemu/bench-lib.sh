# `rtagent bench --quick` and `rtagent bench pi` in a guest, shared by rt-bench and stock-bench
# (sourced after lib.sh). Under TCG every time is the emulator's: nothing here asserts a
# figure. Shapes that hold on any kernel are asserted (every phase ran, every line is
# labelled a virtual machine, the timer-health verdict is there); figures become FACT lines.
# Only the groups the comparison needs run (kernel calls, switches, timers: --only): the whole
# --quick run did not end within a 240 s boot under TCG (docs/qemu.md).
# The JSON lines go to the host as ARTIFACT lines (run.sh writes them to bench.jsonl in the
# scenario's folder) for `bench --compare` (host/bench-compare.sh).

# bench_quick PREEMPT_RT: PREEMPT_RT is true or false, what the run line must say.
bench_quick() {
  t0=$(cut -d' ' -f1 /proc/uptime)
  rtagent bench --quick --cpu 2 --only kernel,switch,timer --json "$OUT/bench.jsonl" --md "$OUT/bench.md" \
    --svg "$OUT/bench.svg" > "$OUT/bench.out" 2> "$OUT/bench.err" &
  pid=$!
  # A bench that has not finished in BENCH_LIMIT seconds (150 by default; the stock kernel's
  # emulated switches and timers are slower) is a failure that shows where each of its threads
  # and processes waits (stat: state, policy, CPU; wchan), not a boot timeout.
  n=0
  while kill -0 $pid 2> /dev/null && [ $n -lt "${BENCH_LIMIT:-150}" ]; do sleep 1; n=$((n + 1)); done
  if kill -0 $pid 2> /dev/null; then
    for t in /proc/$pid/task/* $(for c in $(cat /proc/$pid/task/*/children); do echo /proc/$c; done); do
      info "stuck: $(cut -d' ' -f1-3,39-41 $t/stat) wchan=$(cat $t/wchan) $(grep -h voluntary $t/status | tr '\n' ' ')"
    done
    tail -4 "$OUT/bench.out" | sed 's/^/INFO out: /'
    kill -TERM $pid; sleep 5; kill -KILL $pid 2> /dev/null
  fi
  wait $pid
  RT_RC=$?
  secs=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{print b-a}')
  echo "STEP bench: rtagent bench --quick --cpu 2 --only kernel,switch,timer -> exit $RT_RC after $secs s"
  fact bench_quick_seconds "$secs (guest uptime, TCG)"
  if [ $RT_RC != 0 ]; then
    fail "bench --quick" "exit $RT_RC after $secs s: $(tail -5 "$OUT/bench.err" | tr '\n' '|') $(tail -8 "$OUT/bench.out" | tr '\n' '|')"
    return 1
  fi
  pass "bench --quick exits 0"
  sed 's/^/  | /' "$OUT/bench.out" | head -12
  run=$(grep '"type":"run"' "$OUT/bench.jsonl")
  case $run in *"\"preempt_rt\":$1"*) pass "run line: preempt_rt $1" ;; *) fail "run line: preempt_rt $1" "$run" ;; esac
  case $run in *'"virtual_machine":true'*) pass "run line: virtual machine" ;; *) fail "run line: virtual machine" "$run" ;; esac
  case $run in *'"policy":"SCHED_FIFO"'*) pass "measured at SCHED_FIFO" ;; *) fail "measured at SCHED_FIFO" "$run" ;; esac
  for phase in idle lower equal; do
    n=$(grep -c "\"type\":\"result\".*\"phase\":\"$phase\"" "$OUT/bench.jsonl")
    if [ "$n" -gt 0 ]; then pass "phase $phase: $n results"; else fail "phase $phase" "no result line"; fi
  done
  unlabelled=$(grep '"type":"result"' "$OUT/bench.jsonl" | grep -vc '"virtual_machine":true')
  expect_eq "every result line says virtual machine" "$unlabelled" 0
  failed=$(grep '"type":"result"' "$OUT/bench.jsonl" | grep -v '"error":""' | sed 's/.*"id":"\([^"]*\)".*"phase":"\([^"]*\)".*/\1 (\2)/' | tr '\n' ' ')
  expect_eq "no test failed" "$failed" ""
  expect_grep "timer-health line" '"type":"timer_health"' "$OUT/bench.jsonl"
  expect_grep "Markdown says virtual-machine figures" "virtual-machine figures" "$OUT/bench.md"
  expect_grep "SVG written" "</svg>" "$OUT/bench.svg"
  fact bench_timer_health "$(sed -n 's/.*"type":"timer_health","verdict":"\([^"]*\)".*/\1/p' "$OUT/bench.jsonl")"
  fact bench_clock "$(echo "$run" | sed 's/.*"clocksource":"\([^"]*\)".*"clock_resolution_ns":\([0-9]*\),"clock_read_cost_ns":\([0-9]*\).*/\1, resolution \2 ns, read \3 ns/')"
  for id in kernel.getppid switch.yield.thread timer.health.2ms timer.health.10ms; do
    for phase in idle lower equal; do
      line=$(grep "\"id\":\"$id\".*\"phase\":\"$phase\"" "$OUT/bench.jsonl") || continue
      fact "bench_${id}_$phase" "p50 $(echo "$line" | sed 's/.*"p50":\([0-9]*\).*/\1/') ns, p99 $(echo "$line" | sed 's/.*"p99":\([0-9]*\).*/\1/') ns (emulated)"
    done
  done
  artifact bench.jsonl "$OUT/bench.jsonl"
}

# bench_pi: the priority-inversion experiment with tracefs on. Its verdict under TCG is a
# fact; the kernel's own record of the boost is asserted. On isolated CPU 2: about 1.2 s of
# guest time since work is counted from spaced CLOCK_MONOTONIC reads (with the thread CPU-time
# clock, which stands still there under TCG, ten periods took 15-30 s; docs/bench.md).
bench_pi() {
  t0=$(cut -d' ' -f1 /proc/uptime)
  rtagent bench pi --cpu 2 --json > "$OUT/pi.json" 2> "$OUT/pi.err"
  RT_RC=$?
  fact bench_pi_seconds "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{print b-a}') (guest uptime, TCG)"
  echo "STEP bench-pi: rtagent bench pi --cpu 2 --json -> exit $RT_RC"
  case $RT_RC in 0|1|3) pass "bench pi ran to a verdict (exit $RT_RC)" ;; *) fail "bench pi" "exit $RT_RC: $(head -3 "$OUT/pi.err" | tr '\n' '|')"; return ;; esac
  json_flat "$OUT/pi.json" > /tmp/pi.flat
  jexpect "pi: the sched_pi_setprio event was recorded" /tmp/pi.flat evidence.traced true
  jexpect "pi: no boost without inheritance" /tmp/pi.flat evidence.boosts_none 0
  boosts=$(jget /tmp/pi.flat evidence.boosts_inherit)
  # The kernel raises the holder only when the high thread finds the lock held: runs that never
  # found it held (late wake-ups let the low thread finish first) have no boost to show, and
  # stopped at the time limit or after the fifth run, as the JSON says.
  contended=$(jget /tmp/pi.flat inherit.contended)
  if [ "${contended:-0}" -gt 0 ]; then
    if [ "${boosts:-0}" -gt 0 ]; then pass "pi: the lock holder was raised ($boosts boosts in $contended contended periods)"
    else fail "pi: the lock holder was raised" "boosts_inherit=$boosts with $contended contended periods"; fi
  else
    oot=$(jget /tmp/pi.flat inherit.out_of_time); att=$(jget /tmp/pi.flat inherit.attempts)
    if [ "$oot" = true ] || [ "$att" = 5 ]; then
      pass "pi: with no contended period, the runs stopped at the limit or after 5 (out_of_time=$oot, attempts=$att)"
    else
      fail "pi: with no contended period, the runs stopped at the limit or after 5" "out_of_time=$oot attempts=$att"
    fi
    fact pi_boost_not_shown "no period with inheritance found the lock held (late wake-ups of an emulated CPU)"
  fi
  fact pi_verdict "$(jget /tmp/pi.flat verdict): none $(jget /tmp/pi.flat none.misses)/$(jget /tmp/pi.flat none.periods) missed, inherit $(jget /tmp/pi.flat inherit.misses)/$(jget /tmp/pi.flat inherit.periods); contended none $(jget /tmp/pi.flat none.contended), inherit $(jget /tmp/pi.flat inherit.contended) in $(jget /tmp/pi.flat inherit.attempts) runs (emulated)"
  fact pi_boost "$(jget /tmp/pi.flat evidence.example)"
}
