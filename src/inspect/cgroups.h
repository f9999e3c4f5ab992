// The cgroup layout (v1, v2 or hybrid) and the cpusets: v2 partitions, v1 exclusive cpusets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// One line of /proc/mounts (fstab(5) layout; spaces in paths are escaped as \040).
struct Mount {
  std::string source;
  std::string target;  ///< absolute, as the kernel prints it
  std::string fstype;
  std::vector<std::string> options;
  bool HasOption(std::string_view opt) const;
};

/// Parses /proc/mounts. Pure; malformed lines are skipped.
std::vector<Mount> ParseMounts(std::string_view text);

/// The mount point of the cgroup v2 hierarchy, or nullopt when none is mounted.
std::optional<std::string> CgroupV2Mount(const std::vector<Mount>& mounts);

/// A cpuset.cpus.partition value (Documentation/admin-guide/cgroup-v2.rst, "Cpuset"):
/// "member", "root", "isolated", or "root invalid (reason)" / "isolated invalid (reason)".
struct PartitionValue {
  std::string type;  ///< member, root or isolated
  bool valid = true;
  std::string reason;  ///< the kernel's reason when invalid
};
/// Parses a cpuset.cpus.partition value.
PartitionValue ParsePartition(std::string_view text);

/// A cgroup v2 directory that has cpuset files.
struct CgroupV2Cpuset {
  std::string path;       ///< inside the hierarchy: "/" or "/rt"
  std::string partition;  ///< raw cpuset.cpus.partition ("" for the root, which has none)
  PartitionValue parsed;
  std::optional<CpuSet> cpus;            ///< cpuset.cpus
  std::optional<CpuSet> effective_cpus;  ///< cpuset.cpus.effective
};

/// A cgroup v1 cpuset (Documentation/admin-guide/cgroup-v1/cpusets.rst).
struct CgroupV1Cpuset {
  std::string path;  ///< inside the hierarchy: "/" or "/rt"
  std::optional<CpuSet> cpus;
  std::optional<CpuSet> effective_cpus;
  std::optional<bool> cpu_exclusive;
  std::optional<bool> sched_load_balance;
};

/// A mounted v1 hierarchy and its controllers.
struct CgroupV1Hierarchy {
  std::string mount;
  std::vector<std::string> controllers;
};

/// What inspect's "cgroups" section shows.
struct CgroupState {
  std::string layout;  ///< "v1", "v2", "hybrid" (both mounted) or "none"
  std::optional<std::string> v2_mount;
  std::vector<std::string> v2_controllers;     ///< cgroup.controllers of the v2 root
  std::vector<std::string> v2_subtree_control;  ///< cgroup.subtree_control of the v2 root
  std::vector<CgroupV2Cpuset> v2_cpusets;       ///< every v2 dir with cpuset.cpus.partition, and the root
  std::vector<CgroupV1Hierarchy> v1_hierarchies;
  std::optional<std::string> v1_cpuset_mount;
  std::vector<CgroupV1Cpuset> v1_cpusets;  ///< the whole v1 cpuset tree
  bool truncated = false;                  ///< the walk stopped at its directory limit
};

/// Reads the cgroup layout from the already parsed mounts and walks the cpuset hierarchies.
/// The v2 root's cpuset.cpus.isolated is read by CollectCpus (CpuState::partition_isolated).
CgroupState CollectCgroups(const SysRoot& root, const std::vector<Mount>& mounts);

}  // namespace rtagent
