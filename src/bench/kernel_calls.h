// Kernel calls (the paper's Table 2): the cost of entering the kernel, and of the clock reads
// every other figure is taken with.
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// getppid through syscall(2) (a real kernel entry, never cached by libc),
/// clock_gettime(CLOCK_MONOTONIC) and clock_getres (both answered by the vDSO on x86-64 and
/// arm64 without entering the kernel).
std::vector<Primitive> KernelCallTests();

}  // namespace rtagent::bench
