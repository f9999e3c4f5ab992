// Kernel identity, preemption model and the RT safety net (RT throttling or the fair server).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// "6.12.43-rt-rk3588" -> 6.12.43. Only the leading numbers matter for feature checks.
struct KernelVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  /// True when this version is major.minor or later.
  bool AtLeast(int want_major, int want_minor) const {
    return major != want_major ? major > want_major : minor >= want_minor;
  }
};

/// Parses the leading "X.Y[.Z]" of a kernel release; nullopt when it does not start that way.
std::optional<KernelVersion> ParseKernelRelease(std::string_view release);

/// The preemption model `uname -v` names: "PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT_LAZY",
/// "PREEMPT" or "" (a kernel built without preemption or with voluntary preemption prints
/// none). Old RT patch sets wrote "PREEMPT RT"; that is reported as "PREEMPT_RT".
std::string ParsePreemptModel(std::string_view version);

/// One CPU's fair server (Linux 6.12+, debugfs sched/fair_server/cpuN): the deadline server
/// that keeps runtime_ns of every period_ns for SCHED_OTHER tasks; runtime 0 switches it off.
struct FairServerCpu {
  int cpu = 0;
  std::optional<long long> runtime_ns;
  std::optional<long long> period_ns;
};

/// Which mechanism keeps real-time tasks from starving everything else
/// (Documentation/scheduler/sched-rt-group.rst, sched-deadline.rst; lesson chapter 2).
struct SafetyNet {
  /// "fair_server", "rt_throttling", "none" or "unknown".
  std::string active;
  /// One sentence on how `active` was decided.
  std::string reason;
  std::optional<long long> rt_runtime_us;  ///< -1 means RT throttling is off
  std::optional<long long> rt_period_us;
  /// "visible" (read from debugfs), "not_visible" (6.12+ but debugfs not mounted),
  /// "not_readable" (permission), "absent" (kernel before 6.12).
  std::string fair_server_state;
  std::vector<FairServerCpu> fair_server;  ///< per online CPU when visible
};

/// What inspect's "kernel" section shows.
struct KernelInfo {
  std::optional<std::string> release;  ///< proc/sys/kernel/osrelease (uname -r)
  std::optional<std::string> version;  ///< proc/sys/kernel/version (uname -v)
  std::optional<std::string> arch;     ///< proc/sys/kernel/arch, else guessed from cpuinfo
  std::optional<KernelVersion> parsed;
  std::string preempt_model;                        ///< ParsePreemptModel(version)
  std::optional<std::string> preempt_dynamic_mode;  ///< debugfs sched/preempt selection
  std::optional<long long> realtime_sysfs;          ///< sys/kernel/realtime, 1 on PREEMPT_RT
  bool preempt_rt = false;  ///< the version string or sys/kernel/realtime says PREEMPT_RT
  SafetyNet safety_net;
};

/// Reads the kernel section. `online` chooses the fair server CPUs to read; `cpuinfo` is
/// proc/cpuinfo's text (read once by the caller) for the architecture fallback.
KernelInfo CollectKernelInfo(const SysRoot& root, const CpuSet& online, std::string_view cpuinfo);

}  // namespace rtagent
