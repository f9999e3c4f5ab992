// power (Chapter 7, "Saving power costs time"): the PM QoS note, per-CPU resume latency, the
// cpuidle states disabled above an exit latency, and the cpufreq governor.
#include <climits>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {
// Documentation/admin-guide/pm/cpufreq.rst, "Generic Scaling Governors".
const std::vector<std::string>& GovernorNames() {
  static const std::vector<std::string> k = {"performance", "powersave", "schedutil",
                                                   "ondemand",    "conservative", "userspace"};
  return k;
}
}  // namespace

const Section<PowerConfig>& PowerSection() {
  static const Section<PowerConfig> kSection{
      "power",
      {
          OptInt("cpu_dma_latency_us", &PowerConfig::cpu_dma_latency_us, {0, 2000000000}, "none",
                 "the PM QoS note: no CPU naps deeper than this exit latency"),
          Cpus("cpus", &PowerConfig::cpus, CpuKeywords{}, IsolatedOrAllCpus(),
               "CPUs the per-CPU settings below apply to"),
          // S32_MAX is the kernel's "no constraint" value and is refused from user space.
          OptInt("resume_latency_us", &PowerConfig::resume_latency_us, {0, INT_MAX - 1}, "leave",
                 "per-CPU resume latency limit"),
          OptInt("max_exit_latency_us", &PowerConfig::max_exit_latency_us, {0, INT_MAX}, "leave",
                 "cpuidle states whose exit latency is above this are disabled on `power.cpus`"),
          Word("governor", &PowerConfig::governor, GovernorNames(), "leave", "cpufreq governor on `power.cpus`"),
      }};
  return kSection;
}

}  // namespace rtagent::profile
