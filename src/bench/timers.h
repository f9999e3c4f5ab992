// Timers (the paper's Table 6 and ipcbench's timer health): the cost of creating, deleting
// and arming a POSIX timer, and how well a periodic POSIX timer keeps its period, 2 ms and
// 10 ms, delivered as a real-time signal to the measuring thread: the error of every interval
// between two wake-ups, the rate achieved and the expirations lost (timer_getoverrun).
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// The periods of the timer-health tests: 2 ms and 10 ms, as ipcbench.
const std::vector<int64_t>& TimerHealthPeriodsNs();

/// How long past its due time the timer-health test waits for an expiry before it ends the
/// run (on PREEMPT_RT a real-time load above ktimers holds every expiry back while it runs).
inline constexpr int64_t kTimerStallNs = 1000000000;

/// What a stalled wait leaves in the results: the wait since the last wake-up, less one
/// period, as the run's last sample, and every whole period it covered as an expiry lost.
struct StalledWait {
  int64_t last_sample_ns = 0;
  uint64_t lost = 0;
};
StalledWait JudgeStalledWait(int64_t prev_ns, int64_t now_ns, int64_t period_ns);

/// timer.create_delete, timer.settime, timer.health.2ms, timer.health.10ms.
std::vector<Primitive> TimerTests();

}  // namespace rtagent::bench
