#include "bench/timer_health.h"

#include "latency/clock_info.h"
#include "report/format.h"

namespace rtagent::bench {

TimerHealth JudgeTimerHealth(const BenchRun& run) {
  ClockVerdictInput in;
  in.clock.resolution_ns = run.host.clock_resolution_ns;
  in.clock.read_cost_ns = run.host.clock_read_cost_ns;
  in.clock.clocksource = run.host.clocksource;
  in.virtual_machine = run.host.virtual_machine;
  const ClockVerdict clock = JudgeClock(in);
  TimerHealth h;
  h.coarse = clock.coarse;
  h.virtual_machine = clock.virtual_machine;
  for (const TestResult& r : run.results) {
    if (r.period_ns <= 0 || r.phase != Phase::kIdle || r.summary.count == 0) continue;
    const int64_t median = r.summary.p50_ns;
    if (median >= kCoarseMedianWakeupNs || median * 2 >= r.period_ns) {
      h.coarse = true;
      h.reasons.push_back("the " + FormatDuration(r.period_ns) + " timer's median interval error is " +
                          FormatNsAsUs(median) + " µs with nothing else running: the clock's granularity, not the "
                          "kernel, sets the timer figures");
    }
  }
  // The clock's own findings after the timers', the virtual-machine sentence last.
  for (const std::string& reason : clock.reasons) h.reasons.push_back(reason);
  return h;
}

}  // namespace rtagent::bench
