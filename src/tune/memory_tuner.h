// memory (and the kernel sysctls the profile names): transparent hugepages enabled/defrag
// (Documentation/admin-guide/mm/transhuge.rst; lesson chapter 8) and the documented sysctls
// (vm.stat_interval, kernel.sched_rt_runtime_us, watchdogs; docs/profile.md).
#pragma once

#include "tune/tuner.h"

namespace rtagent {

class MemoryTuner : public Tuner {
 public:
  std::string Section() const override { return "memory"; }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
};

}  // namespace rtagent
