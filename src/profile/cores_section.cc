// cores (Chapter 6, "A core of its own"): the housekeeping and isolated CPUs every CPU-list
// keyword resolves against, the boot arguments rendered for the boot loader, and the runtime
// masks. Its keys are read first (language.cc), so every later section sees the sets resolved.
#include <algorithm>
#include <cctype>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

// ------------------------------------------------------------------------ the two CPU sets

CpuSet AutoHousekeeping(const CpuSet& online) {
  // One housekeeping CPU per 8 online CPUs, at least one: the lowest-numbered ones (CPU 0
  // is the boot CPU, which keeps the tick anyway). A 1-CPU system keeps its only CPU.
  std::vector<int> cpus = online.Cpus();
  if (cpus.size() < 2) return online;
  size_t n = std::max<size_t>(1, (cpus.size() + 7) / 8);
  CpuSet hk;
  for (size_t i = 0; i < n; ++i) hk.Add(cpus[i]);
  return hk;
}

// Resolves `auto` and the set left unsaid (docs/profile.md, "How the two sets resolve"), then
// hands both to the reader for the `housekeeping` and `isolated` keywords.
void ResolveCoreSets(LoadContext& ctx, CoresConfig& c) {
  const CpuSet& online = ctx.profile().system.online;
  bool hk_given = c.housekeeping.IsSet() && c.housekeeping->keyword != CpuKeyword::kAuto;
  bool iso_given = c.isolated.IsSet() && c.isolated->keyword != CpuKeyword::kAuto;
  bool hk_auto = c.housekeeping.IsSet() && c.housekeeping->keyword == CpuKeyword::kAuto;
  bool iso_auto = c.isolated.IsSet() && c.isolated->keyword == CpuKeyword::kAuto;
  if (!c.housekeeping.IsSet() && !c.isolated.IsSet()) {
    c.housekeeping.value = CpuSpec{CpuKeyword::kList, "all", online};
  } else if (!hk_given) {
    // auto, or absent next to an explicit isolated set: the CPUs not isolated.
    CpuSet hk = iso_given ? online.Minus(c.isolated->cpus) : AutoHousekeeping(online);
    c.housekeeping.value.cpus = hk;
    if (!hk_auto) c.housekeeping.value = CpuSpec{CpuKeyword::kList, hk.ToList(), hk};
  }
  if (iso_auto) c.isolated.value.cpus = online.Minus(c.housekeeping->cpus);
  ctx.reader().SetCoreSets(c.housekeeping->cpus, c.isolated->cpus);
}

// Chapter 6: "at least one core must keep the tick".
void CheckCoreSets(const CrossCheck& cc, const CoresConfig& c) {
  const CpuSet& hk = cc.Housekeeping();
  const CpuSet& iso = cc.Isolated();
  const CpuSet& online = cc.profile().system.online;
  CpuSet overlap = hk.Intersect(iso);
  if (!overlap.Empty()) {
    cc.diags().Error(cc.At({c.isolated.mark, c.housekeeping.mark}),
                     "housekeeping and isolated CPUs overlap: CPU " + overlap.ToList() + " is in both (housekeeping " +
                         hk.ToList() + ", isolated " + iso.ToList() + ")",
                     "a CPU is either housekeeping (takes the kernel's chores) or isolated (runs the loop); remove CPU " +
                         overlap.ToList() + " from one of them");
  }
  if (hk.Empty()) {
    cc.diags().Error(cc.At({c.housekeeping.mark, c.isolated.mark}),
                     "no housekeeping CPU is left (isolated " + iso.ToList() + " of " + online.ToList() + ")",
                     "keep at least one CPU for housekeeping: it keeps the tick and time of day (Chapter 6); e.g. "
                     "'housekeeping: 0' and 'isolated: 1-N'");
  } else if (!hk.Intersects(online)) {
    cc.diags().Error(cc.At({c.housekeeping.mark}), "every housekeeping CPU (" + hk.ToList() + ") is offline",
                     "choose housekeeping CPUs among the online ones: " + online.ToList());
  }
}

// -------------------------------------------------------------------------- boot arguments

using IsolcpusFlags = std::optional<std::vector<IsolcpusFlag>>;

