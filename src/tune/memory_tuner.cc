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
const std::vector<std::string>& ThpEnabledNames() {
  static const std::vector<std::string> k = {"always", "madvise", "never"};
  return k;
}
const std::vector<std::string>& ThpDefragNames() {
  static const std::vector<std::string> k = {"always", "defer", "defer+madvise", "madvise", "never"};
  return k;
}

// A sysctl that memory.sysctl accepts: RT guides set these, and nothing else is written.
struct SysctlSpec {
  std::string name;  // dotted, as sysctl(8) spells it
  long long min = 0;
  long long max = 0;
  bool cpu_list = false;  // the value is a CPU list (kernel.watchdog_cpumask), not a number
};

// Documentation/admin-guide/sysctl/{vm,kernel}.rst. Ranges are what the kernel accepts.
const std::vector<SysctlSpec>& SysctlSpecs() {
  static const std::vector<SysctlSpec> k = {
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
  return k;
}

std::vector<std::string> SysctlNames() { return MemorySysctlNames(); }

// memory.sysctl, kept in file order (the order they are written in).
void ReadSysctls(LoadContext& c, MemoryConfig& m, const YamlNode* sysctl, const std::string& what) {
  if (sysctl == nullptr || !c.reader().MapWithKeys(*sysctl, SysctlNames(), what, "sysctl")) return;
  for (size_t i = 0; i < sysctl->keys.size(); ++i) {
    const std::string& name = sysctl->keys[i];
    auto spec = std::find_if(SysctlSpecs().begin(), SysctlSpecs().end(), [&](const SysctlSpec& s) { return s.name == name; });
    if (spec == SysctlSpecs().end()) continue;  // reported as unknown
    const YamlNode& v = sysctl->items[i];
    if (v.IsNull()) continue;  // null resets: an including file drops an included sysctl this way
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

// memory.hugepages[]: read by hand (ReadHugepages); the section is the reference's rows.
const profile::Section<HugepagePool>& HugepageItemSection() {
  static const profile::Section<HugepagePool> kSection{
      "memory.hugepages[]",
      {
          profile::Custom<HugepagePool>("size", "size (`2M`, `1G`, `64K`)", "required",
                                        "the page size; one the kernel offers", nullptr),
          profile::Custom<HugepagePool>("count", "integer 0..2147483647", "required", "pages in the pool", nullptr),
          profile::Custom<HugepagePool>("node", "integer 0..1023", "the global pool", "the NUMA node whose pool it is",
                                        nullptr),
      }};
  return kSection;
}

std::string JoinSizes(const std::vector<long long>& sizes) {
  std::string out;
  for (long long kb : sizes) out += (out.empty() ? "" : ", ") + HugepageSizeText(kb);
  return out;
}

// memory.hugepages: a list of {size, count, node}. Sizes and nodes are checked against the
// target when the loader read them (system.hugepage_sizes_kb, numa_nodes). One pool once; and
// a size given globally is not given per node too: writing the global count makes the kernel
// spread (or take) pages over every node, undoing the node counts written before it.
void ReadHugepages(LoadContext& c, MemoryConfig& m, const YamlNode* v, const std::string& what) {
  if (v == nullptr) return;
  profile::FieldReader& r = c.reader();
  if (!v->IsSequence()) {
    r.WrongType(*v, what, "a list", "write one '- {size: 2M, count: 512}' per pool (node: N for one NUMA node's)");
    return;
  }
  const profile::SystemCpus& sys = c.profile().system;
  const std::string item_what = what + "[]";
  for (const YamlNode& item : v->items) {
    if (!item.IsMap()) {
      r.WrongType(item, item_what, "a mapping", "write {size: 2M, count: 512} or {size: 1G, count: 4, node: 0}");
      continue;
    }
    if (!r.Map(item, HugepageItemSection().Names(), item_what)) continue;
    const YamlNode* size = profile::Field(&item, "size");
    const YamlNode* count = profile::Field(&item, "count");
    const YamlNode* node = profile::Field(&item, "node");
    if (size == nullptr || count == nullptr) {
      c.diags().Error(item.mark, "'" + item_what + "' needs a " + (size == nullptr ? "'size'" : "'count'"),
                      "write {size: 2M, count: 512}");
      continue;
    }
    HugepagePool pool;
    pool.mark = item.mark;
    auto size_text = r.String(*size, item_what + ".size");
    if (!size_text) continue;
    auto kb = ParseHugepageSize(*size_text);
    if (!kb) {
      c.diags().Error(size->mark, "'" + item_what + ".size' is \"" + *size_text + "\", not a page size",
                      "write it with its unit: 2M, 1G, 64K (or 2048kB as the kernel's directory names it)");
      continue;
    }
    pool.size_kb = *kb;
    if (sys.hugepage_sizes_kb &&
        std::find(sys.hugepage_sizes_kb->begin(), sys.hugepage_sizes_kb->end(), *kb) == sys.hugepage_sizes_kb->end()) {
      c.diags().Error(size->mark,
                      "'" + item_what + ".size' " + *size_text + ": the target has no " + HugepageSizeText(*kb) +
                          " huge pages (no " + kpath::HugepagesNr(*kb) + ")",
                      sys.hugepage_sizes_kb->empty() ? "this kernel offers no persistent huge pages (CONFIG_HUGETLBFS)"
                                                     : "the sizes it has: " + JoinSizes(*sys.hugepage_sizes_kb));
      continue;
    }
    auto n = r.Int(*count, item_what + ".count", 0, INT_MAX);
    if (!n) continue;
    pool.count = *n;
    if (node != nullptr) {
      auto id = r.Int(*node, item_what + ".node", 0, 1023);
      if (!id) continue;
      if (sys.numa_nodes && std::find(sys.numa_nodes->begin(), sys.numa_nodes->end(), *id) == sys.numa_nodes->end()) {
        std::string have;
        for (int i : *sys.numa_nodes) have += (have.empty() ? "" : ", ") + std::to_string(i);
        c.diags().Error(node->mark, "'" + item_what + ".node' " + std::to_string(*id) + ": the target has no NUMA node " +
                                        std::to_string(*id) + " (no " + kpath::kNodeDir + "/node" + std::to_string(*id) + ")",
                        have.empty() ? "this kernel has no NUMA nodes: leave out 'node' for the global pool"
                                     : "the nodes it has: " + have + "; or leave out 'node' for the global pool");
        continue;
      }
      pool.node = static_cast<int>(*id);
    }
    bool clash = false;
    for (const HugepagePool& o : m.hugepages) {
      if (o.size_kb != pool.size_kb || (o.node.has_value() && pool.node.has_value() && *o.node != *pool.node)) continue;
      clash = true;
      if (o.node == pool.node) {
        c.diags().Error(item.mark, "'" + item_what + "': " + HugepagePoolName(pool.size_kb, pool.node) +
                                       " are set already at " + o.mark.ToString(),
                        "give each pool one count");
      } else {
        c.diags().Error(item.mark, "'" + item_what + "': " + HugepageSizeText(pool.size_kb) +
                                       " huge pages are given both for the whole system and per node (the other at " +
                                       o.mark.ToString() + ")",
                        "the kernel spreads a global count over every node, undoing the node counts: give the size "
                        "per node or globally, not both");
      }
      break;
    }
    if (!clash) m.hugepages.push_back(pool);
  }
}

const profile::Section<MemoryConfig>& ThpSection() {
  static const profile::Section<MemoryConfig> kSection{
      "memory.thp",
      {
          profile::Word("enabled", &MemoryConfig::thp_enabled, ThpEnabledNames(), "leave", "when THP are used"),
          profile::Word("defrag", &MemoryConfig::thp_defrag, ThpDefragNames(), "leave",
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
          profile::Custom<MemoryConfig>("hugepages", "list of mappings", "none",
                                        "persistent huge page pools, per size and NUMA node", ReadHugepages)
              .Holding(HugepageItemSection()),
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
  for (const HugepagePool& h : cfg.hugepages) {
    const std::string path = HugepagePoolPath(h.size_kb, h.node);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      // Validated at load against the target; reached when the profile was loaded without it.
      plan.findings.push_back({Finding::Level::kError, HugepagePoolName(h.size_kb, h.node) + " cannot be read: " +
                                                           now.error().message,
                               h.mark, "the kernel has no such pool"});
      continue;
    }
    Change c;
    c.section = Section();
    c.what = HugepagePoolName(h.size_kb, h.node);
    c.actuator = "hugepages";
    c.key = path;
    c.before = *now;
    c.after = std::to_string(h.count);
    c.compare = Compare::kInteger;
    c.why = "memory.hugepages (" + h.mark.ToString() +
            "): the application's huge pages reserved before it runs, not found or compacted under the loop "
            "(Real-Time Linux, chapter 8)";
    plan.items.push_back(std::move(c));
  }
  return plan;
}

void MemoryTuner::AddActuators(Executor& executor, SysRoot& root) const {
  executor.AddActuator("hugepages", std::make_unique<HugepagesActuator>(root));
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

std::vector<std::string> MemorySysctlNames() {
  std::vector<std::string> names;
  for (const SysctlSpec& s : SysctlSpecs()) names.push_back(s.name);
  return names;
}

}  // namespace rtagent
