// Context switches (the paper's Table 3): sched_yield alone (its "virtual switch": the only
// runnable thread yields to itself), and a switch to another thread or process of the same
// class on the same CPU.
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// switch.yield (alone), switch.yield.thread, switch.yield.process.
std::vector<Primitive> SwitchTests();

}  // namespace rtagent::bench
