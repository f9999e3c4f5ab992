// The "cgroup" actuator: a cgroup backend as journaled, revertible items, with the keys the
// partitions tuner plans in (a cgroup directory, a file, a controller, a process's cgroup).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "tune/cgroup_backend.h"
#include "tune/executor.h"

namespace rtagent {

/// Actuator keys of the "cgroup" actuator and the values they take:
///   dir:<cgroup>                  "present" | "absent" (absent = move its processes to the
///                                 parent, then rmdir)
///   file:<cgroup>:<file>          the file's value ("cpuset.cpus" -> "2-3")
///   controller:<cgroup>:<name>    "+name" | "-name" in the cgroup's cgroup.subtree_control
///   proc:<pid>                    the cgroup the process is in ("/rt")
std::string CgroupDirKey(const std::string& cgroup);
std::string CgroupFileKey(const std::string& cgroup, const std::string& file);
std::string CgroupControllerKey(const std::string& cgroup, const std::string& controller);
std::string CgroupProcKey(int pid);

inline constexpr char kCgroupActuator[] = "cgroup";
inline constexpr char kPresent[] = "present";
inline constexpr char kAbsent[] = "absent";

/// The executor's face of a backend. The hierarchy and the backend are found on first use,
/// so registering it costs nothing when the profile has no partitions.
class CgroupActuator : public Actuator {
 public:
  CgroupActuator(SysRoot& root, CgroupFactory factory) : root_(root), factory_(std::move(factory)) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;
  /// The task placements the kernel changes by itself, as "affinity" items (TaskKey, CPU
  /// list), so the executor journals them before the write and revert restores them:
  ///   v2 cpuset.cpus.partition of a cgroup (and cpuset.cpus of a cgroup that is a partition):
  ///     every thread outside that cgroup's subtree except per-CPU kernel threads (the parent
  ///     and the member cgroups below it lose or regain the partition's CPUs);
  ///   proc:PID: every thread of the process (moving it sets its affinity to the cpuset's CPUs).
  /// Nothing for the other keys.
  Result<std::vector<SideEffect>> SideEffects(const std::string& key, const std::string& value) override;
  /// A cgroup's files exist only once its directory (and the parent's controller) is made.
  bool Batchable() const override { return false; }

 private:
  Result<CgroupBackend*> Backend();
  SysRoot& root_;
  CgroupFactory factory_;
  std::unique_ptr<CgroupBackend> backend_;
};

}  // namespace rtagent
