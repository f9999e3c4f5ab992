#include "tune/cores_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "inspect/cmdline.h"
#include "tune/boot_plan.h"

namespace rtagent {

using profile::BootloaderType;
using profile::CpuKeyword;

namespace {

constexpr const char* kChapter6 = "Real-Time Linux, chapter 6 (a core of its own)";

bool IsCpuListKey(const std::string& key) {
  return key == "nohz_full" || key == "rcu_nocbs" || key == "irqaffinity" || key == "kthread_cpus";
}

}  // namespace

std::string CanonicalBootValue(const std::string& key, const std::optional<std::string>& value, int nr_cpus) {
  if (!value) return "on";
  if (key == "isolcpus") {
    IsolCpusArg a = ParseIsolcpus(*value, nr_cpus);
    std::vector<std::string> flags = a.flags.empty() ? std::vector<std::string>{"domain"} : a.flags;
    std::sort(flags.begin(), flags.end());
    std::string out;
    for (const auto& f : flags) out += f + ",";
    return out + (a.cpus ? a.cpus->ToList() : a.cpus_text);
  }
  if (IsCpuListKey(key)) {
    auto set = CpuSet::ParseList(*value, nr_cpus);
    return set ? set->ToList() : *value;
  }
  return *value;
}

namespace {

// The boot arguments, each compared with the running kernel's command line; whether the
// kernel already runs with every one.
bool PlanBootArgs(const PlanContext& ctx, const std::vector<std::string>& args, int nr, SectionPlan& plan) {
  ParsedCmdline running;
  if (ctx.state.cmdline && ctx.state.cmdline->raw) running = ctx.state.cmdline->parsed;
  bool all_running = true;
  for (const std::string& arg : args) {
    std::string key = BootArgKey(arg);
    size_t eq = arg.find('=');
    std::optional<std::string> want_value;
    if (eq != std::string::npos) want_value = arg.substr(eq + 1);
    const CmdlineArg* have = running.Find(key);
    Change c;
    c.section = plan.section;
    c.what = "kernel command line: " + key;
    c.actuator = "cmdline";
    c.key = kpath::kCmdline + "#" + key;
    c.before = have ? CanonicalBootValue(key, have->value, nr) : "absent";
    c.after = CanonicalBootValue(key, want_value, nr);
    c.reboot = true;
    c.why = kChapter6;
    if (c.before != c.after) all_running = false;
    plan.items.push_back(std::move(c));
  }
  return all_running;
}

// The boot loader: its files, unless the kernel already runs with every argument.
Result<void> PlanBootLoader(const PlanContext& ctx, const std::vector<std::string>& args, bool all_running,
                            SectionPlan& plan) {
  const profile::Profile& p = ctx.profile;
  auto planned = PlanBoot(ctx, args, /*write=*/!all_running);
  if (!planned) return Wrap("cores.bootloader: ", planned.error());
  BootPlan& boot = *planned;
  if (boot.summary.loader == profile::ToString(BootloaderType::kPrint)) {
    plan.findings.push_back({all_running ? Finding::Level::kInfo : Finding::Level::kWarning,
                             "add to the kernel command line (boot loader: print" +
                                 (*p.cores.bootloader.type == BootloaderType::kAuto ? "; " + boot.summary.why : "") +
                                 "): " + JoinBootArgs(args),
                             p.cores.bootloader.type.mark, kChapter6});
  }
  for (Change& c : boot.items) plan.items.push_back(std::move(c));
  for (Finding& f : boot.findings) plan.findings.push_back(std::move(f));
  plan.boot = std::move(boot.summary);
  return {};
}

// A CPU mask knob of cores.runtime (`keep` or empty leaves it alone).
void PlanMask(const PlanContext& ctx, const profile::Marked<profile::CpuSpec>& spec, const std::string& path,
              const std::string& what, int nr, SectionPlan& plan) {
  if (spec->keyword == CpuKeyword::kKeep || spec->cpus.Empty()) return;
  auto now = ctx.root.ReadTrimmed(path);
  if (!now) {
    plan.findings.push_back({Finding::Level::kWarning, what + ": " + now.error().message + " (left alone)", spec.mark,
                             kChapter6});
    return;
  }
  Change c;
  c.section = plan.section;
  c.what = what;
  c.key = path;
  c.before = *now;
  c.after = spec->cpus.ToMask(nr);
  c.compare = Compare::kCpuMask;
  c.why = kChapter6;
  plan.items.push_back(std::move(c));
}

// Each unbound WQ_SYSFS workqueue's own mask, set to the global mask's CPUs. The kernel runs
// such a workqueue on its own mask ANDed with the global one (kernel/workqueue.c), so the
// global mask already keeps it off isolated CPUs; its own file still names every CPU, and a
// later change of the global mask (another tool, a revert) lets it back. Setting both makes
// each file say where the workqueue runs, as TuneD's realtime profile does for writeback. A
// workqueue listed without a cpumask file is per-CPU (bound): nothing to set.
void PlanSysfsWorkqueues(const PlanContext& ctx, const profile::Marked<profile::CpuSpec>& spec, int nr,
                         SectionPlan& plan) {
  if (spec->keyword == CpuKeyword::kKeep || spec->cpus.Empty()) return;
  auto names = ctx.root.List(kpath::kWorkqueueDevices);
  if (!names) return;  // no WQ_SYSFS workqueue (or a fixture without them)
  for (const std::string& name : *names) {
    const std::string path = kpath::WorkqueueCpumask(name);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) continue;
    Change c;
    c.section = plan.section;
    c.what = "workqueue " + name + " cpumask";
    c.key = path;
    c.before = *now;
    c.after = spec->cpus.ToMask(nr);
    c.compare = Compare::kCpuMask;
    c.why = kChapter6;
    // kernel/workqueue.c (apply_workqueue_attrs): an explicitly ordered workqueue refuses new
    // attributes, since several pools would break its ordering.
    c.refusals.push_back({EINVAL, "the kernel keeps this workqueue's mask (an ordered workqueue takes no new attributes)"});
    plan.items.push_back(std::move(c));
  }
}

// kernel.timer_migration, where the kernel has it.
void PlanTimerMigration(const PlanContext& ctx, SectionPlan& plan) {
  const auto& want = ctx.profile.cores.runtime.timer_migration;
  auto now = ctx.root.ReadTrimmed(kpath::kTimerMigration);
  if (!now) {
    plan.findings.push_back({Finding::Level::kInfo, "kernel.timer_migration is not in this kernel (left alone)",
                             want.mark, kChapter6});
    return;
  }
  Change c;
  c.section = plan.section;
  c.what = "kernel.timer_migration";
  c.key = kpath::kTimerMigration;
  c.before = *now;
  c.after = **want ? "1" : "0";
  c.compare = Compare::kInteger;
  c.why = kChapter6;
  plan.items.push_back(std::move(c));
}

// cores.runtime.machinecheck_ignore_ce on every machine-check device (one per online CPU).
// The kernel keeps one value (mca_cfg.ignore_ce) that each device's file reads and writes, so
// after the first write the others already read it; one item each still says, per CPU, what
// TuneD's [sysfs] glob writes, and revert puts the first device's value back last. Without the
// directory (arm64, a kernel without CONFIG_X86_MCE, mce=off) there is nothing to set.
void PlanMachinecheck(const PlanContext& ctx, SectionPlan& plan) {
  const auto& want = ctx.profile.cores.runtime.machinecheck_ignore_ce;
  auto devices = ctx.root.List(kpath::kMachinecheckDir);
  if (!devices || devices->empty()) {
    plan.findings.push_back({Finding::Level::kInfo,
                             "machine-check polling: no /" + kpath::kMachinecheckDir +
                                 " here (not x86, or a kernel without CONFIG_X86_MCE): machinecheck_ignore_ce left alone",
                             want.mark, kChapter6});
    return;
  }
  for (const std::string& device : *devices) {
    if (device.rfind("machinecheck", 0) != 0) continue;
    const std::string path = kpath::MachinecheckIgnoreCe(device);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      plan.findings.push_back({Finding::Level::kWarning, device + " ignore_ce: " + now.error().message + " (left alone)",
                               want.mark, kChapter6});
      continue;
    }
    Change c;
    c.section = plan.section;
    c.what = "machine-check " + device + " ignore_ce";
    c.key = path;
    c.before = *now;
    c.after = **want ? "1" : "0";
    c.compare = Compare::kInteger;
    c.why = kChapter6;
    plan.items.push_back(std::move(c));
  }
}

}  // namespace

