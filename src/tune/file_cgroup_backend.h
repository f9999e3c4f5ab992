// The cgroup backend's twin for fixture trees: cgroup directories and files under the root,
// made and edited the way the kernel shows them.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/cgroup_backend.h"

namespace rtagent {

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

}  // namespace rtagent
