// Threads (the paper's Table 8): creating a thread that returns at once and joining it, with
// glibc's default stack and with a stack allocated once beforehand, and fork + wait of a
// child that exits at once (the measuring process's own size sets what fork copies).
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// thread.create_join.default, thread.create_join.own_stack, thread.fork_wait.
std::vector<Primitive> ThreadTests();

}  // namespace rtagent::bench
