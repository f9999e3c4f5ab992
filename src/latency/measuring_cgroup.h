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
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// The cgroup the measuring process joins before it pins its threads.
struct MeasuringCgroup {
  std::string cgroup;  ///< inside the v2 hierarchy: "/rt" ("/" for the hierarchy's top)
  std::string dir;     ///< its directory relative to the root (kpath::CgroupDir of the v2 mount)
  std::string reason;  ///< one sentence for the verdict's notes
};

/// nullopt when the process may stay where it is: no cgroup v2 hierarchy with cpusets, or the
/// cgroup of the process reading it (proc/self/cgroup) already allows every CPU of `cpus`.
/// Otherwise the deepest valid partition root (or the hierarchy's top) whose effective CPUs
/// hold all of `cpus`. An error, naming the cgroups that hold them, when no single cgroup does
/// (the CPUs span partitions: measure each partition's CPUs in a run of its own).
Result<std::optional<MeasuringCgroup>> FindMeasuringCgroup(const SysRoot& root, const CpuSet& cpus);

}  // namespace rtagent
