// The cpuset cgroups the partitions tuner makes, behind a small backend interface: libcgroup
// on the running system (it reads the real mounts itself; libcgroup_backend.h), and a
// file-based twin that edits a fixture tree under --root (file_cgroup_backend.h). The
// "cgroup" actuator (cgroup_actuator.h) turns a backend into journaled, revertible items.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/cpuset_hierarchy.h"

namespace rtagent {

/// The cgroup operations partitions need. Cgroup paths are inside the hierarchy: "/", "/rt".
/// Errors carry the kernel's errno (EINVAL, EBUSY, ENOSPC, ESRCH, ...).
class CgroupBackend {
 public:
  virtual ~CgroupBackend() = default;
  virtual const CpusetHierarchy& hierarchy() const = 0;
  virtual bool Exists(const std::string& cgroup) const = 0;
  /// Makes the cgroup directory (its parent must exist).
  virtual Result<void> Create(const std::string& cgroup) = 0;
  /// Moves the processes left in the cgroup to its parent, then removes the directory.
  virtual Result<void> Remove(const std::string& cgroup) = 0;
  /// A file of the cgroup, trimmed: "cpuset.cpus", "cgroup.subtree_control", ...
  virtual Result<std::string> Get(const std::string& cgroup, const std::string& file) const = 0;
  virtual Result<void> Set(const std::string& cgroup, const std::string& file, const std::string& value) = 0;
  /// The cgroup a process is in, in this hierarchy. ESRCH when it is gone.
  virtual Result<std::string> CgroupOf(int pid) const = 0;
  /// Moves every thread of a process into the cgroup.
  virtual Result<void> Move(int pid, const std::string& cgroup) = 0;
};

/// Makes the backend for a root: libcgroup only when the root is the running system, the
/// file twin otherwise. `writes` is null when only reading (plan).
using CgroupFactory =
    std::function<Result<std::unique_ptr<CgroupBackend>>(const SysRoot& reads, SysRoot* writes, const CpusetHierarchy& h)>;
CgroupFactory DefaultCgroupFactory();

}  // namespace rtagent
