// cpus.offline: CPUs taken offline (CPU hotplug, Documentation/core-api/cpu_hotplug.rst), as
// OpenShift's PerformanceProfile does with offlinedCpus (issue 20): a CPU the board has but
// the workload does not need runs nothing and takes no interrupt, so it cannot disturb a
// neighbour through shared caches or power limits. Refused for CPU 0 (the boot CPU, which
// x86 cannot take offline at all) and for the last housekeeping CPU. Written through
// cpuN/online, journaled, put back online by revert. The tuner declares its section.
#pragma once

#include "profile/keys.h"
#include "tune/tuner.h"

namespace rtagent {

/// What the profile's cpus section says.
struct CpusConfig {
  profile::Marked<profile::CpuSpec> offline;  ///< empty = none
};

/// The cpus section's declaration; CpusOf reads a loaded profile's.
const profile::Block<CpusConfig>& CpusSection();
inline const CpusConfig& CpusOf(const profile::Profile& p) { return CpusSection().Of(p); }

/// Plans cpuN/online = 0 for every CPU of cpus.offline. Runs last: revert (newest first) brings
/// the CPUs back before anything else is put back on them.
class OfflineTuner : public Tuner {
 public:
  std::string Section() const override { return CpusSection().path(); }
  int Chapter() const override { return 6; }
  const profile::BlockBase* OwnSection() const override { return &CpusSection(); }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
};

}  // namespace rtagent
