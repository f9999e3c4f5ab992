// partitions: cpuset cgroups that set CPUs apart while the system runs (the lesson's
// chapter 6). On cgroup v2 a partition (cpuset.cpus.partition = isolated or root, read back:
// an invalid one reads "isolated invalid (reason)"); on a v1 or hybrid system the equivalent
// exclusive cpuset without load balancing (cgroup-v1/cpusets.rst). Matched processes are
// moved in. Everything goes through a CgroupBackend: libcgroup live, a file twin under --root.
#pragma once

#include "tune/cgroup_backend.h"
#include "tune/sched_actuator.h"
#include "tune/tuner.h"

namespace rtagent {

class PartitionsTuner : public Tuner {
 public:
  /// `factory` makes the backend: libcgroup on the running system, the file twin under
  /// --root (DefaultCgroupFactory); tests may pass their own.
  /// `sched_factory` makes the syscall layer of the "affinity" actuator that keeps the task
  /// placements a partition write disturbs (live syscalls, or the fixture twin under --root).
  explicit PartitionsTuner(CgroupFactory factory = DefaultCgroupFactory(),
                           SchedFactory sched_factory = DefaultSchedFactory())
      : factory_(std::move(factory)), sched_factory_(std::move(sched_factory)) {}
  std::string Section() const override { return "partitions"; }
  int Chapter() const override { return 6; }
  /// Items, per partition in profile order ("cgroup" actuator, keys in cgroup_backend.h):
  ///   v2: "+cpuset" in the top's cgroup.subtree_control (once), the directory, cpuset.cpus,
  ///       cpuset.cpus.partition;
  ///   v1: the directory, cpuset.cpus, cpuset.mems (the parent's), cpuset.cpu_exclusive = 1,
  ///       cpuset.sched_load_balance = 0;
  /// then one item per matched process (user processes only; the first partition that names
  /// it wins). Findings: an invalid partition with the kernel's reason (error), a process name
  /// that matches nothing (warning), v1's top cpuset still balancing every CPU (warning).
  /// An Error when the profile has partitions but the system has no cpuset hierarchy.
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  /// Registers "cgroup" (the hierarchy and backend are found on first use) and "affinity"
  /// (for the placements the kernel changes when a partition comes or goes).
  void AddActuators(Executor& executor, SysRoot& root) const override;

 private:
  CgroupFactory factory_;
  SchedFactory sched_factory_;
};

/// The registry's constructor for the partitions section.
std::unique_ptr<Tuner> MakePartitionsTuner();

}  // namespace rtagent
