// The cmdline check: /proc/cmdline holds every boot argument the profile needs (otherwise a
// reboot is required: a state, not an error, told apart as "written, not booted yet" when the
// boot loader's files carry them and "not written" when they do not), and the isolation the kernel actually applied
// (sys/devices/system/cpu/isolated and nohz_full) agrees with the profile (lesson chapter 6).
#include <algorithm>
#include <optional>
#include <set>

#include "base/kernel_paths.h"
#include "check/chapters.h"
#include "check/check.h"
#include "tune/cores_tuner.h"

namespace rtagent::check {
namespace {

const char* kName = "cmdline";

bool IsCpuListKey(const std::string& key) {
  return key == "nohz_full" || key == "rcu_nocbs" || key == "irqaffinity" || key == "kthread_cpus";
}

// True when the live argument means what the wanted one says: CPU lists compare as sets,
// isolcpus by its flags (the implicit "domain" made explicit) and its CPUs.
bool SameArg(const CmdlineArg& want, const CmdlineArg* have, int nr_cpus) {
  if (have == nullptr) return false;
  if (!want.value) return true;
  if (!have->value) return false;
  if (IsCpuListKey(want.key)) {
    auto a = CpuSet::ParseList(*want.value, nr_cpus);
    auto b = CpuSet::ParseList(*have->value, nr_cpus);
    return a && b && *a == *b;
  }
  if (want.key == "isolcpus") {
    IsolCpusArg a = ParseIsolcpus(*want.value, nr_cpus);
    IsolCpusArg b = ParseIsolcpus(*have->value, nr_cpus);
    auto flags = [](const IsolCpusArg& x) {
      std::set<std::string> f(x.flags.begin(), x.flags.end());
      if (f.empty()) f.insert("domain");
      return f;
    };
    return a.cpus && b.cpus && *a.cpus == *b.cpus && flags(a) == flags(b);
  }
  return *want.value == *have->value;
}

// The boot loader as the cores plan sees it: its files and the command line they give the
// next boot (nullopt for `print`, a missing file, or a profile without boot arguments).
std::optional<BootSummary> BootFiles(const CheckEnv& env) {
  PlanContext ctx{env.profile, env.root, env.state};
  auto cores = CoresTuner().Plan(ctx);
  if (!cores || !cores->boot || cores->boot->files.empty()) return std::nullopt;
  return cores->boot;
}

std::string FileNames(const BootSummary& b) {
  std::vector<std::string> names;
  for (const auto& f : b.files) names.push_back("/" + f.path);
  return JoinAnd(names);
}

CheckResult BootArgs(const CheckEnv& env, const CmdlineInfo& live, int nr_cpus) {
  const auto wanted = profile::BootArguments(env.profile);
  CheckResult r;
  const std::optional<BootSummary> boot = wanted.empty() ? std::nullopt : BootFiles(env);
  // What the next boot gets from the boot loader's files as they are now.
  const ParsedCmdline next = ParseCmdline(boot ? boot->NextCmdline(false) : "");
  std::vector<std::string> written, unwritten, lost;
  for (const std::string& w : wanted) {
    ParsedCmdline one = ParseCmdline(w);
    if (one.args.empty()) continue;
    const CmdlineArg& want = one.args.front();
    const CmdlineArg* have = live.parsed.Find(want.key);
    const bool in_file = boot && SameArg(want, next.Find(want.key), nr_cpus);
    if (SameArg(want, have, nr_cpus)) {
      if (boot && !in_file) lost.push_back(w);
      continue;
    }
    const std::string shown = have && have->value ? w + " (now " + have->key + "=" + *have->value + ")" : w;
    (in_file ? written : unwritten).push_back(shown);
  }
  const size_t missing = written.size() + unwritten.size();
  const std::string limit = wanted.empty() ? "no boot arguments" : std::to_string(wanted.size()) + " boot arguments";
  if (wanted.empty()) {
    r = NewResult(kName, "cmdline.boot_args", Status::kPass, "the profile needs no boot argument", kChapter6);
  } else if (missing == 0 && lost.empty()) {
    r = NewResult(kName, "cmdline.boot_args", Status::kPass,
                  "/" + kpath::kCmdline + " holds all " + std::to_string(wanted.size()) + " boot arguments the profile needs",
                  kChapter6);
  } else if (missing == 0) {
    r = NewResult(kName, "cmdline.boot_args", Status::kWarn,
                  "the running kernel has every boot argument, but " + FileNames(*boot) + " no longer carries " +
                      std::to_string(lost.size()) + " of them: the next boot loses them",
                  kChapter6);
    r.measured = "not in the boot file: " + JoinAnd(lost);
    r.hint = "`rtagent apply` writes them again";
  } else {
    std::string summary = "reboot required: " + std::to_string(missing) + " of " + std::to_string(wanted.size()) +
                          " boot arguments are not on the running kernel's command line";
    std::vector<std::string> parts;
    if (!written.empty()) parts.push_back(std::to_string(written.size()) + " written to " + FileNames(*boot) + ", not booted yet");
    if (!unwritten.empty()) parts.push_back(std::to_string(unwritten.size()) + " not written");
    r = NewResult(kName, "cmdline.boot_args", Status::kWarn, summary + " (" + JoinAnd(parts) + ")", kChapter6);
    std::vector<std::string> measured;
    if (!written.empty()) measured.push_back("written, not booted yet: " + JoinAnd(written));
    if (!unwritten.empty()) measured.push_back("not written: " + JoinAnd(unwritten));
    for (const auto& m : measured) r.measured += (r.measured.empty() ? "" : "; ") + m;
    if (unwritten.empty()) {
      r.hint = "reboot: the boot loader already has them";
    } else if (boot) {
      r.hint = "`rtagent apply` writes them to " + FileNames(*boot) + " (" + boot->loader + "), then reboot";
    } else {
      r.hint = "`rtagent apply` writes them for the boot loader (cores.bootloader; `print` shows the line to add), "
               "then reboot";
    }
  }
  if (r.measured.empty()) r.measured = live.raw ? std::to_string(live.parsed.args.size()) + " arguments" : "unreadable";
  r.limit = limit;
  r.mark = env.profile.cores.isolated.mark;
  return r;
}

// One CPU set the kernel reports after boot against what the profile's argument asks for.
// `booted` is the set the running command line asks for (nullopt when the argument is absent).
// A difference is a pending reboot unless the kernel was booted with exactly the profile's
// value: then the kernel did not apply it (a kernel without CONFIG_NO_HZ_FULL, say) and it FAILs.
CheckResult Applied(const std::string& id, const std::string& file, const std::string& key,
                    const std::optional<CpuSet>& want, const std::optional<CpuSet>& booted,
                    const std::optional<CpuSet>& have, const profile::SourceMark& mark) {
  auto text = [](const std::optional<CpuSet>& s) { return !s ? std::string("absent") : s->Empty() ? "none" : s->ToList(); };
  CheckResult r;
  if (!want) {
    r = NewResult(kName, id, Status::kPass, "the profile asks for no " + key + "=", kChapter6);
  } else if (!have) {
    r = NewResult(kName, id, Status::kSkip, file + " is not readable on this kernel", kChapter6);
  } else if (*have == *want) {
    r = NewResult(kName, id, Status::kPass, "the kernel applied " + key + "=" + want->ToList(), kChapter6);
  } else if (booted && *booted == *want) {
    r = NewResult(kName, id, Status::kFail,
                  file + " is " + text(have) + " although the kernel was booted with " + key + "=" + want->ToList() +
                      ": the kernel did not apply it",
                  kChapter6);
    r.hint = key == "nohz_full" ? "the kernel needs CONFIG_NO_HZ_FULL=y; CPU 0 (the boot CPU) is never accepted"
                                : "check the argument's CPU list and the kernel's messages (dmesg | grep -i isol)";
  } else {
    r = NewResult(kName, id, Status::kWarn,
                  "reboot required: " + file + " is " + text(have) + ", the profile's " + key + "=" + want->ToList() +
                      " is not booted yet",
                  kChapter6);
    r.hint = "reboot with the boot arguments `rtagent apply` wrote (cmdline.boot_args lists them)";
  }
  r.measured = text(have);
  r.limit = want ? text(want) : "";
  if (want) r.mark = mark;
  return r;
}

class CmdlineCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const profile::CheckBlock<profile::Toggle> kSettings{
        kName, "the running kernel's /proc/cmdline holds the profile's boot arguments; isolation applied", {}};
    static const CheckInfo kInfo{.name = kName,
                                 .title = "the kernel command line and the isolation it applied",
                                 .chapters = "6",
                                 .settings = &kSettings};
    return kInfo;
  }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    if (!env.state.cmdline || !env.state.cmdline->raw) {
      auto r = NewResult(kName, "cmdline", Status::kSkip, "/" + kpath::kCmdline + " is not readable", kChapter6);
      return {r};
    }
    const CmdlineInfo& live = *env.state.cmdline;
    const auto& cpus = env.state.cpu_sets;
    const auto& boot = env.profile.cores.boot;
    std::vector<CheckResult> out;
    out.push_back(BootArgs(env, live, cpus.nr_cpus));

