#include "inspect/memory.h"

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

ChoiceFile ReadChoice(const SysRoot& root, const std::string& path) {
  ChoiceFile c;
  auto r = root.Read(path);
  if (!r) return c;
  c.present = true;
  c.selected = ParseBracketChoice(*r);
  c.choices = BracketChoices(*r);
  return c;
}

}  // namespace

// Documentation/admin-guide/sysctl/{vm,kernel}.rst; the ones RT guides tune (PRODUCT.md).
// kernel.sched_rt_runtime_us and kernel.timer_migration are in the kernel and cpus sections.
const std::vector<std::string>& InspectedSysctls() {
  static const std::vector<std::string> k = {
      "vm.stat_interval",       "vm.compaction_proactiveness", "kernel.numa_balancing",
      "kernel.watchdog",        "kernel.nmi_watchdog",         "kernel.soft_watchdog",
      "kernel.watchdog_thresh", "kernel.watchdog_cpumask",
  };
  return k;
}

MemoryState CollectMemory(const SysRoot& root) {
  MemoryState m;
  m.thp_enabled = ReadChoice(root, kpath::kThpEnabled);
  m.thp_defrag = ReadChoice(root, kpath::kThpDefrag);
  for (const auto& name : InspectedSysctls()) {
    std::optional<std::string> value;
    if (auto r = root.ReadTrimmed(kpath::Sysctl(name))) value = *r;
    m.sysctls.emplace_back(name, value);
  }
  return m;
}

}  // namespace rtagent
