#include "tune/offline_tuner.h"

#include "base/kernel_paths.h"

namespace rtagent {

namespace {

using profile::CpuKeyword;
using profile::CrossCheck;

// drivers/base/cpu.c: every hotpluggable CPU has an "online" attribute in its directory.
std::string OnlineFile(int cpu) { return kpath::CpuOnline(cpu); }

void CheckOffline(const CrossCheck& cc, const CpusConfig& c) {
  const auto& off = c.offline;
  if (off->cpus.Empty()) return;
  if (off->cpus.Has(0)) {
    cc.diags().Error(off.mark, "cpus.offline includes CPU 0, the boot CPU",
                     "leave CPU 0 online: x86 cannot take it offline, and the kernel's timekeeping and "
                     "firmware calls start there");
  }
  const CpuSet& hk = cc.Housekeeping();
  if (!hk.Empty() && hk.Minus(off->cpus).Empty()) {
    cc.diags().Error(off.mark, "cpus.offline takes the last housekeeping CPU offline (housekeeping is " + hk.ToList() + ")",
                     "keep at least one housekeeping CPU online: every kernel chore, device interrupt and "
                     "ordinary process runs there");
  }
  CpuSet iso = off->cpus.Intersect(cc.Isolated());
  if (!iso.Empty()) {
    cc.diags().Warning(off.mark, "cpus.offline includes isolated CPU " + iso.ToList(),
                       "the real-time work set apart for it cannot run on an offline CPU; take it out of "
                       "cores.isolated or of cpus.offline");
  }
}

}  // namespace

const profile::Block<CpusConfig>& CpusSection() {
  const profile::CpuKeywords plain{false, false, false, false};
  static const profile::Block<CpusConfig> kBlock{
      "cpus",
      "CPUs taken offline",
      {
          profile::Cpus("offline", &CpusConfig::offline, plain, std::nullopt, "CPUs taken offline (CPU hotplug)")
              .Fallback("none")
              .Checked(CheckOffline),
      }};
  return kBlock;
}

Result<SectionPlan> OfflineTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const auto& off = CpusOf(ctx.profile).offline;
  for (int cpu : off->cpus.Cpus()) {
    const std::string path = OnlineFile(cpu);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      plan.findings.push_back({Finding::Level::kError,
                               "CPU " + std::to_string(cpu) + " cannot be taken offline: " + now.error().message, off.mark,
                               "it has no online file: the boot CPU, or a kernel without CPU hotplug"});
      continue;
    }
    Change c;
    c.section = plan.section;
    c.what = "CPU " + std::to_string(cpu) + " online";
    c.key = path;
    c.before = *now;
    c.after = "0";
    c.compare = Compare::kInteger;
    c.why = "cpus.offline (" + off.mark.ToString() +
            "): an offline CPU runs nothing and takes no interrupt (OpenShift's offlinedCpus)";
    plan.items.push_back(std::move(c));
  }
  return plan;
}

}  // namespace rtagent