    // isolcpus' domain CPUs show in sys/devices/system/cpu/isolated; "nohz" or "managed_irq"
    // alone leaves them in the scheduler's domains.
    std::optional<CpuSet> want_isolated;
    if (boot.isolcpus->has_value() && !env.profile.cores.isolated->cpus.Empty()) {
      const auto& flags = **boot.isolcpus;
      bool domain = flags.empty();
      for (auto f : flags) domain |= f == profile::IsolcpusFlag::kDomain;
      if (domain) want_isolated = env.profile.cores.isolated->cpus;
    }
    std::optional<CpuSet> booted_isolated, booted_nohz;
    if (live.isolation.isolcpus) {
      const auto& f = live.isolation.isolcpus->flags;
      bool domain = f.empty() || std::find(f.begin(), f.end(), "domain") != f.end();
      if (domain) booted_isolated = live.isolation.isolcpus->cpus;
    }
    if (live.isolation.nohz_full) booted_nohz = live.isolation.nohz_full->cpus;
    const auto& fallback = env.profile.cores.isolated.mark;
    out.push_back(Applied("cmdline.isolated", "/" + kpath::kCpuIsolated, "isolcpus", want_isolated,
                          booted_isolated, cpus.isolated, boot.isolcpus.mark.Known() ? boot.isolcpus.mark : fallback));
    std::optional<CpuSet> want_nohz;
    if (boot.nohz_full->enabled && !boot.nohz_full->cpus.cpus.Empty()) want_nohz = boot.nohz_full->cpus.cpus;
    out.push_back(Applied("cmdline.nohz_full", "/" + kpath::kCpuNohzFull, "nohz_full", want_nohz, booted_nohz,
                          cpus.nohz_full, boot.nohz_full.mark.Known() ? boot.nohz_full.mark : fallback));
    return out;
  }
};

}  // namespace
std::unique_ptr<Check> MakeCmdlineCheck() { return std::make_unique<CmdlineCheck>(); }
}  // namespace rtagent::check