Result<SectionPlan> CoresTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::Profile& p = ctx.profile;
  const int nr = std::max(ctx.state.cpu_sets.nr_cpus, p.system.NrIds());
  // 1. Boot arguments, compared with the running kernel's command line.
  const std::vector<std::string> args = profile::BootArguments(p);
  const bool all_running = PlanBootArgs(ctx, args, nr, plan);
  // 2. The boot loader's files.
  if (!args.empty()) {
    if (auto r = PlanBootLoader(ctx, args, all_running, plan); !r) return r.error();
  }
  // 3. Runtime knobs.
  PlanMask(ctx, p.cores.runtime.workqueue_cpumask, kpath::kWorkqueueCpumask, "unbound workqueue cpumask", nr, plan);
  PlanSysfsWorkqueues(ctx, p.cores.runtime.workqueue_cpumask, nr, plan);
  PlanMask(ctx, p.cores.runtime.default_smp_affinity, kpath::kDefaultSmpAffinity, "default IRQ affinity for new IRQs",
           nr, plan);
  if (p.cores.runtime.timer_migration->has_value()) PlanTimerMigration(ctx, plan);
  if (p.cores.runtime.machinecheck_ignore_ce->has_value()) PlanMachinecheck(ctx, plan);
  return plan;
}

std::vector<std::string> BootArgsNotBooted(const FullPlan& plan, const profile::Profile& profile) {
  std::vector<std::string> out;
  const std::vector<Change> reboot = plan.RebootRequired();
  for (const std::string& arg : profile::BootArguments(profile)) {
    const std::string key = kpath::kCmdline + "#" + BootArgKey(arg);
    if (std::any_of(reboot.begin(), reboot.end(), [&](const Change& c) { return c.key == key; })) out.push_back(arg);
  }
  return out;
}

void CoresTuner::AddActuators(Executor& executor, SysRoot& root) const {
  AddBootFileActuators(executor, root, runners_);
}

}  // namespace rtagent
