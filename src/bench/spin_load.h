// The load of bench's second and third phases: every CPU busy, the measured one included, at
// a rank below or equal to the measuring thread's (ipcbench's "lower" and "equal" phases).
// latency/'s loads do not fit: they run at SCHED_OTHER and must stay off the measured CPUs,
// and their SCHED_OTHER supervisor would starve under real-time spinners. Here the measuring
// thread forks the spinners itself and kills them itself.
#pragma once

#include <sys/types.h>

#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "latency/sampler_syscalls.h"

namespace rtagent::bench {

/// One busy-looping process per CPU of a set, each pinned to its CPU at one scheduling class.
/// RAII: destroying it kills and reaps every spinner; a spinner also dies with the process
/// that forked it (PR_SET_PDEATHSIG), so none outlives rtagent.
class SpinLoad {
 public:
  SpinLoad() = default;
  ~SpinLoad();
  SpinLoad(const SpinLoad&) = delete;
  SpinLoad& operator=(const SpinLoad&) = delete;

  /// Forks one spinner per CPU of `cpus` at `sched` and returns once every one of them is
  /// pinned, in its class and spinning. The calling thread must be the process's only one
  /// (fork). A class the kernel refuses is an error naming the CPU, and nothing is left running.
  Result<void> Start(const CpuSet& cpus, const SchedState& sched);
  /// SIGKILL to every spinner, each one reaped. Idempotent.
  void Stop();
  /// The spinners' process ids, in CPU order (empty when stopped).
  const std::vector<pid_t>& Pids() const { return pids_; }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace rtagent::bench