// isolcpus: a list of flags, or a boolean (false leaves isolcpus= out).
void ReadIsolcpus(LoadContext& ctx, Marked<IsolcpusFlags>& field, const YamlNode& v, const std::string& what) {
  FieldReader& r = ctx.reader();
  if (v.IsScalar()) {
    if (auto b = r.Bool(v, what)) Assign(&field, *b ? field.value : IsolcpusFlags(), v.mark);
    return;
  }
  if (!v.IsSequence()) {
    r.WrongType(v, what, "a list of flags or false", "write [nohz, domain, managed_irq], or false to leave isolcpus= out");
    return;
  }
  std::vector<IsolcpusFlag> flags;
  bool ok = true;
  for (const YamlNode& item : v.items) {
    auto i = r.Choice(item, what + "[]", IsolcpusFlagNames());
    if (!i) {
      ok = false;
      continue;
    }
    auto f = static_cast<IsolcpusFlag>(*i);
    if (std::find(flags.begin(), flags.end(), f) != flags.end()) {
      ctx.diags().Error(item.mark, "isolcpus flag '" + item.scalar + "' is listed twice", "list each flag once");
      ok = false;
      continue;
    }
    flags.push_back(f);
  }
  if (ok) Assign(&field, IsolcpusFlags(flags), v.mark);
}

// A boot argument that is on (`true`, with the derived CPUs), off, or a CPU list.
void ReadBootCpuArg(LoadContext& ctx, Marked<BootCpuArg>& field, const YamlNode& v, const std::string& what) {
  if (v.IsScalar() && !v.quoted) {
    static const std::vector<std::string> kWords = {"true", "false", "yes", "no", "on", "off"};
    std::string l = v.scalar;
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (std::find(kWords.begin(), kWords.end(), l) != kWords.end()) {
      if (auto b = ctx.reader().Bool(v, what)) {
        BootCpuArg a = field.value;
        a.enabled = *b;
        Assign(&field, a, v.mark);
      }
      return;
    }
  }
  if (auto c = ctx.reader().Cpus(v, what, CpuKeywords{})) Assign(&field, BootCpuArg{true, *c}, v.mark);
}

// A CPU-list boot argument, on by default for `derived` (the isolated or the housekeeping CPUs).
Key<BootConfig> BootCpuKey(std::string name, Marked<BootCpuArg> BootConfig::*m, bool isolated, std::string meaning) {
  std::string set = isolated ? "isolated" : "housekeeping";
  Key<BootConfig> k{{std::move(name), "`true`, `false` or CPU list", "`true` (the " + set + " CPUs)", std::move(meaning)}};
  k.load = [m, isolated](LoadContext& c, BootConfig& b, const YamlNode* v, const std::string& what) {
    (b.*m).value = BootCpuArg{true, isolated ? c.Isolated() : c.Housekeeping()};
    if (v != nullptr) ReadBootCpuArg(c, b.*m, *v, what);
  };
  return k;
}

// A boot argument that sends work to isolated CPUs defeats the isolation (Chapter 6).
Key<BootConfig>::Check AwayFromIsolated(Marked<BootCpuArg> BootConfig::*m, const char* key, const char* what) {
  return [m, key, what](const CrossCheck& cc, const BootConfig& b) {
    const Marked<BootCpuArg>& a = b.*m;
    if (!a->enabled || !a.IsSet()) return;
    CpuSet on_iso = a->cpus.cpus.Intersect(cc.Isolated());
    if (!on_iso.Empty()) {
      cc.diags().Warning(a.mark, std::string(key) + " sends " + what + " to isolated CPU " + on_iso.ToList(),
                         std::string("point ") + key +
                             " at housekeeping CPUs; route a chosen IRQ to an isolated CPU with an irqs rule instead");
    }
  };
}

