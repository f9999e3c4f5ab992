// The priority-inversion experiment in a child process that first joins a cgroup.
//
// A cgroup v2 cpuset partition (`apply` makes one for `partitions:`) takes its CPUs out of
// every other cgroup: a thread of a process outside it cannot be pinned there, and
// sched_setaffinity fails with EINVAL (Documentation/admin-guide/cgroup-v2.rst, "Cpuset";
// src/latency/measuring_cgroup.h). The experiment's three threads must run on the measured
// CPU, so where that CPU is in a partition they run in a forked process that has joined it,
// as the sampler does, and the caller (verify, bench pi) stays where it was. The figures come
// back through shared memory; a stop asked of the caller is passed on to the child.
#pragma once

#include <string>

#include "base/result.h"
#include "base/sysroot.h"
#include "bench/pi_experiment.h"

namespace rtagent::bench {

/// Forks; the child writes its pid to `cgroup_dir`/cgroup.procs (`cgroup_dir` relative to the
/// root, as kpath::CgroupDir gives it), reads back the cgroup it is in (PiResult::cgroup) and
/// runs RunPiExperiment(options). The child's errors come back as this call's, a join that
/// failed named with the cgroup; a child that died without a result is an error naming how.
Result<PiResult> RunPiExperimentInCgroup(SysRoot& root, const std::string& cgroup_dir, const PiOptions& options);

}  // namespace rtagent::bench
