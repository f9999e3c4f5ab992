// CPU sets the kernel reports (possible, online, isolated, nohz_full) and the runtime
// housekeeping knobs that go with them (workqueue cpumask, timer_migration).
#pragma once

#include <optional>
#include <string>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// What inspect's "cpus" section shows. A set is nullopt when its file is absent.
struct CpuState {
  std::optional<CpuSet> possible;
  std::optional<CpuSet> present;
  std::optional<CpuSet> online;
  std::optional<CpuSet> isolated;   ///< isolcpus' domain CPUs (sys/.../cpu/isolated)
  std::optional<CpuSet> nohz_full;  ///< absent without CONFIG_NO_HZ_FULL
  /// cpuset.cpus.isolated of the cgroup v2 root: CPUs in isolated partitions (6.7+).
  std::optional<CpuSet> partition_isolated;
  std::optional<CpuSet> workqueue_cpumask;  ///< unbound workqueues may run here
  std::optional<long long> timer_migration;  ///< kernel.timer_migration
  /// Isolated by any of the three mechanisms: what "on isolated CPUs" means in inspect.
  CpuSet isolated_all;
  /// Online CPUs not in isolated_all.
  CpuSet housekeeping;
  /// Number of possible CPUs (resolves "N" in kernel CPU lists); at least online's count.
  int nr_cpus = 0;
};

/// Reads the CPU sets. `cgroup2_mount` is the v2 hierarchy's mount point (from
/// CgroupV2Mount), for its root's cpuset.cpus.isolated.
CpuState CollectCpus(const SysRoot& root, const std::optional<std::string>& cgroup2_mount);

}  // namespace rtagent
