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

/// timer.create_delete, timer.settime, timer.health.2ms, timer.health.10ms.
std::vector<Primitive> TimerTests();

}  // namespace rtagent::bench
