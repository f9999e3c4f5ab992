// Where the measuring process has to run to be allowed on the CPUs it measures.
//
// In the cgroup v2 cpuset controller a task may only run on its own cgroup's effective CPUs,
// and a partition root (cpuset.cpus.partition = root or isolated) takes its CPUs out of its
// parent's effective set (Documentation/admin-guide/cgroup-v2.rst, "Cpuset"; seed 002, the
// Field Guide's chapter on isolating CPUs with cpusets). Once `apply` has made an isolated
// partition on the CPUs a latency test measures, a process left in the root cgroup cannot
// pin a thread there: sched_setaffinity fails with EINVAL. An RT application is started in
// the partition's cgroup; the sampler has to be too, or it does not measure what the
// application will get.
#pragma once

#include <optional>
#include <string>

#include "base/cpuset.h"
#include "base/kernel_paths.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// The cgroup the measuring process joins before it pins its threads.
struct MeasuringCgroup {
  std::string cgroup;  ///< inside the v2 hierarchy: "/rt" ("/" for the hierarchy's top)
  std::string dir;     ///< its directory relative to the root (kpath::CgroupDir of the v2 mount)
  std::string reason;  ///< one sentence for the verdict's notes
  CpuSet cpus;         ///< its effective CPUs (cpuset.cpus.effective)
};

/// The calling process's cgroup in the v2 hierarchy, from the "0::" line of proc/self/cgroup
/// ("/system.slice/x.service"); "/" when there is no such line.
std::string OwnV2Cgroup(const SysRoot& root);

/// nullopt when the process may stay where it is: no cgroup v2 hierarchy with cpusets, or the
/// cgroup of the process reading it (proc/self/cgroup) already allows every CPU of `cpus`.
/// Otherwise the deepest valid partition root (or the hierarchy's top) whose effective CPUs
/// hold all of `cpus`. An error, naming the cgroups that hold them, when no single cgroup does
/// (the CPUs span partitions: measure each partition's CPUs in a run of its own).
Result<std::optional<MeasuringCgroup>> FindMeasuringCgroup(const SysRoot& root, const CpuSet& cpus);

/// Moves the calling process, every thread of it, into the cgroup at `dir` (relative to the
/// root, as MeasuringCgroup::dir): "0" written to its cgroup.procs
/// (Documentation/admin-guide/cgroup-v2.rst). The kernel then keeps its threads on that
/// cgroup's CPUs. The error is the write's, for the caller to say who was moved. Inline: the
/// small rtagent-sampler program joins with it and links nothing else of this file.
inline Result<void> JoinCgroup(SysRoot& root, const std::string& dir) {
  return root.Write(dir + "/" + kpath::kCgroupProcs, "0");
}

/// For a program that runs on `cpus` itself (the kernel benchmark): FindMeasuringCgroup, then
/// JoinCgroup of what it found. nullopt when the process may stay where it is; the cgroup
/// joined otherwise. Errors: FindMeasuringCgroup's, or the move refused, naming the cgroup.
Result<std::optional<MeasuringCgroup>> JoinPartitionHolding(SysRoot& root, const CpuSet& cpus);

}  // namespace rtagent
