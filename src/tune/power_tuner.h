// power: per-CPU PM QoS resume latency, cpuidle states above the profile's exit-latency limit
// disabled, and the cpufreq governor (lesson chapter 7; Documentation/admin-guide/pm/).
// The /dev/cpu_dma_latency note is not a file setting: it lives only while its file stays
// open, so apply reports it and `rtagent hold` keeps it.
#pragma once

#include "tune/tuner.h"

namespace rtagent {

class PowerTuner : public Tuner {
 public:
  std::string Section() const override { return "power"; }
  int Chapter() const override { return 7; }
  std::vector<rtagent::Section> Reads() const override { return {rtagent::Section::kPower}; }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
};

}  // namespace rtagent
