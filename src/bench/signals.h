// Signals (the paper's Table 7): delivery of a signal to an empty handler installed with
// sigaction, in the same thread (no switch), and to another thread or process one rank above
// that waits in sigsuspend (one switch).
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// signal.self, signal.thread, signal.process.
std::vector<Primitive> SignalTests();

}  // namespace rtagent::bench
