#include "tune/memory_tuner.h"

#include <algorithm>
#include <cerrno>
#include <climits>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

namespace {
constexpr const char* kWhy = "Real-Time Linux, chapter 8 (huge-page compaction off the path)";

using profile::CrossCheck;
using profile::LoadContext;
using profile::YamlNode;

// Documentation/admin-guide/mm/transhuge.rst
const std::vector<std::string> kThpEnabledNames = {"always", "madvise", "never"};
const std::vector<std::string> kThpDefragNames = {"always", "defer", "defer+madvise", "madvise", "never"};

// A sysctl that memory.sysctl accepts: RT guides set these, and nothing else is written.
struct SysctlSpec {
  std::string name;  // dotted, as sysctl(8) spells it
  long long min = 0;
  long long max = 0;
  bool cpu_list = false;  // the value is a CPU list (kernel.watchdog_cpumask), not a number
};

// Documentation/admin-guide/sysctl/{vm,kernel}.rst. Ranges are what the kernel accepts.
const std::vector<SysctlSpec> kSysctls = {
    {"vm.stat_interval", 1, 3600, false},               // seconds between per-CPU vmstat updates
    {"vm.compaction_proactiveness", 0, 100, false},     // background compaction (Chapter 8)
    {"kernel.sched_rt_runtime_us", -1, INT_MAX, false}, // RT throttling budget; -1 removes the net
    {"kernel.sched_rt_period_us", 1, INT_MAX, false},
    {"kernel.timer_migration", 0, 1, false},
    {"kernel.watchdog", 0, 1, false},
    {"kernel.nmi_watchdog", 0, 1, false},
    {"kernel.soft_watchdog", 0, 1, false},
    {"kernel.watchdog_thresh", 0, 60, false},
    {"kernel.watchdog_cpumask", 0, 0, true},
    {"kernel.numa_balancing", 0, 3, false},
};

std::vector<std::string> SysctlNames() {
  std::vector<std::string> names;
  for (const SysctlSpec& s : kSysctls) names.push_back(s.name);
  return names;
}

// memory.sysctl, kept in file order (the order they are written in).
void ReadSysctls(LoadContext& c, MemoryConfig& m, const YamlNode* sysctl, const std::string& what) {
  if (sysctl == nullptr || !c.reader().MapWithKeys(*sysctl, SysctlNames(), what, "sysctl")) return;
  for (size_t i = 0; i < sysctl->keys.size(); ++i) {
    const std::string& name = sysctl->keys[i];
    auto spec = std::find_if(kSysctls.begin(), kSysctls.end(), [&](const SysctlSpec& s) { return s.name == name; });
    if (spec == kSysctls.end()) continue;  // reported as unknown
    const YamlNode& v = sysctl->items[i];
    const std::string key = what + "." + name;
    Sysctl s{name, sysctl->key_marks[i], ""};
    if (spec->cpu_list) {
      auto cpus = c.reader().Cpus(v, key, profile::CpuKeywords{});
      if (!cpus) continue;
      s.value = cpus->cpus.ToList();
    } else {
      auto n = c.reader().Int(v, key, spec->min, spec->max);
      if (!n) continue;
      s.value = std::to_string(*n);
    }
    m.sysctls.push_back(std::move(s));
  }
}

const Sysctl* Find(const MemoryConfig& m, const std::string& name) {
  for (const Sysctl& s : m.sysctls) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// kernel.timer_migration can be said twice (here and cores.runtime); the two must agree. RT
// throttling's budget fits in its period, and removing it contradicts kernel.rt_safety_net.
void CheckSysctls(const CrossCheck& cc, const MemoryConfig& m) {
  const profile::Profile& p = cc.profile();
  const auto& tm = p.cores.runtime.timer_migration;
  if (const Sysctl* s = Find(m, "kernel.timer_migration"); s && tm->has_value() && (s->value == "1") != **tm) {
    cc.diags().Error(s->mark, "memory.sysctl kernel.timer_migration=" + s->value +
                                  " contradicts cores.runtime.timer_migration (" + tm.mark.ToString() + ")",
                     "set timer_migration in one place only: cores.runtime.timer_migration");
  }
  const Sysctl* runtime = Find(m, "kernel.sched_rt_runtime_us");
  if (runtime != nullptr) JudgeRtThrottling(cc, *runtime, Find(m, "kernel.sched_rt_period_us"));
}

void WarnDefrag(const CrossCheck& cc, const MemoryConfig& m) {
  if (m.thp_defrag->has_value() && ThpDefragStalls(**m.thp_defrag)) {
    cc.diags().Warning(m.thp_defrag.mark, "THP defrag 'always' makes allocations stall to compact memory",
                       "use 'madvise' or 'never' on a real-time system (Chapter 8)");
  }
}

const profile::Section<MemoryConfig>& ThpSection() {
  static const profile::Section<MemoryConfig> kSection{
      "memory.thp",
      {
          profile::Word("enabled", &MemoryConfig::thp_enabled, kThpEnabledNames, "leave", "when THP are used"),
          profile::Word("defrag", &MemoryConfig::thp_defrag, kThpDefragNames, "leave",
                        "whether allocations stall to compact memory")
              .Checked(WarnDefrag),
      }};
  return kSection;
}

}  // namespace

bool ThpDefragStalls(const std::string& mode) { return mode == "always"; }

void JudgeRtThrottling(const CrossCheck& cc, const Sysctl& runtime, const Sysctl* period) {
  const profile::Profile& p = cc.profile();
  auto rt = ParseInt(runtime.value);
  auto per = period != nullptr ? ParseInt(period->value) : std::optional<long long>(1000000);  // the kernel's default
  if (!rt) return;  // not a number: the kernel refuses it (EINVAL) at apply
  if (per && *rt > *per) {
    cc.diags().Error(runtime.mark,
                     "kernel.sched_rt_runtime_us " + runtime.value + " is larger than the period " + std::to_string(*per),
                     "the runtime is the share of each period real-time tasks may use; keep it at most the period "
                     "(EINVAL otherwise)");
  }
  if (*rt != -1) return;
  profile::SafetyNetExpectation net = *p.kernel.rt_safety_net;
  if (net == profile::SafetyNetExpectation::kAny) {
    cc.diags().Warning(runtime.mark, "kernel.sched_rt_runtime_us=-1 removes the RT safety net on every CPU",
                       "remove it only where the loop runs alone (Chapter 2)");
  } else {
    cc.diags().Error(runtime.mark,
                     "kernel.sched_rt_runtime_us=-1 removes the RT safety net on every CPU, but kernel.rt_safety_net is " +
                         ToString(net),
                     "keep the net (Chapter 2), or set kernel.rt_safety_net: any if that is really meant");
  }
}

const profile::Block<MemoryConfig>& MemorySection() {
  static const profile::Block<MemoryConfig> kBlock{
      "memory",
      "transparent hugepages and sysctls",
      {
          profile::Nested("thp", ThpSection(), "transparent hugepages"),
          profile::Custom<MemoryConfig>("sysctl", "mapping of sysctl to value", "none",
                                        "the sysctls below, and only those", ReadSysctls)
              .Listing(SysctlNames())
              .Checked(CheckSysctls),
      }};
  return kBlock;
}

Result<SectionPlan> MemoryTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const MemoryConfig& cfg = MemoryOf(ctx.profile);

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

  for (const Sysctl& s : cfg.sysctls) {
    std::string path = kpath::Sysctl(s.name);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      plan.findings.push_back({now.error().err == ENOENT ? Finding::Level::kWarning : Finding::Level::kError,
                               s.name + " cannot be read: " + now.error().message, s.mark,
                               "the sysctl does not exist on this kernel"});
      continue;
    }
    plan.items.push_back(
        SysctlChange(Section(), s.name, path, *now, s.value, "sysctl " + s.name + " (" + s.mark.ToString() + ")"));
  }
  return plan;
}

Change SysctlChange(const std::string& section, const std::string& name, const std::string& path, const std::string& now,
                    const std::string& value, std::string why) {
  Change c;
  c.section = section;
  c.what = name;
  c.key = path;
  c.before = now;
  c.after = value;
  c.compare = ParseInt(value) && ParseInt(now) ? Compare::kInteger : Compare::kWords;
  c.why = std::move(why);
  return c;
}

}  // namespace rtagent
