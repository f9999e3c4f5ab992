// The scheduling seam's twin for fixture trees: a thread's class and affinity kept in the
// tree's proc/PID/task/TID files, read and rewritten as the kernel would show them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/sysroot.h"
#include "tune/sched_syscalls.h"

namespace rtagent {

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
  /// The error a failed read of thread `t`'s files stands for: ESRCH when the thread is gone.
  Error Missing(const TaskId& t, const Error& e) const;
  Result<void> WriteDeadlineLines(const TaskId& t, const SchedAttr& a);
  const SysRoot& reads_;
  SysRoot* writes_;
};

/// Rewrites fields of a /proc stat line (1-based field numbers, as in proc(5)) keeping every
/// other byte: the comm in parentheses and the separators. Fields before 3 cannot be changed.
Result<std::string> RewriteStatFields(std::string_view stat, const std::vector<std::pair<int, std::string>>& fields);

}  // namespace rtagent
