#include "bench/kernel_calls.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace rtagent::bench {

std::vector<Primitive> KernelCallTests() {
  return {
      Solo(Group::kKernel, "kernel.getppid", "a real system call", "syscall(SYS_getppid)",
           [] {
             const int64_t t0 = NowNs();
             ::syscall(SYS_getppid);
             return NowNs() - t0;
           }),
      Solo(Group::kKernel, "kernel.clock_gettime", "clock read (vDSO)", "clock_gettime(CLOCK_MONOTONIC)",
           [] {
             const int64_t t0 = NowNs();
             timespec ts;
             ::clock_gettime(CLOCK_MONOTONIC, &ts);
             return NowNs() - t0;
           }),
      Solo(Group::kKernel, "kernel.clock_getres", "clock resolution (vDSO)", "clock_getres(CLOCK_MONOTONIC)",
           [] {
             const int64_t t0 = NowNs();
             timespec ts;
             ::clock_getres(CLOCK_MONOTONIC, &ts);
             return NowNs() - t0;
           }),
  };
}

}  // namespace rtagent::bench