void CheckNohzFull(const CrossCheck& cc, const BootConfig& b) {
  if (!b.nohz_full->enabled) return;
  const CpuSet& nohz = b.nohz_full->cpus.cpus;
  CpuSet hk = nohz.Intersect(cc.Housekeeping());
  // Not written, nohz_full is the isolated CPUs: housekeeping CPUs in it are the overlap of the
  // two sets, which the cores check reports at its line.
  if (!hk.Empty() && b.nohz_full.IsSet()) {
    cc.diags().Error(cc.At({b.nohz_full.mark}), "nohz_full includes housekeeping CPU " + hk.ToList(),
                     "housekeeping CPUs keep the tick; list only isolated CPUs in nohz_full (Chapter 6)");
  }
  int boot_cpu = cc.profile().system.online.Cpus().front();
  if (nohz.Has(boot_cpu) && hk.Empty() && !cc.Housekeeping().Empty()) {
    cc.diags().Warning(cc.At({b.nohz_full.mark, cc.profile().cores.isolated.mark}),
                       "nohz_full includes CPU " + std::to_string(boot_cpu) + ", the boot CPU, which the kernel keeps ticking",
                       "leave the boot CPU out of nohz_full and isolated (Chapter 6)");
  }
}

const Section<BootConfig>& BootSection();

// cores.boot.extra: verbatim arguments, except those the keys of cores.boot render (the
// command line would carry two values and the kernel would take the last).
void ReadExtra(LoadContext& ctx, BootConfig& b, const YamlNode& v, const std::string& what) {
  auto list = ctx.reader().StringList(v, what, true);
  if (!list) return;
  bool ok = true;
  std::vector<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string& a = (*list)[i];
    const SourceMark& m = v.IsSequence() ? v.items[i].mark : v.mark;
    if (a.empty() || a.find_first_of(" \t\n") != std::string::npos) {
      ctx.diags().Error(m, what + ": \"" + a + "\" is not one kernel argument",
                        "write one argument per list item, without spaces: [\"intel_idle.max_cstate=1\", \"nosoftlockup\"]");
      ok = false;
      continue;
    }
    std::string key = a.substr(0, a.find('='));
    // Every other key of cores.boot renders the kernel argument of its own name.
    if (key != "extra" && std::ranges::count(BootSection().Names(), key) > 0) {
      std::string field = KeyPath(BootSection().path(), key);
      ctx.diags().Error(m, what + " sets '" + key + "', which the profile renders from '" + field + "'",
                        "set it with '" + field + "' instead");
      ok = false;
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      ctx.diags().Error(m, what + " sets '" + key + "' twice", "keep one of them: the kernel takes the last");
      ok = false;
    }
    seen.push_back(key);
  }
  if (ok) Assign(&b.extra, *list, v.mark);
}

const Section<BootConfig>& BootSection() {
  static const Section<BootConfig> kSection{
      "cores.boot",
      {
          Custom<BootConfig>(
              "isolcpus", "list of `nohz`, `domain`, `managed_irq`, or `false`", "`[nohz, domain, managed_irq]`",
              "take the isolated CPUs out of scheduler balancing",
              [](LoadContext& c, BootConfig& b, const YamlNode* v, const std::string& what) {
                b.isolcpus.value = std::vector<IsolcpusFlag>{IsolcpusFlag::kNohz, IsolcpusFlag::kDomain, IsolcpusFlag::kManagedIrq};
                if (v != nullptr) ReadIsolcpus(c, b.isolcpus, *v, what);
              }),
          BootCpuKey("nohz_full", &BootConfig::nohz_full, true, "stop the tick whenever possible")
              .Checked(CheckNohzFull),
          BootCpuKey("rcu_nocbs", &BootConfig::rcu_nocbs, true, "move RCU callbacks off these CPUs"),
          Bool("rcu_nocb_poll", &BootConfig::rcu_nocb_poll, true,
               "the RCU callback threads poll instead of being woken from the isolated CPU"),
          BootCpuKey("irqaffinity", &BootConfig::irqaffinity, false, "default affinity of device interrupts at boot")
              .Checked(AwayFromIsolated(&BootConfig::irqaffinity, "irqaffinity", "device interrupts")),
          Bool("skew_tick", &BootConfig::skew_tick, true, "stagger the CPUs' ticks"),
          BootCpuKey("kthread_cpus", &BootConfig::kthread_cpus, false, "CPUs kernel threads may run on")
              .Checked(AwayFromIsolated(&BootConfig::kthread_cpus, "kthread_cpus", "kernel threads"))
              .AndThen(Step<BootConfig>([](LoadContext& c, BootConfig& b) {
                // Derived housekeeping arguments mean nothing when no CPU is isolated.
                for (Marked<BootCpuArg>* a : {&b.irqaffinity, &b.kthread_cpus}) {
                  if (c.Isolated().cpus.Empty() && a->value.cpus.keyword == CpuKeyword::kHousekeeping) a->value.enabled = false;
                }
              })),
          Custom<BootConfig>("extra", "list of strings", "`[]`", "further arguments verbatim, one per item",
                             [](LoadContext& c, BootConfig& b, const YamlNode* v, const std::string& what) {
                               if (v != nullptr) ReadExtra(c, b, *v, what);
                             }),
      }};
  return kSection;
}

