// The syscalls behind a thread's scheduling class and CPU affinity, as a seam: the live
// system (live_sched_syscalls.h), a twin that edits a fixture's proc/PID/task/TID files
// under --root (fixture_sched_syscalls.h), and fakes in tests. Under a fixture root nothing
// here may reach a live process (STYLE.md, "One door").
#pragma once

#include <functional>
#include <memory>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "tune/sched_attr.h"

namespace rtagent {

/// The syscalls behind a thread's scheduling: the seam that --root and tests replace.
/// Errors carry the kernel's errno: ESRCH for a thread that exited, EINVAL for a per-CPU
/// kernel thread's affinity, EPERM without CAP_SYS_NICE, EBUSY for a refused deadline booking.
class SchedSyscalls {
 public:
  virtual ~SchedSyscalls() = default;
  virtual Result<SchedAttr> GetAttr(const TaskId& t) const = 0;
  virtual Result<void> SetAttr(const TaskId& t, const SchedAttr& a) = 0;
  virtual Result<CpuSet> GetAffinity(const TaskId& t) const = 0;
  virtual Result<void> SetAffinity(const TaskId& t, const CpuSet& cpus) = 0;
};

/// Makes the syscall layer for a root: the live one only when `reads.IsLive()`, the fixture
/// twin otherwise. `writes` is null when only reading (plan).
using SchedFactory = std::function<std::unique_ptr<SchedSyscalls>(const SysRoot& reads, SysRoot* writes)>;
SchedFactory DefaultSchedFactory();

}  // namespace rtagent
