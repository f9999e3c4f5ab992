#include "tune/memory_tuner.h"

#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

namespace {
constexpr const char* kWhy = "Real-Time Linux, chapter 8 (huge-page compaction off the path)";
}

Result<SectionPlan> MemoryTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::MemoryConfig& cfg = ctx.profile.memory;

  auto thp = [&](const profile::Marked<std::optional<std::string>>& want, const std::string& path, const char* what) {
    if (!want->has_value()) return;
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      // The Debian 6.1 PREEMPT_RT kernel is built without transparent hugepages.
      plan.findings.push_back({Finding::Level::kInfo,
                               std::string(what) + ": this kernel has no transparent hugepages (nothing to set)", want.mark,
                               kWhy});
      return;
    }
    Change c;
    c.section = Section();
    c.what = what;
    c.key = path;
    c.before = *now;
    c.after = **want;
    c.compare = Compare::kChoice;
    c.why = kWhy;
    plan.items.push_back(std::move(c));
  };
  thp(cfg.thp_enabled, kpath::kThpEnabled, "transparent hugepages enabled");
  thp(cfg.thp_defrag, kpath::kThpDefrag, "transparent hugepages defrag");

  for (const profile::Sysctl& s : cfg.sysctls) {
    std::string path = kpath::Sysctl(s.name);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      plan.findings.push_back({now.error().err == ENOENT ? Finding::Level::kWarning : Finding::Level::kError,
                               s.name + " cannot be read: " + now.error().message, s.mark,
                               "the sysctl does not exist on this kernel"});
      continue;
    }
    Change c;
    c.section = Section();
    c.what = s.name;
    c.key = path;
    c.before = *now;
    c.after = s.value;
    c.compare = ParseInt(s.value) ? Compare::kInteger : Compare::kWords;
    c.why = "sysctl " + s.name + " (" + s.mark.ToString() + ")";
    plan.items.push_back(std::move(c));
  }
  return plan;
}

}  // namespace rtagent
