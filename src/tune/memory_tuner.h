// memory (and the kernel sysctls the profile names): transparent hugepages enabled/defrag
// (Documentation/admin-guide/mm/transhuge.rst; lesson chapter 8) and the documented sysctls
// (vm.stat_interval, kernel.sched_rt_runtime_us, watchdogs; docs/profile.md). The tuner
// declares the profile's memory section itself: the keys, their defaults and cross-checks.
#pragma once

#include "profile/keys.h"
#include "tune/hugepages.h"
#include "tune/tuner.h"

namespace rtagent {

/// One sysctl from the documented set (docs/profile.md, memory.sysctl).
struct Sysctl {
  std::string name;  ///< dotted: "vm.stat_interval"
  profile::SourceMark mark;
  std::string value;  ///< as the kernel prints it: "10", "-1", "0-1" (a CPU list)
};

/// What the profile's memory section says.
struct MemoryConfig {
  profile::Marked<std::optional<std::string>> thp_enabled;  ///< always | madvise | never; nullopt = leave
  profile::Marked<std::optional<std::string>> thp_defrag;   ///< always | defer | defer+madvise | madvise | never
  std::vector<Sysctl> sysctls;                              ///< in file order
  std::vector<HugepagePool> hugepages;                      ///< in file order; empty = leave
};

/// The memory section's declaration; MemoryOf reads a loaded profile's.
const profile::Block<MemoryConfig>& MemorySection();
/// The memory section of a loaded profile.
inline const MemoryConfig& MemoryOf(const profile::Profile& p) { return MemorySection().Of(p); }

/// The sysctls `memory.sysctl` takes (the documented RT set), dotted; every other one goes in
/// `sysctls:` (the importer of TuneD profiles routes each key by this list).
std::vector<std::string> MemorySysctlNames();

/// The change that writes one sysctl, as `memory.sysctl` and `sysctls:` both plan it: `path`
/// from kpath::Sysctl(name), `now` as read. A number compares as a number ("010" is 10) when
/// both sides are numbers; anything else word by word, so the tabs the kernel prints between
/// the three numbers of net.ipv4.tcp_rmem match spaces.
Change SysctlChange(const std::string& section, const std::string& name, const std::string& path, const std::string& now,
                    const std::string& value, std::string why);

/// True for a THP defrag mode that makes a page fault stall in direct compaction ("always";
/// Chapter 8). The profile's validation warns about it and the lint judges it: one rule.
bool ThpDefragStalls(const std::string& mode);

/// RT throttling's budget as a profile sets it (memory.sysctl or sysctls): an error when the
/// runtime exceeds its period (`period` null: the kernel's 1 s), and -1, which removes the
/// safety net on every CPU (Chapter 2), an error unless kernel.rt_safety_net is `any` (then a
/// warning). One rule for both sections; the lint's rt_throttling_off judges the same value.
void JudgeRtThrottling(const profile::CrossCheck& cc, const Sysctl& runtime, const Sysctl* period);

/// Plans transparent hugepages, the sysctls the profile's memory section names and the
/// persistent huge page pools (items of the "hugepages" actuator, which reads each count back).
class MemoryTuner : public Tuner {
 public:
  std::string Section() const override { return MemorySection().path(); }
  int Chapter() const override { return 8; }
  const profile::BlockBase* OwnSection() const override { return &MemorySection(); }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  void AddActuators(Executor& executor, SysRoot& root) const override;
};

}  // namespace rtagent
