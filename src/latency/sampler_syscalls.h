// The sampler's seam to the syscalls that are not files: affinity, scheduling class, memory
// locking, timer slack and the PM QoS note. Tests substitute a recording fake.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/cpuset.h"
#include "base/pm_qos.h"
#include "base/result.h"

namespace rtagent {

/// A thread's scheduling class, as sched_getscheduler/sched_getparam report it.
struct SchedState {
  int policy = 0;    ///< SCHED_OTHER, SCHED_FIFO, ...
  int priority = 0;  ///< sched_priority (0 for SCHED_OTHER)

  bool operator==(const SchedState&) const = default;
};

/// The syscalls the sampler makes. Calls named "calling thread" act on the thread that calls
/// them (pid 0), never on another process. Every failure carries the errno (EPERM when not
/// privileged) so the sampler can tell "not allowed" from "not possible".
class SamplerSyscalls {
 public:
  virtual ~SamplerSyscalls() = default;

  /// mlockall(MCL_CURRENT | MCL_FUTURE): every page now and later stays resident.
  virtual Result<void> LockMemory() = 0;
  /// munlockall(): gives the lock back.
  virtual Result<void> UnlockMemory() = 0;

  /// The calling thread's CPU affinity.
  virtual Result<CpuSet> GetAffinity() = 0;
  /// Pins the calling thread to `cpus` (sched_setaffinity(0, ...)).
  virtual Result<void> SetAffinity(const CpuSet& cpus) = 0;

  /// The calling thread's policy and priority.
  virtual Result<SchedState> GetScheduler() = 0;
  /// Sets the calling thread's policy and priority (sched_setscheduler(0, ...)).
  virtual Result<void> SetScheduler(const SchedState& state) = 0;

  /// The calling thread's timer slack in ns (prctl PR_GET_TIMERSLACK).
  virtual Result<uint64_t> GetTimerSlack() = 0;
  /// Sets the calling thread's timer slack in ns (prctl PR_SET_TIMERSLACK; 0 means "default").
  virtual Result<void> SetTimerSlack(uint64_t ns) = 0;

  /// The PM QoS device of `root` (/dev/cpu_dma_latency) the sampler's own note is held on
  /// (base/pm_qos.h: the note lives while the device stays open).
  virtual std::unique_ptr<QosDevice> PmQosDevice(const SysRoot& root) = 0;
};

/// The real syscalls.
class LinuxSamplerSyscalls : public SamplerSyscalls {
 public:
  Result<void> LockMemory() override;
  Result<void> UnlockMemory() override;
  Result<CpuSet> GetAffinity() override;
  Result<void> SetAffinity(const CpuSet& cpus) override;
  Result<SchedState> GetScheduler() override;
  Result<void> SetScheduler(const SchedState& state) override;
  Result<uint64_t> GetTimerSlack() override;
  Result<void> SetTimerSlack(uint64_t ns) override;
  std::unique_ptr<QosDevice> PmQosDevice(const SysRoot& root) override;
};

/// The process-wide real syscalls.
SamplerSyscalls& RealSamplerSyscalls();

/// "SCHED_FIFO", "SCHED_OTHER", ... for a policy number.
std::string SchedPolicyName(int policy);

}  // namespace rtagent
