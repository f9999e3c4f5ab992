// The timer-health verdict (ipcbench's): can this machine's clock and timers resolve what the
// timer tests measure? A COARSE CLOCK run's timer figures come from the clock's granularity
// (an emulator's host timer, a jiffies clocksource), not from the kernel under test, and are
// never to be published as a board's figures.
#pragma once

#include "bench/bench_run.h"

namespace rtagent::bench {

/// COARSE CLOCK when the clock's resolution or read cost is coarse (latency/clock_info.h's
/// limits), or when a timer-health test of the idle phase has a median interval error of at
/// least a millisecond or half its period (ipcbench's run 1: 13.1 ms on a 2 ms timer). The
/// virtual-machine label comes from the run's host facts.
TimerHealth JudgeTimerHealth(const BenchRun& run);

}  // namespace rtagent::bench
