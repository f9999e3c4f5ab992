#include "tune/cores_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "inspect/cmdline.h"
#include "tune/bootloader.h"

namespace rtagent {

using profile::BootloaderType;
using profile::CpuKeyword;

namespace {

constexpr const char* kChapter6 = "Real-Time Linux, chapter 6 (a core of its own)";

bool IsCpuListKey(const std::string& key) {
  return key == "nohz_full" || key == "rcu_nocbs" || key == "irqaffinity" || key == "kthread_cpus";
}

// The first *.conf entry of a BLS directory (or the one the profile names).
Result<std::string> BlsEntryPath(const SysRoot& root, const std::string& dir, const std::string& entry) {
  if (!entry.empty()) return dir + "/" + entry;
  auto names = root.List(dir);
  if (!names) return names.error();
  for (const auto& n : *names) {
    if (n.size() > 5 && n.ends_with(".conf")) return dir + "/" + n;
  }
  return MakeError("no *.conf boot entry in " + root.Dir() + "/" + dir, ENOENT);
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

Result<SectionPlan> CoresTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::Profile& p = ctx.profile;
  const int nr = std::max(ctx.state.cpu_sets.nr_cpus, p.system.NrIds());

  // --- boot arguments: compared with the running kernel's command line ---
  const std::vector<std::string> args = profile::BootArguments(p);
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
    c.section = Section();
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

  // --- the boot loader file, unless the kernel already runs with every argument ---
  if (!args.empty()) {
    BootloaderType type = *p.cores.bootloader.type;
    if (type == BootloaderType::kAuto) type = DetectBootloader(ctx.root);
    std::string full;
    for (const auto& a : args) full += (full.empty() ? "" : " ") + a;
    if (type == BootloaderType::kPrint) {
      plan.findings.push_back({all_running ? Finding::Level::kInfo : Finding::Level::kWarning,
                               "add to the kernel command line (boot loader: print): " + full,
                               p.cores.bootloader.type.mark, kChapter6});
    } else if (!all_running) {
      std::string path = p.cores.bootloader.path->empty() ? profile::DefaultBootloaderPath(type) : *p.cores.bootloader.path;
      if (!path.empty() && path.front() == '/') path.erase(0, 1);
      Result<std::string> edited = MakeError("unreachable");
      std::string before;
      std::string what;
      if (type == BootloaderType::kBls) {
        auto entry = BlsEntryPath(ctx.root, path, *p.cores.bootloader.entry);
        if (!entry) return MakeError("cores.bootloader: " + entry.error().message, entry.error().err);
        path = *entry;
      }
      auto current = ctx.root.Read(path);
      if (!current && current.error().err != ENOENT) return current.error();
      before = current ? *current : "";
      switch (type) {
        case BootloaderType::kGrub:
          edited = RenderGrubDropIn(args, p.path);
          what = "GRUB drop-in " + path + " (then run update-grub and reboot)";
          break;
        case BootloaderType::kExtlinux:
          if (!current) return MakeError("cores.bootloader: " + ctx.root.Dir() + "/" + path + " does not exist", ENOENT);
          edited = EditExtlinux(before, args, *p.cores.bootloader.entry);
          what = "extlinux.conf APPEND line " + path + " (reboot)";
          break;
        case BootloaderType::kRpi:
          if (!current) return MakeError("cores.bootloader: " + ctx.root.Dir() + "/" + path + " does not exist", ENOENT);
          edited = EditCmdlineTxt(before, args);
          what = "Raspberry Pi " + path + " (reboot)";
          break;
        case BootloaderType::kBls:
          edited = EditBlsEntry(before, args);
          what = "boot entry options " + path + " (reboot)";
          break;
        default:
          break;
      }
      if (!edited) return MakeError("cores.bootloader: " + edited.error().message);
      Change c;
      c.section = Section();
      c.what = what;
      c.actuator = "bootfile";
      c.key = path;
      c.before = before;
      c.after = *edited;
      c.why = kChapter6;
      plan.items.push_back(std::move(c));
    }
  }

  // --- runtime knobs ---
  auto mask_item = [&](const profile::Marked<profile::CpuSpec>& spec, const std::string& path, const std::string& what) {
    if (spec->keyword == CpuKeyword::kKeep || spec->cpus.Empty()) return;
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      plan.findings.push_back({Finding::Level::kWarning, what + ": " + now.error().message + " (left alone)", spec.mark,
                               kChapter6});
      return;
    }
    Change c;
    c.section = Section();
    c.what = what;
    c.key = path;
    c.before = *now;
    c.after = spec->cpus.ToMask(nr);
    c.compare = Compare::kCpuMask;
    c.why = kChapter6;
    plan.items.push_back(std::move(c));
  };
  mask_item(p.cores.runtime.workqueue_cpumask, kpath::kWorkqueueCpumask, "unbound workqueue cpumask");
  mask_item(p.cores.runtime.default_smp_affinity, kpath::kDefaultSmpAffinity, "default IRQ affinity for new IRQs");
  if (p.cores.runtime.timer_migration->has_value()) {
    auto now = ctx.root.ReadTrimmed(kpath::kTimerMigration);
    if (now) {
      Change c;
      c.section = Section();
      c.what = "kernel.timer_migration";
      c.key = kpath::kTimerMigration;
      c.before = *now;
      c.after = **p.cores.runtime.timer_migration ? "1" : "0";
      c.compare = Compare::kInteger;
      c.why = kChapter6;
      plan.items.push_back(std::move(c));
    } else {
      plan.findings.push_back({Finding::Level::kInfo, "kernel.timer_migration is not in this kernel (left alone)",
                               p.cores.runtime.timer_migration.mark, kChapter6});
    }
  }
  return plan;
}

void CoresTuner::AddActuators(Executor& executor, SysRoot& root) const {
  executor.AddActuator("bootfile", std::make_unique<BootFileActuator>(root));
}

Result<std::string> BootFileActuator::Read(const std::string& key) {
  auto r = root_.Read(key);
  if (!r && r.error().err == ENOENT) return std::string();
  return r;
}

Result<void> BootFileActuator::Write(const std::string& key, const std::string& value) {
  if (value.empty()) return root_.Remove(key);
  return root_.WriteDurable(key, value);
}

}  // namespace rtagent
