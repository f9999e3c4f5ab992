// A thread's scheduling class and CPU affinity as actuator values, behind a syscall seam:
// sched_getattr/sched_setattr and sched_getaffinity/sched_setaffinity on the live system, a
// twin that edits the fixture's proc/PID/task/TID files under --root, and fakes in tests.
// Under a fixture root nothing here may reach a live process (STYLE.md, "One door").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "tune/executor.h"

namespace rtagent {

/// One thread: its process (thread group) and its own id.
struct TaskId {
  int pid = 0;
  int tid = 0;
};

/// The actuator key of a thread: "PID/TID".
std::string TaskKey(const TaskId& t);
/// Parses "PID/TID" (or a bare "TID", taken as its own process).
Result<TaskId> ParseTaskKey(std::string_view key);

/// What sched_getattr(2) reports and sched_setattr(2) takes, in rtagent's terms.
struct SchedAttr {
  int policy = 0;     ///< SCHED_* number (inspect/threads.h SchedPolicy)
  int priority = 0;   ///< fifo/rr: 1..99
  int nice = 0;       ///< other/batch/idle: -20..19
  long long runtime_ns = -1;   ///< deadline; -1 when not known (a fixture without it)
  long long deadline_ns = -1;
  long long period_ns = -1;
  uint64_t flags = 0;  ///< SCHED_FLAG_*; only RESET_ON_FORK is carried over by a write
};

/// The canonical text of a scheduling class, the value plan prints and compares exactly:
/// "fifo:80", "rr:10", "other:nice=0", "batch:nice=5", "idle",
/// "deadline:runtime=300000,deadline=1000000,period=1000000" (ns; "?" for an unknown field).
std::string FormatSched(const SchedAttr& a);
/// Parses FormatSched's text; an Error (EINVAL) for anything else.
Result<SchedAttr> ParseSched(std::string_view text);

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

/// The running system: syscall(SYS_sched_getattr/SYS_sched_setattr) (glibc in Debian 12 has no
/// wrapper) and sched_{get,set}affinity. `root` must be live; it is used to check that TID still
/// belongs to PID (proc/PID/task/TID), so a reused thread id is never touched.
std::unique_ptr<SchedSyscalls> MakeLiveSchedSyscalls(const SysRoot& root);

/// The twin for a fixture tree: reads policy and priority from proc/PID/task/TID/stat (fields
/// 18, 19, 40, 41), affinity from status (Cpus_allowed_list) and deadline parameters from sched
/// (dl.runtime, dl.deadline and rtagent's own dl.period line), and writes by rewriting those
/// fields and lines in place. It answers as the kernel would: ESRCH for a missing thread,
/// EINVAL for a PF_NO_SETAFFINITY thread's affinity or an out-of-range value. `writes` may be
/// null (plan): every write then fails with EROFS.
class FixtureSchedSyscalls : public SchedSyscalls {
 public:
  FixtureSchedSyscalls(const SysRoot& reads, SysRoot* writes) : reads_(reads), writes_(writes) {}
  Result<SchedAttr> GetAttr(const TaskId& t) const override;
  Result<void> SetAttr(const TaskId& t, const SchedAttr& a) override;
  Result<CpuSet> GetAffinity(const TaskId& t) const override;
  Result<void> SetAffinity(const TaskId& t, const CpuSet& cpus) override;

 private:
  Result<void> CheckExists(const TaskId& t) const;
  const SysRoot& reads_;
  SysRoot* writes_;
};

/// Makes the syscall layer for a root: the live one only when `reads.IsLive()`, the fixture
/// twin otherwise. `writes` is null when only reading (plan).
using SchedFactory = std::function<std::unique_ptr<SchedSyscalls>(const SysRoot& reads, SysRoot* writes)>;
SchedFactory DefaultSchedFactory();

/// Rewrites fields of a /proc stat line (1-based field numbers, as in proc(5)) keeping every
/// other byte: the comm in parentheses and the separators. Fields before 3 cannot be changed.
Result<std::string> RewriteStatFields(std::string_view stat, const std::vector<std::pair<int, std::string>>& fields);

/// The executor's face of a SchedSyscalls. Two of them share one syscall layer:
/// "sched" (values are FormatSched text) and "affinity" (values are CPU lists). Keys are TaskKey.
class SchedActuator : public Actuator {
 public:
  enum class Kind { kPolicy, kAffinity };
  SchedActuator(std::shared_ptr<SchedSyscalls> sys, Kind kind) : sys_(std::move(sys)), kind_(kind) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;

 private:
  std::shared_ptr<SchedSyscalls> sys_;
  Kind kind_;
};

/// Actuator names used by the ranks tuner's items.
inline const std::string kSchedActuator = "sched";
inline const std::string kAffinityActuator = "affinity";

}  // namespace rtagent
