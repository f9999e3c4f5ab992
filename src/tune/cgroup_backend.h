// The cpuset cgroups the partitions tuner makes, behind a small backend interface: libcgroup
// on the running system (it reads the real mounts itself), and a file-based twin that edits a
// fixture tree under --root. The "cgroup" actuator turns the backend into journaled,
// revertible items, including one for "this cgroup directory exists".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/kernel_paths.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "tune/executor.h"

namespace rtagent {

/// The hierarchy cpusets live in (Documentation/admin-guide/cgroup-v2.rst "Cpuset",
/// cgroup-v1/cpusets.rst).
struct CpusetHierarchy {
  int version = 2;                  ///< 2: the unified hierarchy; 1: a v1 hierarchy with cpuset
  std::string mount;                ///< absolute, as the mounts file prints it (the v1 cpuset mount point)
  std::string prefix = kpath::kCpusetPrefix;  ///< "" for a v1 hierarchy mounted with -o noprefix

  /// The mount point relative to the root.
  std::string Dir() const { return kpath::FromAbsolute(mount); }
  /// A cgroup's directory relative to the root ("/" is the hierarchy's top).
  std::string CgroupPath(const std::string& cgroup) const { return kpath::CgroupDir(Dir(), cgroup); }
  /// A cpuset file name: Cpuset(kpath::kCpusetCpus) is "cpuset.cpus" ("cpus" with noprefix).
  std::string Cpuset(const std::string& name) const { return prefix + name; }
};

/// Where cpusets live on the system under `root`: the v2 hierarchy when its top offers the
/// cpuset controller (cgroup.controllers), else a v1 hierarchy mounted with cpuset (a hybrid
/// system such as this project's build host has cpuset on v1 and a v2 mount without it).
/// ENOENT when there is none.
Result<CpusetHierarchy> FindCpusetHierarchy(const SysRoot& root);

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

/// The twin for fixture trees: directories and files under the root, made and edited the way
/// the kernel shows them (a new cgroup gets its cpuset files, "member", empty lists), process
/// membership kept in cgroup.procs (and tasks on v1) and proc/PID/cgroup when the fixture has
/// it. It refuses as the kernel does: ENOENT for a missing cgroup or file, EINVAL for a bad
/// partition type, ENOSPC attaching to a v1 cpuset without CPUs or memory nodes, EBUSY
/// removing a cgroup with children. `writes` null (plan) makes every change EROFS.
class FileCgroupBackend : public CgroupBackend {
 public:
  FileCgroupBackend(const SysRoot& reads, SysRoot* writes, CpusetHierarchy h)
      : reads_(reads), writes_(writes), h_(std::move(h)) {}
  const CpusetHierarchy& hierarchy() const override { return h_; }
  bool Exists(const std::string& cgroup) const override;
  Result<void> Create(const std::string& cgroup) override;
  Result<void> Remove(const std::string& cgroup) override;
  Result<std::string> Get(const std::string& cgroup, const std::string& file) const override;
  Result<void> Set(const std::string& cgroup, const std::string& file, const std::string& value) override;
  Result<std::string> CgroupOf(int pid) const override;
  Result<void> Move(int pid, const std::string& cgroup) override;

 private:
  std::vector<std::string> Cgroups() const;
  Result<void> Writable() const;
  const SysRoot& reads_;
  SysRoot* writes_;
  CpusetHierarchy h_;
};

/// The live backend: cgroup_init, cgroup_create_cgroup, cgroup_modify_cgroup with
/// cgroup_set_value_string, cgroup_get_cgroup/cgroup_get_value_string,
/// cgroup_change_cgroup_path (every thread of a process) and cgroup_delete_cgroup (tasks
/// migrate to the parent). The cgroup core files (cgroup.subtree_control) go through the
/// root. libcgroup's ECGOTHER is turned back into the kernel's errno, so known refusals
/// (EINVAL, EBUSY, ENOSPC) stay recognisable.
Result<std::unique_ptr<CgroupBackend>> MakeLibcgroupBackend(const SysRoot& reads, SysRoot* writes, CpusetHierarchy h);

/// Makes the backend for a root: libcgroup only when the root is the running system, the
/// file twin otherwise. `writes` is null when only reading (plan).
using CgroupFactory =
    std::function<Result<std::unique_ptr<CgroupBackend>>(const SysRoot& reads, SysRoot* writes, const CpusetHierarchy& h)>;
CgroupFactory DefaultCgroupFactory();

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

inline const std::string kCgroupActuator = "cgroup";
inline const std::string kPresent = "present";
inline const std::string kAbsent = "absent";

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