// ------------------------------------------------------------------------------ boot loader

// A path or entry given to a boot loader that has no use for it is probably a mistake.
void CheckBootloaderFile(const CrossCheck& cc, const BootloaderConfig& bl) {
  BootloaderType t = *bl.type;
  bool file_type = t == BootloaderType::kGrub || t == BootloaderType::kExtlinux || t == BootloaderType::kRpi ||
                   t == BootloaderType::kBls || t == BootloaderType::kKernelInstall;
  if (bl.path.IsSet() && !file_type) {
    cc.diags().Warning(bl.path.mark, "cores.bootloader.path is ignored with type " + ToString(t),
                       "set 'type' to grub, extlinux, rpi, bls or kernel-install to edit that file");
  }
  if (bl.entry.IsSet() && t != BootloaderType::kExtlinux && t != BootloaderType::kBls) {
    cc.diags().Warning(bl.entry.mark, "cores.bootloader.entry only applies to extlinux and bls",
                       "remove 'entry' or set 'type' to extlinux or bls");
  }
}

const Section<BootloaderConfig>& BootloaderSection() {
  static const Section<BootloaderConfig> kSection{
      "cores.bootloader",
      {
          Choice("type", &BootloaderConfig::type, BootloaderNames(), BootloaderType::kPrint,
                 "`grub`: a drop-in `etc/default/grub.d/90-rtagent.cfg`"),
          Text("path", &BootloaderConfig::path, "the type's file above", "the file to edit").TypeDoc("path"),
          Text("entry", &BootloaderConfig::entry, "the default entry", "extlinux LABEL, or BLS entry file name or glob, to edit"),
      },
      {CheckBootloaderFile}};
  return kSection;
}

// cores.bootloader: a name, or a mapping with the file to edit.
Key<CoresConfig> BootloaderKey() {
  const Section<BootloaderConfig>& sub = BootloaderSection();
  Key<CoresConfig> k{{"bootloader", "name or mapping", "`print`", "where the command line is written", &sub}};
  k.load = [&sub](LoadContext& c, CoresConfig& cores, const YamlNode* v, const std::string& what) {
    if (v != nullptr && v->IsScalar()) {
      sub.Read(c, cores.bootloader, nullptr, what);
      if (auto i = c.reader().Choice(*v, what, BootloaderNames())) {
        Assign(&cores.bootloader.type, static_cast<BootloaderType>(*i), v->mark);
      }
      return;
    }
    sub.Read(c, cores.bootloader, v, what);
  };
  k.check = [&sub](const CrossCheck& cc, const CoresConfig& cores) { sub.CheckAll(cc, cores.bootloader); };
  return k;
}

// ---------------------------------------------------------------------------------- runtime

// The runtime masks: never empty (the kernel refuses it), and off the isolated CPUs.
Key<RuntimeConfig>::Check RuntimeMask(Marked<CpuSpec> RuntimeConfig::*m, const char* key) {
  return [m, key](const CrossCheck& cc, const RuntimeConfig& rt) {
    const Marked<CpuSpec>& f = rt.*m;
    if (!f.IsSet() || f->keyword == CpuKeyword::kKeep) return;
    if (f->cpus.Empty()) {
      if (cc.Cascade(*f)) return;
      cc.diags().Error(f.mark, std::string("cores.runtime.") + key + " is empty",
                       "the kernel refuses an empty mask; use housekeeping");
      return;
    }
    CpuSet on_iso = f->cpus.Intersect(cc.Isolated());
    if (!on_iso.Empty()) {
      cc.diags().Warning(f.mark, std::string("cores.runtime.") + key + " includes isolated CPU " + on_iso.ToList(),
                         "point it at housekeeping CPUs so the kernel's chores stay off the isolated ones (Chapter 6)");
    }
  };
}

