// Which cgroup hierarchy holds the cpusets: the v2 hierarchy when it offers the cpuset
// controller, else a v1 hierarchy mounted with cpuset (Documentation/admin-guide/cgroup-v2.rst
// "Cpuset", cgroup-v1/cpusets.rst).
#pragma once

#include <string>

#include "base/kernel_paths.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// The hierarchy cpusets live in.
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

}  // namespace rtagent
