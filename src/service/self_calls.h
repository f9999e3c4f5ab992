// The syscalls `hold` makes on its own process, not on the system it tunes: the signal mask
// and signalfd, its scheduling class, timer slack and CPU affinity, and giving memory back
// (madvise, malloc_trim). Behind one seam so tests inject a failure or record the calls
// without moving or trimming the test process (STYLE.md, "One door to the kernel").
#pragma once

#include <signal.h>

#include <cstdint>
#include <string>

#include "base/cpuset.h"
#include "base/result.h"

namespace rtagent::service {

class SelfCalls {
 public:
  virtual ~SelfCalls() = default;

  /// sigprocmask(how, set, old) on the calling thread.
  virtual Result<void> SignalMask(int how, const sigset_t& set, sigset_t* old) = 0;
  /// signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK): a new fd that reads the signals in `set`.
  virtual Result<int> SignalFd(const sigset_t& set) = 0;
  /// sched_setscheduler(0, SCHED_OTHER, 0): a daemon started from an RT shell must not stay FIFO.
  virtual Result<void> SetOtherPolicy() = 0;
  /// prctl(PR_SET_TIMERSLACK, ns).
  virtual Result<void> SetTimerSlack(uint64_t ns) = 0;
  /// sched_setaffinity(0, cpus).
  virtual Result<void> SetAffinity(const CpuSet& cpus) = 0;
  /// The text of the process's own /proc/self/smaps.
  virtual Result<std::string> OwnSmaps() = 0;
  /// madvise(start, length, MADV_DONTNEED) on a range of the process's own mappings.
  virtual Result<void> DropPages(uint64_t start, uint64_t length) = 0;
  /// malloc_trim(0): free heap pages go back to the kernel.
  virtual void TrimHeap() = 0;
};

/// The real syscalls, on the calling process. /proc/self/smaps is read through a live root.
SelfCalls& RealSelfCalls();

}  // namespace rtagent::service
