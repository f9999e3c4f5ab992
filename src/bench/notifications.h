// Notification (the paper's pulses, ipcbench's MsgSendPulse): a one-way event with no reply,
// delivered within the same thread (no switch), to another thread or to another process one
// rank above (one switch), over an eventfd and over a queued real-time signal (which, like a
// pulse, carries a small value).
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// notify.<eventfd|signal>.<self|thread|process>.
std::vector<Primitive> NotifyTests();

}  // namespace rtagent::bench
