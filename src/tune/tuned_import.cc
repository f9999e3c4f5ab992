// TuneD settings as rtagent keys. The plugins' meanings come from TuneD 2.20
// (tuned/plugins/plugin_<name>.py); why rtagent maps some of them differently is in
// docs/migrating-from-tuned.md and the seed's chapters it cites.
#include "tune/tuned_import.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "base/kernel_paths.h"
#include "tune/memory_tuner.h"

namespace rtagent {
namespace {

using profile::SourceMark;
using profile::TunedOption;
using profile::TunedUnit;

// TuneD's realtime profiles write the global mask, writeback's, and every workqueue's by a glob.
const std::string& VirtualWorkqueues() {
  static const std::string k = kpath::kWorkqueueCpumask.substr(0, kpath::kWorkqueueCpumask.rfind('/')) + "/*/cpumask";
  return k;
}
const std::string& SysfsWorkqueues() {
  static const std::string k = "/" + kpath::kWorkqueueCpumask + ", /" + kpath::WorkqueueCpumask("writeback") +
                               ", /" + VirtualWorkqueues();
  return k;
}

// TuneD's realtime and cpu-partitioning profiles turn the polling of corrected machine-check
// errors off on every CPU's device by a glob.
const std::string& SysfsMachinecheck() {
  static const std::string k = "/" + kpath::MachinecheckIgnoreCe("machinecheck*");
  return k;
}

}  // namespace

const std::vector<TunedMappingRow>& TunedMappingTable() {
  static const std::vector<TunedMappingRow> kRows = {
      {"main", "summary", "description", ""},
      {"main", "include", "(merged)", "the included profiles are read and merged as TuneD merges them; the output stands alone"},
      {"main", "*", "", "TuneD's own options; nothing to set"},
      {"variables", "*", "(evaluated)",
       "`${name}`, the `${f:...}` functions and the variable files `include=` names are evaluated: the output holds the values"},
      {"sysctl", "kernel.sched_rt_runtime_us = -1", "",
       "rtagent keeps RT throttling, the safety net against a runaway real-time loop (Chapter 2, \"Keep the safety net\"); "
       "to remove it anyway set `kernel.rt_safety_net: any` and `sysctls: {kernel.sched_rt_runtime_us: -1}`"},
      {"sysctl", "kernel.timer_migration", "cores.runtime.timer_migration", "`0` is `false`"},
      {"sysctl", "net.core.busy_read", "network.busy_read", ""},
      {"sysctl", "net.core.busy_poll", "network.busy_poll", ""},
      {"sysctl", "vm.stat_interval, kernel.numa_balancing, kernel.nmi_watchdog, ...", "memory.sysctl",
       "the RT set `memory.sysctl` takes, with its ranges checked"},
      {"sysctl", "*", "sysctls", "any other key, validated against the target's kernel"},
      {"vm", "transparent_hugepages", "memory.thp.enabled", "also spelled `transparent_hugepage`"},
      {"vm", "transparent_hugepage.defrag", "memory.thp.defrag", ""},
      {"vm", "dirty_bytes, dirty_background_bytes", "sysctls",
       "`N%` is `vm.dirty_ratio` (`vm.dirty_background_ratio`): N, as TuneD writes it; a size is `vm.dirty_bytes`"},
      {"vm", "dirty_ratio, dirty_background_ratio", "sysctls", ""},
      {"vm", "*", "", "no key"},
      {"cpu", "governor", "power.governor",
       "the first of an `a|b` list rtagent knows; `power.cpus` from the unit's `devices` (all by default)"},
      {"cpu", "force_latency", "power.cpu_dma_latency_us",
       "a number, or the fallback after `|` of a `cstate.*` form (TuneD looks the C-state's exit latency up at run time)"},
      {"cpu", "pm_qos_resume_latency_us", "power.resume_latency_us", "`n/a` is 0: no idle state"},
      {"cpu", "*", "",
       "no key (energy_perf_bias, min_perf_pct, boost, ...); `power.governor: performance` covers most of it on intel_pstate"},
      {"bootloader", "isolcpus=", "cores.isolated, cores.boot.isolcpus", "the CPU list and the flags (none is `domain`)"},
      {"bootloader", "nohz_full=, rcu_nocbs=", "cores.boot.nohz_full, cores.boot.rcu_nocbs",
       "`true` when the list is the isolated CPUs"},
      {"bootloader", "irqaffinity=, kthread_cpus=", "cores.boot.irqaffinity, cores.boot.kthread_cpus",
       "`true` when the list is the housekeeping CPUs"},
      {"bootloader", "rcu_nocb_poll, skew_tick=1", "cores.boot.rcu_nocb_poll, cores.boot.skew_tick", ""},
      {"bootloader", "tuned.non_isolcpus=", "cores.boot.kthread_cpus, cores.boot.irqaffinity",
       "the kernel's own arguments instead of TuneD's initrd hook"},
      {"bootloader", "nohz=on", "(left out)", "the kernel's default"},
      {"bootloader", "any other argument", "cores.boot.extra", "verbatim (`intel_pstate=disable`, `nosoftlockup`, `tsc=reliable`)"},
      {"bootloader", "*", "",
       "TuneD's GRUB and initrd options; rtagent writes the command line for the board's boot loader (`cores.bootloader`)"},
      {"sysfs", SysfsWorkqueues(), "cores.runtime.workqueue_cpumask", "the mask as a CPU list; `housekeeping` when it is"},
      {"sysfs", "/" + kpath::kThpEnabled + ", /" + kpath::kThpDefrag, "memory.thp.enabled, memory.thp.defrag", ""},
      {"sysfs", SysfsMachinecheck(), "cores.runtime.machinecheck_ignore_ce",
       "`1` is `true`; one CPU's device (`machinecheck2`) sets them all, as the kernel keeps one value"},
      {"sysfs", "*", "", "rtagent has no generic sysfs section"},
      {"irqbalance", "banned_cpus", "irqs.irqbalance", "`ban`: rtagent bans the isolated CPUs"},
      {"irqbalance", "*", "", "no key"},
      {"scheduler", "isolated_cores", "irqs.default, cores.runtime.default_smp_affinity",
       "`housekeeping`: IRQs off the isolated CPUs. rtagent moves only the threads `ranks.rules` name"},
      {"scheduler", "group.NAME", "ranks.rules.NAME",
       "`rule_prio:policy:prio:affinity:regex`; a regex `^\\[name` (a kernel thread) matches `threads`, any other the "
       "`cmdline`; rule_prio is dropped (the first matching rule wins in both)"},
      {"scheduler", "default_irq_smp_affinity", "cores.runtime.default_smp_affinity", "`calc` is `housekeeping`, `ignore` is `keep`"},
      {"scheduler", "ps_blacklist, ps_whitelist, runtime", "(nothing to do)", "rtagent only touches the threads rules name"},
      {"scheduler", "*", "", "no key (sched_* and numa_balancing_* tunables, cgroup_*)"},
      {"net", "channels", "network.channels",
       "`combined N` is `combined: N`; N the housekeeping count, or TuneD's `netdev_queue_count` left unset, is `channels: {}`: "
       "rtagent's default of one combined channel per housekeeping CPU, which passes over a NIC without combined channels "
       "(veth, a one-queue virtio-net) as TuneD does, where `combined: housekeeping` would be an error on it"},
      {"net", "*", "", "no key (coalesce, features, ring, wake_on_lan, ...)"},
      {"systemd", "cpu_affinity", "systemd.cpu_affinity", ""},
      {"systemd", "*", "", "no key"},
      {"script", "script", "", "rtagent runs no profile scripts: read the script and map what it does (docs/migrating-from-tuned.md)"},
      {"rtentsk", "*", "", "no key: TuneD keeps a timestamping socket open so the kernel never flips its static key at run time"},
      {"modules", "*", "",
       "no key; options of built-in or initrd-loaded modules can go on the command line (`cores.boot.extra: [kvm.option=value]`)"},
      {"selinux", "*", "", "SELinux tuning is outside rtagent"},
      {"service", "*", "", "rtagent starts and stops no services (irqbalance aside: `irqs.irqbalance`)"},
      {"*", "priority", "(nothing to do)", "the order TuneD applies its units in; rtagent's apply order is its own"},
      {"*", "*", "", "a TuneD plugin with no rtagent key (video, acpi, audio, disk, usb, ...)"},
  };
  return kRows;
}

std::string TunedMappingMarkdown() {
  std::string s = "| TuneD | rtagent | how |\n|---|---|---|\n";
  const auto& rows = TunedMappingTable();
  for (const auto& r : rows) {
    bool alone = std::count_if(rows.begin(), rows.end(), [&](const TunedMappingRow& x) { return x.section == r.section; }) == 1;
    std::string option = r.option == "*" ? (alone ? "" : " any other option") : " " + r.option;
    std::string tuned = r.section != "*" ? "[" + r.section + "]" + option
                        : r.option == "*" ? "any other plugin"
                                          : "any unit's " + r.option;
    std::string key = r.key.empty() ? "not mapped" : r.key.front() == '(' ? r.key : "`" + r.key + "`";
    std::string note = r.note;
    for (size_t i = 0; (i = note.find('|', i)) != std::string::npos; i += 2) note.replace(i, 1, "\\|");
    s += "| " + tuned + " | " + key + " | " + note + " |\n";
  }
  return s;
}

namespace {

// ------------------------------------------------------------------------- the output tree

// The profile being written: an ordered tree whose leaves carry a value and a comment.
struct Node {
  std::string key;
  std::string value;    // a leaf's YAML value; "" for a mapping
  std::string comment;  // after the value
  std::vector<Node> children;
  Node* Child(const std::string& k) {
    for (auto& c : children) {
      if (c.key == k) return &c;
    }
    children.push_back({k, "", "", {}});
    return &children.back();
  }
};

std::string Quote(const std::string& v) {
  static const std::regex plain(R"(-?[0-9]+|[A-Za-z_][A-Za-z0-9_.+-]*|[0-9][0-9,-]*[0-9])");
  if (std::regex_match(v, plain) || (v.size() > 1 && v.front() == '[' && v.back() == ']')) return v;
  std::string q = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

void Render(const Node& n, int depth, std::string* out) {
  for (const Node& c : n.children) {
    std::string line = std::string(static_cast<size_t>(depth) * 2, ' ') + Quote(c.key) + ":";
    if (c.children.empty()) line += " " + c.value;
    if (!c.comment.empty()) line += "  # " + c.comment;
    *out += line + "\n";
    Render(c, depth + 1, out);
  }
}

std::string Where(const SourceMark& m) {
  std::string profile = std::filesystem::path(m.file).parent_path().filename().string();
  return profile + ":" + std::to_string(m.line);
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\n"));
  s.erase(s.find_last_not_of(" \t\n") + 1);
  return s;
}

bool IsInt(const std::string& s) { return std::regex_match(s, std::regex(R"(-?[0-9]+)")); }

// ---------------------------------------------------------------------------- the importer

struct Setting {
  const TunedUnit* unit;
  std::string option;  // the option, or a command line argument
  std::string value;
  SourceMark mark;
  bool cmdline_arg = false;  // an argument of the [bootloader] cmdline, split out
  std::string Text() const {
    if (cmdline_arg) return "[" + unit->name + "] cmdline " + option + value;
    if (option.empty()) return "[" + unit->name + "]";
    return "[" + unit->name + "] " + option + (value.empty() ? "" : " = " + value);
  }
};

class Importer {
 public:
  Importer(const profile::TunedProfile& p, const profile::TunedSystem& system) : p_(p), system_(system) {}

  TunedImport Run() {
    std::vector<Setting> settings = Collect();
    FindIsolated(settings);
    for (const Setting& s : settings) Map(s);
    Defaults();
    return Finish();
  }

 private:
  // Every option of every unit, the command line split into its arguments.
  std::vector<Setting> Collect() {
    std::vector<Setting> out;
    for (const TunedUnit& u : p_.units) {
      if (!u.enabled) {
        result_.notes.push_back("[" + u.name + "] is switched off (enabled=false) and was skipped");
        continue;
      }
      if (u.type == "bootloader") {
        CollectCmdline(u, &out);
        continue;
      }
      for (const TunedOption& o : u.options) out.push_back({&u, o.key, o.value, o.mark});
      // A plugin that acts without options ([rtentsk]) is a setting of its own.
      if (u.options.empty() && Row(u.type, "*").key.empty()) out.push_back({&u, "", "", u.mark});
    }
    return out;
  }

  // plugin_bootloader.py _get_effective_options(): cmdline* options in order; "+args" and
  // "args" add, "-args" takes earlier ones out.
  void CollectCmdline(const TunedUnit& u, std::vector<Setting>* out) {
    std::vector<std::pair<std::string, SourceMark>> args;
    for (const TunedOption& o : u.options) {
      if (o.key.rfind("cmdline", 0) != 0) {
        out->push_back({&u, o.key, o.value, o.mark});
        continue;
      }
      if (o.value.empty()) continue;
      char op = o.value[0];
      std::string rest = o.value.substr(1);
      bool remove = op == '-';
      std::string vals = (op == '+' || op == '-' || (op == '\\' && !rest.empty() && std::string("\\+-").find(rest[0]) != std::string::npos))
                             ? rest
                             : o.value;
      std::istringstream in(vals);
      for (std::string a; in >> a;) {
        if (remove) {
          args.erase(std::remove_if(args.begin(), args.end(), [&](const auto& x) { return x.first == a; }), args.end());
        } else {
          args.push_back({a, o.mark});
        }
      }
    }
    for (const auto& [a, mark] : args) {
      size_t eq = a.find('=');
      out->push_back({&u, eq == std::string::npos ? a : a.substr(0, eq + 1), eq == std::string::npos ? "" : a.substr(eq + 1), mark,
                      true});
    }
  }

  std::optional<CpuSet> Cpus(const std::string& text) const { return profile::UnpackTunedCpus(text); }

  std::optional<CpuSet> Mask(std::string text) const {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    return profile::UnpackTunedCpus("0x" + text);
  }

  // isolcpus=FLAGS,LIST: the flags before the list.
  static std::pair<std::vector<std::string>, std::string> SplitIsolcpus(const std::string& v) {
    std::vector<std::string> flags;
    std::string rest = v;
    static const std::set<std::string> kFlags = {"nohz", "domain", "managed_irq"};
    while (true) {
      size_t c = rest.find(',');
      std::string head = rest.substr(0, c);
      if (!kFlags.count(head)) break;
      flags.push_back(head);
      rest = c == std::string::npos ? "" : rest.substr(c + 1);
    }
    return {flags, rest};
  }

  // The isolated CPUs: the first of these the profile sets.
  void FindIsolated(const std::vector<Setting>& settings) {
    auto take = [&](const Setting& s, std::optional<CpuSet> c, bool invert) {
      if (isolated_ || !c) return;
      isolated_ = invert ? system_.online.Minus(*c) : *c;
      isolated_from_ = s.Text() + " (" + Where(s.mark) + ")";
    };
    for (const std::string which : {"isolcpus=", "nohz_full=", "isolated_cores", "banned_cpus", "cpu_affinity", "sysfs"}) {
      for (const Setting& s : settings) {
        const std::string& type = s.unit->type;
        if (which == "isolcpus=" && type == "bootloader" && s.option == which) take(s, Cpus(SplitIsolcpus(s.value).second), false);
        if (which == "nohz_full=" && type == "bootloader" && s.option == which) take(s, Cpus(s.value), false);
        if (which == "isolated_cores" && type == "scheduler" && s.option == which) take(s, Cpus(s.value), false);
        if (which == "banned_cpus" && type == "irqbalance" && s.option == which) take(s, Cpus(s.value), false);
        if (which == "cpu_affinity" && type == "systemd" && s.option == which) take(s, Cpus(s.value), true);
        if (which == "sysfs" && type == "sysfs" && s.option == "/" + kpath::kWorkqueueCpumask) take(s, Mask(s.value), true);
      }
    }
    if (isolated_ && isolated_->Empty()) isolated_.reset();
    if (isolated_) housekeeping_ = system_.online.Minus(*isolated_);
  }

  // A CPU set as the profile writes it: a keyword when it is one.
  std::string CpuValue(const CpuSet& c, const Setting& s) {
    if (isolated_ && c == *isolated_) return "isolated";
    if (isolated_ && c == housekeeping_) return "housekeeping";
    if (!isolated_ && c == system_.online) return "housekeeping";
    if (isolated_) {
      result_.notes.push_back(s.Text() + " (" + Where(s.mark) + ") names CPUs " + c.ToList() +
                              ", neither the isolated CPUs " + isolated_->ToList() + " nor the housekeeping ones");
    }
    return Quote(c.ToList());
  }

  const TunedMappingRow& Row(const std::string& section, const std::string& option) const {
    const auto& rows = TunedMappingTable();
    const TunedMappingRow* fallback = &rows.back();
    for (const auto& r : rows) {
      if (r.section == "*" && r.option != "*" && r.option == option) return r;  // an option every unit has
    }
    for (const auto& r : rows) {
      if (r.section != section) continue;
      if (r.option == "*") {
        fallback = &r;
        continue;
      }
      std::regex sep(R"(,\s*)");
      for (std::sregex_token_iterator it(r.option.begin(), r.option.end(), sep, -1), end; it != end; ++it) {
        if (*it == option) return r;
      }
    }
    return *fallback;
  }

  void Set(const std::vector<std::string>& path, const std::string& value, const Setting& s, const std::string& why = "") {
    Node* n = &root_;
    for (const auto& k : path) n = n->Child(k);
    n->value = value;
    n->comment = why.empty() ? s.Text() + " (" + Where(s.mark) + ")" : why;
    set_.insert(Join(path));
    ++result_.mapped;
  }

  static std::string Join(const std::vector<std::string>& path) {
    std::string j;
    for (const auto& k : path) j += (j.empty() ? "" : ".") + k;
    return j;
  }

  void Unmapped(const Setting& s, const std::string& why) {
    std::string text = s.Text();  // a comment line each: a value of several lines (scripts) on one
    for (char& c : text) {
      if (c == '\n') c = ' ';
    }
    result_.unmapped.push_back({text, s.mark, why});
  }

  void Map(const Setting& s) {
    const std::string& type = s.unit->type;
    if (s.option == "priority" && !s.cmdline_arg) return;  // TuneD's order of units (the table's "*" row)
    if (type == "sysctl") return MapSysctl(s);
    if (type == "vm") return MapVm(s);
    if (type == "cpu") return MapCpu(s);
    if (type == "bootloader") return MapBoot(s);
    if (type == "sysfs") return MapSysfs(s);
    if (type == "scheduler") return MapScheduler(s);
    if (type == "irqbalance" && s.option == "banned_cpus") {
      if (auto c = Cpus(s.value); c && isolated_ && *c != *isolated_) {
        result_.notes.push_back(s.Text() + ": rtagent bans the isolated CPUs (" + isolated_->ToList() + ") instead");
      }
      return Set({"irqs", "irqbalance"}, "ban", s);
    }
    if (type == "net" && s.option == "channels") return MapChannels(s);
    if (type == "systemd" && s.option == "cpu_affinity") {
      if (auto c = Cpus(s.value)) return Set({"systemd", "cpu_affinity"}, CpuValue(*c, s), s);
    }
    const TunedMappingRow& row = Row(type, s.option);
    if (row.key.empty()) return Unmapped(s, row.note);
    if (row.key.front() != '(') Unmapped(s, "a value the importer cannot read as " + row.key);
  }

  void MapSysctl(const Setting& s) {
    std::string v = Trim(s.value);
    if (s.option == "kernel.sched_rt_runtime_us" && v == "-1") return Unmapped(s, Row("sysctl", "kernel.sched_rt_runtime_us = -1").note);
    if (s.option == "kernel.timer_migration" && (v == "0" || v == "1")) {
      return Set({"cores", "runtime", "timer_migration"}, v == "1" ? "true" : "false", s);
    }
    if ((s.option == "net.core.busy_read" || s.option == "net.core.busy_poll") && IsInt(v)) {
      return Set({"network", s.option.substr(9)}, v, s);
    }
    auto rt = MemorySysctlNames();
    if (std::find(rt.begin(), rt.end(), s.option) != rt.end()) return Set({"memory", "sysctl", s.option}, Quote(v), s);
    Set({"sysctls", s.option}, Quote(v), s);
  }

  void MapVm(const Setting& s) {
    std::string v = Trim(s.value);
    if (s.option == "transparent_hugepages" || s.option == "transparent_hugepage") {
      return Set({"memory", "thp", "enabled"}, Quote(v), s);
    }
    if (s.option == "transparent_hugepage.defrag") return Set({"memory", "thp", "defrag"}, Quote(v), s);
    if (s.option == "dirty_bytes" || s.option == "dirty_background_bytes") {
      std::string base = s.option.substr(0, s.option.size() - 6);
      if (!v.empty() && v.back() == '%') return Set({"sysctls", "vm." + base + "_ratio"}, Quote(v.substr(0, v.size() - 1)), s);
      return Set({"sysctls", "vm." + s.option}, Quote(v), s);
    }
    if (s.option == "dirty_ratio" || s.option == "dirty_background_ratio") return Set({"sysctls", "vm." + s.option}, Quote(v), s);
    Unmapped(s, Row("vm", s.option).note);
  }

  void PowerCpus(const Setting& s) {
    std::string dev = s.unit->devices;
    if (dev == "*" || dev.empty()) return Set({"power", "cpus"}, "all", s, "[cpu] devices=* (every CPU)");
    std::string list = std::regex_replace(dev.rfind("cpulist:", 0) == 0 ? dev.substr(8) : dev, std::regex(R"(cpu)"), "");
    if (auto c = Cpus(list)) return Set({"power", "cpus"}, CpuValue(*c, s), s, "[cpu] devices=" + dev);
    result_.notes.push_back("[cpu] devices=" + dev + " is not a CPU list; power.cpus left at its default");
  }

  void MapCpu(const Setting& s) {
    std::string v = Trim(s.value);
    if (s.option == "governor") {
      static const std::set<std::string> kGovernors = {"performance", "powersave", "schedutil", "ondemand", "conservative", "userspace"};
      std::istringstream in(std::regex_replace(v, std::regex(R"(\|)"), " "));
      for (std::string g; in >> g;) {
        if (kGovernors.count(g)) {
          PowerCpus(s);
          return Set({"power", "governor"}, g, s);
        }
      }
      return Unmapped(s, "no governor rtagent knows in '" + v + "'");
    }
    if (s.option == "force_latency") {
      std::string n = v.find('|') != std::string::npos ? v.substr(v.rfind('|') + 1) : v;
      if (IsInt(Trim(n))) return Set({"power", "cpu_dma_latency_us"}, Trim(n), s);
      return Unmapped(s, "no number of microseconds to hold (a `cstate.*` form needs its `|N` fallback)");
    }
    if (s.option == "pm_qos_resume_latency_us") {
      if (v == "n/a") v = "0";
      if (IsInt(v)) {
        PowerCpus(s);
        return Set({"power", "resume_latency_us"}, v, s);
      }
    }
    Unmapped(s, Row("cpu", s.option).note);
  }

  void BootCpus(const std::string& key, const Setting& s, const CpuSet* derived) {
    auto c = Cpus(s.value);
    if (!c) return Unmapped(s, "not a CPU list");
    std::string v = derived && *c == *derived ? "true" : Quote(c->ToList());
    Set({"cores", "boot", key}, v, s);
  }

  void MapBoot(const Setting& s) {
    const std::string& o = s.option;
    if (o == "isolcpus=") {
      auto [flags, list] = SplitIsolcpus(s.value);
      if (flags.empty()) flags = {"domain"};  // the kernel's default (kernel-parameters.txt)
      std::string v = "[";
      for (size_t i = 0; i < flags.size(); ++i) v += (i ? ", " : "") + flags[i];
      v += "]";
      auto c = Cpus(list);
      if (c && isolated_ && *c != *isolated_) {
        result_.notes.push_back("isolcpus= names " + c->ToList() + "; rtagent renders it with the isolated CPUs " + isolated_->ToList());
      }
      return Set({"cores", "boot", "isolcpus"}, v, s);
    }
    if (o == "nohz_full=" || o == "rcu_nocbs=") return BootCpus(o.substr(0, o.size() - 1), s, isolated_ ? &*isolated_ : nullptr);
    if (o == "irqaffinity=" || o == "kthread_cpus=") return BootCpus(o.substr(0, o.size() - 1), s, isolated_ ? &housekeeping_ : nullptr);
    if (o == "rcu_nocb_poll") return Set({"cores", "boot", "rcu_nocb_poll"}, "true", s);
    if (o == "skew_tick=") return Set({"cores", "boot", "skew_tick"}, s.value == "1" ? "true" : "false", s);
    if (o == "tuned.non_isolcpus=") {
      tuned_non_isolcpus_ = &s;
      return;
    }
    if (o == "nohz=" && s.value == "on") {
      ++result_.mapped;
      return;
    }
    if (s.cmdline_arg) {
      extra_.push_back({s.option + s.value, s});
      return;
    }
    Unmapped(s, Row("bootloader", o).note);
  }

  void MapSysfs(const Setting& s) {
    std::string path = s.option;
    std::string rel = path.empty() ? path : path.substr(1);
    if (rel == kpath::kWorkqueueCpumask || rel == kpath::WorkqueueCpumask("writeback") || rel == kpath::WorkqueueCpumask("*") ||
        rel == VirtualWorkqueues()) {
      auto c = Mask(s.value);
      if (!c) return Unmapped(s, "not a CPU mask");
      std::string v = CpuValue(*c, s);
      if (set_.count("cores.runtime.workqueue_cpumask")) {
        if (workqueue_value_ != v) result_.notes.push_back(s.Text() + " differs from the global mask; rtagent sets one mask for all");
        ++result_.mapped;
        return;
      }
      workqueue_value_ = v;
      return Set({"cores", "runtime", "workqueue_cpumask"}, v, s);
    }
    if (IsMachinecheckIgnoreCe(rel)) return MapIgnoreCe(s);
    if (rel == kpath::kThpEnabled) return Set({"memory", "thp", "enabled"}, Quote(Trim(s.value)), s);
    if (rel == kpath::kThpDefrag) return Set({"memory", "thp", "defrag"}, Quote(Trim(s.value)), s);
    Unmapped(s, Row("sysfs", "*").note);
  }

  // machinecheck*/ignore_ce, or one CPU's machinecheckN/ignore_ce.
  static bool IsMachinecheckIgnoreCe(const std::string& rel) {
    static const std::regex kOne("machinecheck([0-9]+|\\*)");
    const std::string dir = kpath::kMachinecheckDir + "/", file = "/ignore_ce";
    if (rel.size() <= dir.size() + file.size() || rel.rfind(dir, 0) != 0) return false;
    if (rel.compare(rel.size() - file.size(), file.size(), file) != 0) return false;
    return std::regex_match(rel.substr(dir.size(), rel.size() - dir.size() - file.size()), kOne);
  }

  // The kernel keeps one ignore_ce for every CPU: the first line sets the key, a later one that
  // says the same is mapped by it, one that says otherwise is a note (the last write wins in TuneD).
  void MapIgnoreCe(const Setting& s) {
    const std::string v = Trim(s.value);
    if (v != "0" && v != "1") return Unmapped(s, "ignore_ce is 0 or 1");
    const std::string want = v == "1" ? "true" : "false";
    if (set_.count("cores.runtime.machinecheck_ignore_ce")) {
      if (ignore_ce_value_ != want) {
        result_.notes.push_back(s.Text() + " differs from an earlier ignore_ce line; the kernel keeps one value for every "
                                "CPU and rtagent sets " + ignore_ce_value_);
      }
      ++result_.mapped;
      return;
    }
    ignore_ce_value_ = want;
    Set({"cores", "runtime", "machinecheck_ignore_ce"}, want, s);
  }

  void MapScheduler(const Setting& s) {
    if (s.option == "isolated_cores") {
      Set({"irqs", "default"}, "housekeeping", s);
      return Set({"cores", "runtime", "default_smp_affinity"}, "housekeeping", s);
    }
    if (s.option.rfind("group.", 0) == 0) return MapGroup(s);
    if (s.option == "default_irq_smp_affinity") {
      std::string v = Trim(s.value);
      if (v == "calc") return Set({"cores", "runtime", "default_smp_affinity"}, "housekeeping", s);
      if (v == "ignore") return Set({"cores", "runtime", "default_smp_affinity"}, "keep", s);
      if (auto c = Cpus(v)) return Set({"cores", "runtime", "default_smp_affinity"}, CpuValue(*c, s), s);
    }
    const TunedMappingRow& row = Row("scheduler", s.option);
    if (!row.key.empty() && row.key.front() == '(') return;
    Unmapped(s, row.note);
  }

  // group.NAME=rule_prio:policy:prio:affinity:regex (plugin_scheduler.py).
  void MapGroup(const Setting& s) {
    std::string name = s.option.substr(6);
    std::vector<std::string> f;
    std::string rest = s.value;
    for (int i = 0; i < 4; ++i) {
      size_t c = rest.find(':');
      if (c == std::string::npos) return Unmapped(s, "not rule_prio:policy:prio:affinity:regex");
      f.push_back(Trim(rest.substr(0, c)));
      rest = rest.substr(c + 1);
    }
    f.push_back(rest);
    static const std::map<std::string, std::string> kPolicies = {{"f", "fifo"}, {"r", "rr"}, {"o", "other"}, {"b", "batch"}, {"i", "idle"}};
    const std::string& re = f[4];
    if (re.rfind("^\\[", 0) == 0) {
      Set({"ranks", "rules", name, "threads"}, Quote(re.substr(3) + ".*"), s);
    } else {
      Set({"ranks", "rules", name, "cmdline"}, Quote(".*(?:" + re + ").*"), s);
    }
    if (kPolicies.count(f[1])) Set({"ranks", "rules", name, "policy"}, kPolicies.at(f[1]), s);
    if (IsInt(f[2])) Set({"ranks", "rules", name, "priority"}, f[2], s);
    if (f[3] != "*") {
      if (auto c = Mask(f[3])) Set({"ranks", "rules", name, "cpus"}, CpuValue(*c, s), s);
    }
  }

  // `combined N`. N the housekeeping count (TuneD's netdev_queue_count, or its nproc fallback
  // that the variables evaluate to `housekeeping`) is rtagent's default, `channels: {}`: one
  // combined channel per housekeeping CPU on every NIC that has combined channels. Written out
  // as `combined: housekeeping` it would be an error on a NIC without them (veth, a one-queue
  // virtio-net), which TuneD passes over. Any other N is said as `combined: N`.
  void MapChannels(const Setting& s) {
    std::smatch m;
    std::string v = Trim(s.value);
    if (std::regex_match(v, m, std::regex(R"(combined\s+(\S+))"))) {
      std::string n = m[1];
      const int hk = isolated_ ? housekeeping_.Count() : system_.online.Count();
      if (n == "housekeeping" || n == std::to_string(hk)) {
        return Set({"network", "channels"}, "{}", s,
                   s.Text() + " (" + Where(s.mark) + "): TuneD's netdev_queue_count, one combined channel per housekeeping "
                   "CPU: the default, which passes over a NIC without combined channels as TuneD does");
      }
      if (IsInt(n)) return Set({"network", "channels", "combined"}, n, s);
    }
    Unmapped(s, "only `combined N` has a key (network.channels.combined)");
  }

  // Keys whose rtagent default would change something the TuneD profile leaves alone.
  void Defaults() {
    if (tuned_non_isolcpus_ != nullptr) {
      for (const char* k : {"kthread_cpus", "irqaffinity"}) {
        if (!set_.count(std::string("cores.boot.") + k)) Set({"cores", "boot", k}, "true", *tuned_non_isolcpus_);
      }
    }
    if (!extra_.empty()) {
      std::string v = "[";
      std::string why;
      for (size_t i = 0; i < extra_.size(); ++i) {
        v += (i ? ", " : "") + Quote(extra_[i].first);
        std::string w = Where(extra_[i].second.mark);
        if (why.find(w) == std::string::npos) why += (why.empty() ? "" : ", ") + w;
      }
      Set({"cores", "boot", "extra"}, v + "]", extra_.front().second, "[bootloader] cmdline (" + why + ")");
      result_.mapped += static_cast<int>(extra_.size()) - 1;
    }
    const std::string kLeft = "not in the TuneD profile (rtagent's default would set it)";
    auto leave = [&](const std::vector<std::string>& path, const std::string& v) {
      if (set_.count(Join(path))) return;
      Node* n = &root_;
      for (const auto& k : path) n = n->Child(k);
      n->value = v;
      n->comment = kLeft;
    };
    for (const char* k : {"nohz_full", "rcu_nocbs", "irqaffinity", "kthread_cpus", "rcu_nocb_poll", "skew_tick"}) {
      leave({"cores", "boot", k}, "false");
    }
    leave({"cores", "boot", "isolcpus"}, "false");
    leave({"cores", "runtime", "workqueue_cpumask"}, "keep");
    leave({"cores", "runtime", "default_smp_affinity"}, "keep");
    leave({"irqs", "default"}, "keep");
    leave({"irqs", "irqbalance"}, "leave");
  }

  TunedImport Finish() {
    std::string chain;
    for (auto it = p_.chain.rbegin(); it != p_.chain.rend(); ++it) chain += (chain.empty() ? "" : " <- ") + *it;
    std::string name = p_.chain.empty() ? p_.name : p_.chain.back();
    std::string summary;
    for (const auto& o : p_.main) {
      if (o.key == "summary") summary = o.value;
    }
    std::string& y = result_.yaml;
    y = "# Imported from the TuneD profile '" + name + "' (" + chain + ") by `rtagent import tuned`.\n"
        "# Each value's comment names the TuneD setting it comes from (profile:line); what has no rtagent key\n"
        "# is listed at the end with the reason. docs/migrating-from-tuned.md has the whole mapping.\n"
        "version: 1\n"
        "name: " + Quote("tuned-" + name) + "\n";
    if (!summary.empty()) y += "description: " + Quote(summary) + "\n";
    if (isolated_) {
      Node* iso = root_.Child("cores");
      Node cores{"cores", "", "", {}};
      cores.children.push_back({"isolated", Quote(isolated_->ToList()), "from " + isolated_from_ + "; housekeeping is every other online CPU", {}});
      for (auto& c : iso->children) cores.children.push_back(c);
      *iso = cores;
    }
    Node ordered;
    for (const char* top : {"cores", "irqs", "ranks", "power", "memory", "network", "systemd", "sysctls"}) {
      for (auto& c : root_.children) {
        if (c.key == top) ordered.children.push_back(c);
      }
    }
    Render(ordered, 0, &y);
    if (!result_.unmapped.empty()) {
      y += "\n# Not mapped (" + std::to_string(result_.unmapped.size()) + "):\n";
      for (const auto& u : result_.unmapped) {
        y += "#   " + u.setting + " (" + Where(u.mark) + ")\n#     " + u.why + "\n";
      }
    }
    for (const auto& n : p_.notes) result_.notes.push_back(n);
    return result_;
  }

  const profile::TunedProfile& p_;
  const profile::TunedSystem& system_;
  TunedImport result_;
  Node root_;
  std::set<std::string> set_;
  std::optional<CpuSet> isolated_;
  CpuSet housekeeping_;
  std::string isolated_from_;
  std::string workqueue_value_;
  std::string ignore_ce_value_;  // the machinecheck_ignore_ce the first ignore_ce line set
  const Setting* tuned_non_isolcpus_ = nullptr;
  std::vector<std::pair<std::string, Setting>> extra_;
};

}  // namespace

TunedImport ImportTuned(const profile::TunedProfile& p, const profile::TunedSystem& system) {
  return Importer(p, system).Run();
}

}  // namespace rtagent