// machinecheck_ignore_ce: a boolean, or `keep` (the same as leaving the key out).
void ReadIgnoreCe(LoadContext& ctx, RuntimeConfig& rt, const YamlNode& v, const std::string& what) {
  const std::string hint = "write true (stop polling corrected machine-check errors), false (poll them) or keep "
                           "(leave the kernel's value)";
  if (!v.IsScalar()) {
    ctx.reader().WrongType(v, what, "true, false or keep", hint);
    return;
  }
  std::string l = v.scalar;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (l == "keep") {
    Assign(&rt.machinecheck_ignore_ce, std::optional<bool>(), v.mark);
    return;
  }
  static const std::vector<std::string> kTrue = {"true", "yes", "on", "1"}, kFalse = {"false", "no", "off", "0"};
  const bool yes = std::ranges::count(kTrue, l) > 0;
  if (!yes && std::ranges::count(kFalse, l) == 0) {
    ctx.diags().Error(v.mark, "'" + what + "' must be true, false or keep, got \"" + v.scalar + "\"", hint);
    return;
  }
  Assign(&rt.machinecheck_ignore_ce, std::optional<bool>(yes), v.mark);
}

// `false` next to the boot argument mce=ignore_ce: the kernel boots with the polling off and
// apply turns it back on, which is seldom what was meant.
void CheckIgnoreCe(const CrossCheck& cc, const RuntimeConfig& rt) {
  const auto& f = rt.machinecheck_ignore_ce;
  if (!f->has_value() || **f) return;
  const auto& extra = cc.profile().cores.boot.extra;
  if (std::ranges::count(*extra, std::string("mce=ignore_ce")) == 0) return;
  cc.diags().Warning(cc.At({f.mark, extra.mark}),
                     "cores.runtime.machinecheck_ignore_ce is false but cores.boot.extra has mce=ignore_ce: the kernel "
                     "boots without polling corrected errors and apply turns the polling back on",
                     "keep one of them: machinecheck_ignore_ce: true (no reboot), or drop mce=ignore_ce from extra");
}

const Section<RuntimeConfig>& RuntimeSection() {
  const CpuKeywords keep{false, true, true, true};
  static const Section<RuntimeConfig> kSection{
      "cores.runtime",
      {
          Cpus("workqueue_cpumask", &RuntimeConfig::workqueue_cpumask, keep, HousekeepingCpus(),
               "where unbound workqueues run")
              .Checked(RuntimeMask(&RuntimeConfig::workqueue_cpumask, "workqueue_cpumask")),
          Cpus("default_smp_affinity", &RuntimeConfig::default_smp_affinity, keep, HousekeepingCpus(),
               "affinity of IRQs registered from now on")
              .Checked(RuntimeMask(&RuntimeConfig::default_smp_affinity, "default_smp_affinity")),
          OptBool("timer_migration", &RuntimeConfig::timer_migration, "leave", "let timers move to busy CPUs"),
          Custom<RuntimeConfig>("machinecheck_ignore_ce", "`true`, `false` or `keep`", "leave",
                                "x86: stop polling the machine-check banks for corrected errors",
                                [](LoadContext& c, RuntimeConfig& rt, const YamlNode* v, const std::string& what) {
                                  if (v != nullptr) ReadIgnoreCe(c, rt, *v, what);
                                })
              .Checked(CheckIgnoreCe),
      }};
  return kSection;
}

}  // namespace

const Section<CoresConfig>& CoresSection() {
  const CpuKeywords sets{true, false, false, false};
  static const Section<CoresConfig> kSection{
      "cores",
      {
          Cpus("housekeeping", &CoresConfig::housekeeping, sets, std::nullopt,
               "CPUs that take every kernel chore, device interrupt and ordinary process")
              .Fallback("see below"),
          Cpus("isolated", &CoresConfig::isolated, sets, std::nullopt, "CPUs set apart for the real-time work")
              .Fallback("see below")
              .AndThen(Step<CoresConfig>(ResolveCoreSets))
              .Checked(CheckCoreSets),
          Sub("boot", &CoresConfig::boot, BootSection(), "boot-time arguments"),
          BootloaderKey(),
          Sub("runtime", &CoresConfig::runtime, RuntimeSection(), "settings applied without a reboot"),
      }};
  return kSection;
}

}  // namespace rtagent::profile
