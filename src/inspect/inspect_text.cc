#include "inspect/inspect_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "base/ansi_style.h"
#include "base/count_text.h"
#include "base/kernel_paths.h"
#include "base/text_table.h"

namespace rtagent {
namespace {

constexpr const char* kAbsent = "absent";

class Out {
 public:
  explicit Out(const TextOptions& o) : o_(o) {}
  void Title(const std::string& name) {
    if (!s_.empty()) s_ += '\n';
    std::string t = name;
    for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    s_ += Paint(o_.color, "1", t) + "\n";
  }
  /// Aligned "key  value" lines.
  void Pairs(const std::vector<std::pair<std::string, std::string>>& kv) {
    size_t w = 0;
    for (const auto& [k, v] : kv) w = std::max(w, k.size());
    for (const auto& [k, v] : kv) {
      std::string line = "  " + k + std::string(w - k.size() + 2, ' ') + v;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s_ += line + "\n";
    }
  }
  void Line(const std::string& l) { s_ += "  " + l + "\n"; }
  void Table(const TextTable& t) { s_ += t.Render(2); }
  std::string str() const { return s_; }

 private:
  const TextOptions& o_;
  std::string s_;
};

std::string Or(const std::optional<std::string>& v, const char* absent = kAbsent) { return v ? *v : absent; }
std::string Num(const std::optional<long long>& v) { return v ? std::to_string(*v) : kAbsent; }
std::string List(const CpuSet& s) { return s.Empty() ? "none" : s.ToList(); }
std::string List(const std::optional<CpuSet>& s) { return s ? List(*s) : kAbsent; }
std::string YesNo(bool b) { return b ? "yes" : "no"; }

std::string Join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Integers as compact ranges: 24-26,28.
std::string Ranges(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

bool IsHex(char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); }

// A PCI address "0000:0a:00.0" at s[i].
bool PciAddressAt(const std::string& s, size_t i) {
  static const char kShape[] = "hhhh:hh:hh.h";
  if (i + sizeof kShape - 1 > s.size()) return false;
  for (size_t k = 0; k + 1 < sizeof kShape; ++k) {
    char c = s[i + k];
    if (kShape[k] == 'h' ? !IsHex(c) : c != kShape[k]) return false;
  }
  return true;
}

// For grouping like things: PCI addresses become "*" and digit runs "N":
// "virtio3-rx" -> "virtioN-rx", "mlx5_comp7@pci:0000:0a:00.0" -> "mlxN_compN@pci:*".
std::string Fold(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (PciAddressAt(s, i)) {
      out += '*';
      i += 12;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      out += 'N';
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// Per-device MSI chips ("PCI-MSIX-0000:00:05.0") are one kind of chip: "PCI-MSIX-*".
std::string FoldChip(const std::string& chip) {
  size_t colon = chip.find(':');
  if (colon == std::string::npos) return chip;
  size_t dash = chip.rfind('-', colon);
  return dash == std::string::npos ? Fold(chip) : chip.substr(0, dash + 1) + "*";
}

void Kernel(Out& o, const KernelInfo& k) {
  o.Title("kernel");
  std::string preempt = k.preempt_model.empty() ? "none or voluntary (no PREEMPT in uname -v)" : k.preempt_model;
  if (k.preempt_dynamic_mode) preempt += " (mode " + *k.preempt_dynamic_mode + ")";
  std::string rt = YesNo(k.preempt_rt);
  std::vector<std::string> why;
  if (k.preempt_model == "PREEMPT_RT") why.push_back("uname -v");
  if (k.realtime_sysfs) why.push_back(kpath::kRealtime + "=" + std::to_string(*k.realtime_sysfs));
  if (!why.empty()) rt += " (" + Join(why, ", ") + ")";
  const SafetyNet& n = k.safety_net;
  std::vector<std::pair<std::string, std::string>> kv = {
      {"release", Or(k.release)},
      {"version", Or(k.version)},
      {"arch", Or(k.arch)},
      {"preemption", preempt},
      {"PREEMPT_RT", rt},
      {"safety net", n.active + ": " + n.reason},
      {"RT throttling", n.rt_runtime_us ? Num(n.rt_runtime_us) + " us of every " + Num(n.rt_period_us) + " us" : kAbsent},
  };
  if (n.fair_server_state == "visible") {
    // CPUs grouped by their (runtime, period): one line for a uniform board.
    std::map<std::pair<long long, long long>, CpuSet> groups;
    for (const auto& f : n.fair_server) groups[{f.runtime_ns.value_or(-1), f.period_ns.value_or(-1)}].Add(f.cpu);
    std::vector<std::string> parts;
    for (const auto& [rp, cpus] : groups) {
      std::string p = rp.first == 0 ? "off (runtime 0)" : std::to_string(rp.first / 1000000) + " ms of " + std::to_string(rp.second / 1000000) + " ms";
      parts.push_back(p + " on " + cpus.Named());
    }
    kv.push_back({"fair server", Join(parts, "; ")});
  } else {
    kv.push_back({"fair server", n.fair_server_state});
  }
  o.Pairs(kv);
}

std::string CpuArg(const std::optional<CpuListArg>& a) {
  if (!a) return kAbsent;
  if (a->text.empty()) return "(no list)";
  return a->cpus ? a->cpus->ToList() : a->text + " (invalid)";
}

void Cmdline(Out& o, const CmdlineInfo& c) {
  o.Title("cmdline");
  const IsolationArgs& i = c.isolation;
  std::string isol = kAbsent;
  if (i.isolcpus) {
    isol = (i.isolcpus->flags.empty() ? std::string("domain (implicit)") : Join(i.isolcpus->flags, ",")) + " " +
           (i.isolcpus->cpus ? i.isolcpus->cpus->ToList() : i.isolcpus->cpus_text + " (invalid)");
  }
  std::vector<std::string> other;
  for (const auto& a : i.other) other.push_back(a.key + (a.value ? "=" + *a.value : ""));
  o.Pairs({
      {"raw", Or(c.raw)},
      {"isolcpus", isol},
      {"nohz_full", CpuArg(i.nohz_full)},
      {"rcu_nocbs", CpuArg(i.rcu_nocbs)},
      {"rcu_nocb_poll", YesNo(i.rcu_nocb_poll)},
      {"irqaffinity", CpuArg(i.irqaffinity)},
      {"kthread_cpus", CpuArg(i.kthread_cpus)},
      {"skew_tick", Or(i.skew_tick)},
      {"nosoftlockup", YesNo(i.nosoftlockup)},
      {"nowatchdog", YesNo(i.nowatchdog)},
      {"other", other.empty() ? "none" : Join(other)},
  });
}

void Cpus(Out& o, const CpuState& c) {
  o.Title("cpus");
  std::string offline = c.possible && c.online ? List(c.possible->Minus(*c.online)) : kAbsent;
  o.Pairs({
      {"possible", List(c.possible)},
      {"online", List(c.online) + (c.online ? " (" + std::to_string(c.online->Count()) + ")" : "")},
      {"offline", offline},
      {"isolated (isolcpus)", List(c.isolated)},
      {"nohz_full", List(c.nohz_full)},
      {"isolated partitions", List(c.partition_isolated)},
      {"isolated, any way", List(c.isolated_all)},
      {"housekeeping", List(c.housekeeping)},
      {"workqueue cpumask", List(c.workqueue_cpumask)},
      {"timer_migration", Num(c.timer_migration)},
  });
}

// CPUs whose column moved: a compact stand-in for the per-CPU counts.
std::string ActiveCpus(const ColumnCounts& counts, const std::vector<int>& cols) {
  CpuSet s;
  for (const ColumnCounts::Entry& e : counts.NonZero()) {
    if (e.column < cols.size()) s.Add(cols[e.column]);
  }
  return s.Empty() ? "-" : s.ToList();
}

void Irqs(Out& o, const IrqState& s, const CpuState& cpus, const TextOptions& opt) {
  o.Title("irqs");
  if (!s.readable) {
    o.Line(kpath::kInterrupts + " is not readable");
    return;
  }
  size_t hot = 0;
  for (const auto& i : s.irqs) hot += i.on_isolated > 0;
  o.Pairs({
      {"default affinity", List(s.default_affinity)},
      {"device IRQs", std::to_string(s.irqs.size()) + (cpus.isolated_all.Empty() ? "" : ", " + std::to_string(hot) + " with counts on isolated CPUs " + cpus.isolated_all.ToList())},
  });
  auto note = [](const IrqInfo& i) {
    std::vector<std::string> n;
    if (i.per_cpu) n.push_back("per-CPU");
    if (i.managed_hint) n.push_back("managed?");
    return Join(n, ",");
  };
  if (s.irqs.size() <= opt.max_rows) {
    TextTable t({">IRQ", "NAME", "CHIP", ">HWIRQ", "TYPE", ">TOTAL", ">ON-ISO", "ACTIVE-CPUS", "AFFINITY", "EFFECTIVE", "NOTE"});
    for (const auto& i : s.irqs) {
      t.Row({std::to_string(i.irq), i.Name(), i.chip, i.hwirq, i.type, std::to_string(i.total), std::to_string(i.on_isolated),
             ActiveCpus(i.counts, s.cpu_columns), List(i.affinity), List(i.effective_affinity), note(i)});
    }
    o.Table(t);
  } else {
    // Grouped by kind: the same driver's queues on the same kind of chip are one row.
    struct Group {
      std::vector<int> irqs;
      unsigned long long total = 0, on_iso = 0;
      CpuSet affinity;
    };
    std::map<std::pair<std::string, std::string>, Group> groups;
    for (const auto& i : s.irqs) {
      auto& g = groups[{Fold(i.Name()), FoldChip(i.chip)}];
      g.irqs.push_back(i.irq);
      g.total += i.total;
      g.on_iso += i.on_isolated;
      if (i.affinity) g.affinity = g.affinity.Union(*i.affinity);
    }
    o.Line(CountOf(s.irqs.size(), "IRQ", "IRQs") + " in " + CountOf(groups.size(), "group", "groups") +
           " (--json lists each):");
    TextTable t({"NAME", "CHIP", ">COUNT", "IRQS", ">TOTAL", ">ON-ISO", "AFFINITY (union)"});
    for (const auto& [key, g] : groups) {
      std::string irqs = Ranges(g.irqs);
      if (irqs.size() > 40) irqs = irqs.substr(0, 37) + "...";
      t.Row({key.first, key.second, std::to_string(g.irqs.size()), irqs, std::to_string(g.total), std::to_string(g.on_iso), List(g.affinity)});
    }
    o.Table(t);
    // The IRQs that matter most on an RT board: the ones landing on isolated CPUs.
    std::vector<const IrqInfo*> worst;
    for (const auto& i : s.irqs) {
      if (i.on_isolated > 0) worst.push_back(&i);
    }
    std::sort(worst.begin(), worst.end(), [](const IrqInfo* a, const IrqInfo* b) { return a->on_isolated > b->on_isolated; });
    if (!worst.empty()) {
      o.Line("busiest IRQs on isolated CPUs:");
      TextTable w({">IRQ", "NAME", "CHIP", ">ON-ISO", "AFFINITY", "NOTE"});
      for (size_t k = 0; k < worst.size() && k < 20; ++k) {
        const IrqInfo& i = *worst[k];
        w.Row({std::to_string(i.irq), i.Name(), i.chip, std::to_string(i.on_isolated), List(i.affinity), note(i)});
      }
      o.Table(w);
    }
  }
  if (!s.per_cpu_rows.empty()) {
    o.Line("per-CPU interrupts:");
    TextTable t({"ID", ">TOTAL", ">ON-ISO", "ACTIVE-CPUS", "DESCRIPTION"});
    for (const auto& r : s.per_cpu_rows) {
      bool single = r.counts.size() == 1 && s.cpu_columns.size() != 1;
      t.Row({r.id, std::to_string(r.total), single ? "" : std::to_string(r.on_isolated), single ? "" : ActiveCpus(r.counts, s.cpu_columns), r.description});
    }
    o.Table(t);
  }
}

void Threads(Out& o, const ThreadState& t, const TextOptions& opt) {
  o.Title("threads");
  std::vector<std::string> pol;
  for (const auto& [k, v] : t.by_policy) pol.push_back(k + " " + std::to_string(v));
  o.Pairs({
      {"threads", FormatCount(t.threads) + " in " + CountOf(t.processes, "process", "processes") + ", " +
                      CountOf(t.kthreads, "kernel thread", "kernel threads")},
      {"policies", pol.empty() ? "none" : Join(pol, ", ")},
      {"real-time", CountOf(t.realtime.size(), "thread", "threads") + " (fifo, rr, deadline)"},
  });
  // By rank: deadline above everything, then the RT priority, highest first.
  std::vector<const ThreadInfo*> rt;
  for (const auto& th : t.realtime) rt.push_back(&th);
  std::stable_sort(rt.begin(), rt.end(), [](const ThreadInfo* a, const ThreadInfo* b) {
    bool da = a->policy == kSchedDeadline, db = b->policy == kSchedDeadline;
    if (da != db) return da;
    return a->priority > b->priority;
  });
  if (rt.size() <= opt.max_rows) {
    if (!rt.empty()) {
      TextTable tab({">TID", ">PID", "COMM", "POLICY", ">PRIO", "AFFINITY", ">CPU", "PROCESS"});
      for (const auto* th : rt) {
        std::string prio = std::to_string(th->priority);
        if (th->deadline) {
          prio = "rt " + (th->deadline->runtime_ns ? std::to_string(*th->deadline->runtime_ns / 1000) : std::string("?")) + "us";
        }
        tab.Row({std::to_string(th->tid), std::to_string(th->pid), th->comm, PolicyName(th->policy), prio, List(th->affinity),
                 std::to_string(th->last_cpu), th->kthread ? "[kernel]" : th->process_comm});
      }
      o.Table(tab);
    }
  } else {
    struct Group {
      int count = 0;
      std::set<std::string> policies;
      unsigned lo = 1000, hi = 0;
      CpuSet affinity;
    };
    std::map<std::string, Group> groups;
    std::vector<std::string> order;
    for (const auto* th : rt) {
      std::string p = ThreadPattern(th->comm);
      if (!groups.count(p)) order.push_back(p);
      auto& g = groups[p];
      ++g.count;
      g.policies.insert(PolicyName(th->policy));
      g.lo = std::min(g.lo, th->priority);
      g.hi = std::max(g.hi, th->priority);
      if (th->affinity) g.affinity = g.affinity.Union(*th->affinity);
    }
    o.Line(CountOf(rt.size(), "real-time thread", "real-time threads") + " in " +
           CountOf(groups.size(), "group", "groups") + ", highest rank first (--json lists each):");
    TextTable tab({"PATTERN", ">COUNT", "POLICY", ">PRIO", "AFFINITY (union)"});
    for (const auto& p : order) {
      const Group& g = groups[p];
      std::string prio = g.lo == g.hi ? std::to_string(g.lo) : std::to_string(g.lo) + "-" + std::to_string(g.hi);
      tab.Row({p, std::to_string(g.count), Join(std::vector<std::string>(g.policies.begin(), g.policies.end()), ","), prio, List(g.affinity)});
    }
    o.Table(tab);
  }
  if (!t.per_cpu_kthreads.empty()) {
    o.Line("per-CPU kernel threads:");
    TextTable tab({"PATTERN", ">COUNT", "POLICIES"});
    for (const auto& g : t.per_cpu_kthreads) {
      std::vector<std::string> p;
      for (const auto& [k, v] : g.by_policy) p.push_back(k + " " + std::to_string(v));
      tab.Row({g.pattern, std::to_string(g.count), Join(p, ", ")});
    }
    o.Table(tab);
  }
}

std::string Choice(const ChoiceFile& c) {
  if (!c.present) return kAbsent;
  return c.selected.value_or("?") + "  (" + Join(c.choices) + ")";
}

void Memory(Out& o, const MemoryState& m) {
  o.Title("memory");
  std::vector<std::pair<std::string, std::string>> kv = {{"THP enabled", Choice(m.thp_enabled)}, {"THP defrag", Choice(m.thp_defrag)}};
  for (const auto& [k, v] : m.sysctls) kv.push_back({k, Or(v)});
  o.Pairs(kv);
}

void Power(Out& o, const PowerState& p) {
  o.Title("power");
  std::string qos = p.cpu_dma_latency_state;
  if (p.cpu_dma_latency_us) {
    qos = std::to_string(*p.cpu_dma_latency_us) + " us";
    if (*p.cpu_dma_latency_us >= 2000000000) qos += " (the default: no constraint)";
  }
  o.Pairs({
      {"PM QoS cpu_dma_latency", qos},
      {"cpuidle driver", Or(p.idle_driver)},
      {"cpuidle governor", Or(p.idle_governor) + (p.idle_governors.empty() ? "" : "  (" + Join(p.idle_governors) + ")")},
  });
  // Idle states grouped across CPUs: one row per distinct state, with where it is disabled.
  using Key = std::tuple<int, std::string, long long, long long>;
  std::map<Key, std::pair<CpuSet, CpuSet>> states;
  std::map<std::string, CpuSet> resume;
  std::map<std::tuple<std::string, std::string, std::string>, CpuSet> freq;
  for (const auto& c : p.cpus) {
    for (const auto& s : c.idle_states) {
      auto& e = states[{s.index, s.name, s.latency_us.value_or(-1), s.residency_us.value_or(-1)}];
      e.first.Add(c.cpu);
      if (s.disabled.value_or(false)) e.second.Add(c.cpu);
    }
    resume[Or(c.resume_latency_us)].Add(c.cpu);
    if (c.cpufreq) {
      freq[{Or(c.cpufreq->governor), Or(c.cpufreq->driver), Join(c.cpufreq->available_governors)}].Add(c.cpu);
    } else {
      freq[{kAbsent, "", ""}].Add(c.cpu);
    }
  }
  if (states.empty()) {
    o.Line("cpuidle states: none");
  } else {
    TextTable t({">STATE", "NAME", ">EXIT-LATENCY-US", ">RESIDENCY-US", "CPUS", "DISABLED-ON"});
    for (const auto& [k, v] : states) {
      auto num = [](long long x) { return x < 0 ? std::string("?") : std::to_string(x); };
      t.Row({std::to_string(std::get<0>(k)), std::get<1>(k), num(std::get<2>(k)), num(std::get<3>(k)), v.first.ToList(), List(v.second)});
    }
    o.Table(t);
  }
  bool any_freq = false;
  for (const auto& c : p.cpus) any_freq |= c.cpufreq.has_value();
  if (any_freq) {
    TextTable f({"CPUFREQ-GOVERNOR", "DRIVER", "CPUS", "AVAILABLE"});
    for (const auto& [k, cpus] : freq) f.Row({std::get<0>(k), std::get<1>(k), cpus.ToList(), std::get<2>(k)});
    o.Table(f);
  } else {
    o.Pairs({{"cpufreq", "absent (no cpufreq driver)"}});
  }
  std::vector<std::string> parts;
  for (const auto& [v, cpus] : resume) parts.push_back(v + " on " + cpus.Named());
  o.Pairs({{"pm_qos_resume_latency_us", parts.empty() ? "none" : Join(parts, "; ")}});
}

void Cgroups(Out& o, const CgroupState& c, const CpuState& cpus, const TextOptions& opt) {
  o.Title("cgroups");
  std::vector<std::string> where;
  if (c.v2_mount) where.push_back("cgroup2 at " + *c.v2_mount);
  if (c.v1_cpuset_mount) where.push_back("v1 cpuset at " + *c.v1_cpuset_mount);
  std::string layout = c.layout + (where.empty() ? "" : " (" + Join(where, ", ") + ")");
  o.Pairs({{"layout", layout},
           {"v2 controllers", c.v2_mount ? (c.v2_controllers.empty() ? "none" : Join(c.v2_controllers)) : kAbsent},
           {"v2 isolated CPUs", List(cpus.partition_isolated)}});
  std::vector<const CgroupV2Cpuset*> shown;
  size_t members = 0;
  for (const auto& s : c.v2_cpusets) {
    if (s.parsed.type == "member") {
      ++members;
    } else {
      shown.push_back(&s);
    }
  }
  if (!shown.empty()) {
    TextTable t({"V2 CPUSET", "PARTITION", "CPUS", "EFFECTIVE"});
    for (const auto* s : shown) {
      bool root = s->path == "/";  // the root cgroup has no cpuset.cpus nor partition file
      t.Row({s->path, root ? "(root)" : s->partition, root ? "-" : List(s->cpus), List(s->effective_cpus)});
    }
    o.Table(t);
    if (members) o.Line(std::to_string(members) + " more v2 cpusets are plain members");
  }
  if (!c.v1_cpusets.empty()) {
    TextTable t({"V1 CPUSET", "CPUS", "EFFECTIVE", "EXCLUSIVE", "LOAD-BALANCE"});
    auto b = [](const std::optional<bool>& v) { return v ? YesNo(*v) : std::string(kAbsent); };
    size_t n = 0;
    for (const auto& s : c.v1_cpusets) {
      if (++n > opt.max_rows) break;
      t.Row({s.path, List(s.cpus), List(s.effective_cpus), b(s.cpu_exclusive), b(s.sched_load_balance)});
    }
    o.Table(t);
    if (c.v1_cpusets.size() > opt.max_rows) o.Line(std::to_string(c.v1_cpusets.size() - opt.max_rows) + " more v1 cpusets (--json lists each)");
  }
  if (c.truncated) o.Line("the cgroup walk stopped at its directory limit");
}

void Clock(Out& o, const ClockState& c) {
  o.Title("clock");
  const HypervisorInfo& h = c.hypervisor;
  std::vector<std::pair<std::string, std::string>> kv = {
      {"clocksource", Or(c.clocksource) + (c.available.empty() ? "" : "  (available: " + Join(c.available) + ")")},
      {"hypervisor", h.present ? "yes: latency figures here are not a board's real-time figures" : "none found"},
  };
  for (const auto& e : h.evidence) kv.push_back({"", e});
  if (h.dmi_sys_vendor || h.dmi_product_name) kv.push_back({"DMI", Or(h.dmi_sys_vendor) + " / " + Or(h.dmi_product_name)});
  if (h.device_tree_model) kv.push_back({"device-tree model", *h.device_tree_model});
  o.Pairs(kv);
}

// "combined 4 of 8, other 1 of 1": each kind the driver has, its current count of its maximum.
std::string ChannelsText(const NicInfo& nic) {
  if (nic.channels_state == ChannelsState::kNotSupported) return "no channels (driver)";
  if (nic.channels_state == ChannelsState::kNotReadable) return "cannot be read: " + nic.error;
  const Channels& c = *nic.channels;
  std::vector<std::string> kinds;
  for (auto [kind, now, max] : {std::tuple{"combined", c.combined, c.combined_max}, std::tuple{"rx", c.rx, c.rx_max},
                                std::tuple{"tx", c.tx, c.tx_max}, std::tuple{"other", c.other, c.other_max}}) {
    if (max != 0 || now != 0) kinds.push_back(std::string(kind) + " " + std::to_string(now) + " of " + std::to_string(max));
  }
  return kinds.empty() ? "none (every maximum is 0)" : Join(kinds, ", ");
}

void Network(Out& o, const NetworkState& n) {
  o.Title("network");
  if (!n.listed) return o.Pairs({{"interfaces", "absent (no class/net directory)"}});
  if (n.nics.empty()) return o.Pairs({{"interfaces", "none but lo"}});
  TextTable t({"INTERFACE", "STATE", "CHANNELS (current of the driver's maximum; network.channels sets them)"});
  for (const NicInfo& nic : n.nics) t.Row({nic.name, Or(nic.operstate), ChannelsText(nic)});
  o.Table(t);
}

}  // namespace

std::string InspectText(const SystemState& s, const TextOptions& opt) {
  Out o(opt);
  if (s.kernel) Kernel(o, *s.kernel);
  if (s.cmdline) Cmdline(o, *s.cmdline);
  if (s.show_cpus) Cpus(o, s.cpu_sets);
  if (s.irqs) Irqs(o, *s.irqs, s.cpu_sets, opt);
  if (s.threads) Threads(o, *s.threads, opt);
  if (s.memory) Memory(o, *s.memory);
  if (s.power) Power(o, *s.power);
  if (s.cgroups) Cgroups(o, *s.cgroups, s.cpu_sets, opt);
  if (s.clock) Clock(o, *s.clock);
  if (s.network) Network(o, *s.network);
  return o.str();
}

}  // namespace rtagent
