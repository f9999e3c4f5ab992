#include "inspect/inspect_json.h"

#include <functional>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <variant>

namespace rtagent {
namespace {

using json = nlohmann::ordered_json;

// A section's member: its value built whole, or written in place at the given indent (a long
// array, an element at a time, so that the whole array is never held as JSON values).
using Writer = std::function<void(std::ostream&, int)>;
using Member = std::variant<json, Writer>;
using Members = std::vector<std::pair<std::string, Member>>;

json ObjectOf(Members members) {
  json out = json::object();
  for (auto& [key, value] : members) out[key] = std::move(std::get<json>(value));
  return out;
}

// What nlohmann's dump(2) writes for `v` nested `indent` spaces deep, through nlohmann's own
// serializer started at that indent (its dump() has no such parameter), into a text reused
// from value to value and handed to `os` whole.
void WriteValue(std::ostream& os, const json& v, int indent) {
  thread_local std::string text;
  thread_local nlohmann::detail::serializer<json> dumper(nlohmann::detail::output_adapter<char, std::string>(text), ' ',
                                                         json::error_handler_t::replace);
  text.clear();
  dumper.dump(v, true, false, 2, static_cast<unsigned>(indent));
  os.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// The caller's stream behind a 64 KiB buffer: std::cout is synchronised with C's stdio, where
// each of the document's many small writes was an fwrite of its own.
class ChunkedOut final : public std::streambuf {
 public:
  explicit ChunkedOut(std::ostream& to) : to_(to), buf_(size_t{1} << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
  ChunkedOut(const ChunkedOut&) = delete;
  ChunkedOut& operator=(const ChunkedOut&) = delete;
  ~ChunkedOut() override { sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    if (pptr() > pbase()) to_.write(pbase(), pptr() - pbase());
    setp(buf_.data(), buf_.data() + buf_.size());
    return to_ ? 0 : -1;
  }

 private:
  std::ostream& to_;
  std::vector<char> buf_;
};

// An object as dump(2) writes it, member by member.
void WriteObject(std::ostream& os, const Members& members, int indent) {
  if (members.empty()) {
    os << "{}";
    return;
  }
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  os << "{\n";
  for (size_t k = 0; k < members.size(); ++k) {
    os << pad << json(members[k].first).dump(-1, ' ', false, json::error_handler_t::replace) << ": ";
    if (const json* v = std::get_if<json>(&members[k].second)) {
      WriteValue(os, *v, indent + 2);
    } else {
      std::get<Writer>(members[k].second)(os, indent + 2);
    }
    os << (k + 1 < members.size() ? ",\n" : "\n");
  }
  os << std::string(static_cast<size_t>(indent), ' ') << "}";
}

// An array of `n` elements as dump(2) writes it, element `k` built by `element(k)` and dropped
// once written.
template <typename F>
Writer ArrayWriter(size_t n, F element) {
  return [n, element](std::ostream& os, int indent) {
    if (n == 0) {
      os << "[]";
      return;
    }
    const std::string pad(static_cast<size_t>(indent) + 2, ' ');
    os << "[\n";
    for (size_t k = 0; k < n; ++k) {
      os << pad;
      WriteValue(os, element(k), indent + 2);
      os << (k + 1 < n ? ",\n" : "\n");
    }
    os << std::string(static_cast<size_t>(indent), ' ') << "]";
  };
}

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json Cpus(const std::optional<CpuSet>& s) { return s ? json(s->ToList()) : json(nullptr); }

json CpuListJson(const std::optional<CpuListArg>& a) {
  if (!a) return nullptr;
  return a->cpus ? json(a->cpus->ToList()) : json(a->text);
}

json KernelJson(const KernelInfo& k) {
  const SafetyNet& n = k.safety_net;
  json fair = json::array();
  for (const auto& f : n.fair_server) fair.push_back({{"cpu", f.cpu}, {"runtime_ns", Opt(f.runtime_ns)}, {"period_ns", Opt(f.period_ns)}});
  return {
      {"release", Opt(k.release)},
      {"version", Opt(k.version)},
      {"arch", Opt(k.arch)},
      {"preempt_rt", k.preempt_rt},
      {"preempt_model", k.preempt_model.empty() ? json(nullptr) : json(k.preempt_model)},
      {"preempt_dynamic_mode", Opt(k.preempt_dynamic_mode)},
      {"realtime_sysfs", Opt(k.realtime_sysfs)},
      {"safety_net",
       {{"active", n.active},
        {"reason", n.reason},
        {"sched_rt_runtime_us", Opt(n.rt_runtime_us)},
        {"sched_rt_period_us", Opt(n.rt_period_us)},
        {"fair_server", {{"state", n.fair_server_state}, {"cpus", fair}}}}},
  };
}

json CmdlineJson(const CmdlineInfo& c) {
  json args = json::array();
  for (const auto& a : c.parsed.args) args.push_back({{"key", a.key}, {"value", Opt(a.value)}});
  const IsolationArgs& i = c.isolation;
  json isolcpus = nullptr;
  if (i.isolcpus) {
    isolcpus = {{"flags", i.isolcpus->flags},
                {"cpus", i.isolcpus->cpus ? json(i.isolcpus->cpus->ToList()) : json(i.isolcpus->cpus_text)}};
  }
  json other = json::object();
  for (const auto& a : i.other) other[a.key] = Opt(a.value);
  return {
      {"raw", Opt(c.raw)},
      {"args", args},
      {"init_args", c.parsed.init_args},
      {"isolation",
       {{"isolcpus", isolcpus},
        {"nohz_full", CpuListJson(i.nohz_full)},
        {"rcu_nocbs", CpuListJson(i.rcu_nocbs)},
        {"rcu_nocb_poll", i.rcu_nocb_poll},
        {"irqaffinity", CpuListJson(i.irqaffinity)},
        {"kthread_cpus", CpuListJson(i.kthread_cpus)},
        {"skew_tick", Opt(i.skew_tick)},
        {"nosoftlockup", i.nosoftlockup},
        {"nowatchdog", i.nowatchdog},
        {"other", other}}},
  };
}

json CpusJson(const CpuState& c) {
  CpuSet offline;
  if (c.possible && c.online) offline = c.possible->Minus(*c.online);
  return {
      {"possible", Cpus(c.possible)},
      {"present", Cpus(c.present)},
      {"online", Cpus(c.online)},
      {"offline", c.possible && c.online ? json(offline.ToList()) : json(nullptr)},
      {"online_count", c.online ? c.online->Count() : 0},
      {"isolated", Cpus(c.isolated)},
      {"nohz_full", Cpus(c.nohz_full)},
      {"partition_isolated", Cpus(c.partition_isolated)},
      {"isolated_all", c.isolated_all.ToList()},
      {"housekeeping", c.housekeeping.ToList()},
      {"workqueue_cpumask", Cpus(c.workqueue_cpumask)},
      {"timer_migration", Opt(c.timer_migration)},
  };
}

// Non-zero counts keyed by CPU number: {"2": 981234, "4": 1520}. Sparse, because a 256-CPU
// board's 4,096 IRQs each move on a handful of CPUs.
json CountsJson(const ColumnCounts& counts, const std::vector<int>& cols) {
  json out = json::object();
  if (counts.size() != cols.size()) return out;  // ERR/MIS: one total, no CPU
  for (const ColumnCounts::Entry& e : counts.NonZero()) out[std::to_string(cols[e.column])] = e.count;
  return out;
}

json IrqJson(const IrqInfo& i, const std::vector<int>& cpu_columns) {
  return {
      {"irq", i.irq},
      {"name", i.Name()},
      {"actions", i.actions},
      {"chip", i.chip},
      {"hwirq", i.hwirq.empty() ? json(nullptr) : json(i.hwirq)},
      {"type", i.type.empty() ? json(nullptr) : json(i.type)},
      {"handler", i.handler.empty() ? json(nullptr) : json(i.handler)},
      {"counts", CountsJson(i.counts, cpu_columns)},
      {"total", i.total},
      {"on_isolated", i.on_isolated},
      {"affinity", Cpus(i.affinity)},
      {"effective_affinity", Cpus(i.effective_affinity)},
      {"per_cpu", i.per_cpu},
      {"managed_hint", i.managed_hint},
  };
}

json IrqRowsJson(const IrqState& s) {
  json rows = json::array();
  for (const auto& r : s.per_cpu_rows) {
    rows.push_back({{"id", r.id},
                    {"description", r.description},
                    {"counts", CountsJson(r.counts, s.cpu_columns)},
                    {"total", r.total},
                    {"on_isolated", r.on_isolated}});
  }
  return rows;
}

// The irqs section, its "irqs" array given (built whole, or written an IRQ at a time).
Members IrqsMembers(const IrqState& s, Member irqs) {
  Members m;
  m.emplace_back("readable", json(s.readable));
  m.emplace_back("cpu_columns", json(s.cpu_columns));
  m.emplace_back("default_affinity", Cpus(s.default_affinity));
  m.emplace_back("count", json(s.irqs.size()));
  m.emplace_back("irqs", std::move(irqs));
  m.emplace_back("per_cpu_rows", IrqRowsJson(s));
  return m;
}

json IrqsJson(const IrqState& s) {
  json irqs = json::array();
  for (const auto& i : s.irqs) irqs.push_back(IrqJson(i, s.cpu_columns));
  return ObjectOf(IrqsMembers(s, std::move(irqs)));
}

json ThreadJson(const ThreadInfo& th) {
  json j = {
      {"pid", th.pid},
      {"tid", th.tid},
      {"comm", th.comm},
      {"process", th.process_comm},
      {"policy", PolicyName(th.policy)},
      {"priority", th.priority},
      {"affinity", Cpus(th.affinity)},
      {"last_cpu", th.last_cpu},
      {"kthread", th.kthread},
      {"per_cpu_kthread", th.per_cpu_kthread},
      {"deadline", nullptr},
  };
  if (th.deadline) {
    j["deadline"] = {{"runtime_ns", Opt(th.deadline->runtime_ns)}, {"deadline_ns", Opt(th.deadline->deadline_ns)}};
  }
  return j;
}

Members ThreadsMembers(const ThreadState& t, Member realtime) {
  json groups = json::array();
  for (const auto& g : t.per_cpu_kthreads) groups.push_back({{"pattern", g.pattern}, {"count", g.count}, {"by_policy", g.by_policy}});
  Members m;
  m.emplace_back("processes", json(t.processes));
  m.emplace_back("threads", json(t.threads));
  m.emplace_back("kthreads", json(t.kthreads));
  m.emplace_back("by_policy", json(t.by_policy));
  m.emplace_back("realtime_count", json(t.realtime.size()));
  m.emplace_back("realtime", std::move(realtime));
  m.emplace_back("per_cpu_kthreads", std::move(groups));
  return m;
}

json ThreadsJson(const ThreadState& t) {
  json rt = json::array();
  for (const auto& th : t.realtime) rt.push_back(ThreadJson(th));
  return ObjectOf(ThreadsMembers(t, std::move(rt)));
}

json ChoiceJson(const ChoiceFile& c) {
  if (!c.present) return nullptr;
  return {{"selected", Opt(c.selected)}, {"choices", c.choices}};
}

json MemoryJson(const MemoryState& m) {
  json sysctls = json::object();
  for (const auto& [k, v] : m.sysctls) sysctls[k] = Opt(v);
  return {{"thp", {{"enabled", ChoiceJson(m.thp_enabled)}, {"defrag", ChoiceJson(m.thp_defrag)}}}, {"sysctls", sysctls}};
}

json PowerCpuJson(const CpuPower& c) {
  json states = json::array();
  for (const auto& s : c.idle_states) {
    states.push_back({{"index", s.index},
                      {"name", s.name},
                      {"desc", s.desc},
                      {"latency_us", Opt(s.latency_us)},
                      {"residency_us", Opt(s.residency_us)},
                      {"disabled", Opt(s.disabled)}});
  }
  json freq = nullptr;
  if (c.cpufreq) {
    const CpuFreq& f = *c.cpufreq;
    freq = {{"governor", Opt(f.governor)}, {"driver", Opt(f.driver)}, {"available_governors", f.available_governors},
            {"cur_khz", Opt(f.cur_khz)},   {"min_khz", Opt(f.min_khz)}, {"max_khz", Opt(f.max_khz)}};
  }
  return {{"cpu", c.cpu}, {"idle_states", std::move(states)}, {"cpufreq", std::move(freq)},
          {"pm_qos_resume_latency_us", Opt(c.resume_latency_us)}};
}

Members PowerMembers(const PowerState& p, Member cpus) {
  Members m;
  m.emplace_back("cpu_dma_latency_us", Opt(p.cpu_dma_latency_us));
  m.emplace_back("cpu_dma_latency_state", json(p.cpu_dma_latency_state));
  m.emplace_back("cpuidle", json{{"driver", Opt(p.idle_driver)}, {"governor", Opt(p.idle_governor)},
                                 {"available_governors", p.idle_governors}});
  m.emplace_back("cpus", std::move(cpus));
  return m;
}

json PowerJson(const PowerState& p) {
  json cpus = json::array();
  for (const auto& c : p.cpus) cpus.push_back(PowerCpuJson(c));
  return ObjectOf(PowerMembers(p, std::move(cpus)));
}

json CgroupsJson(const CgroupState& c, const CpuState& cpus) {
  json v2 = nullptr;
  if (c.v2_mount) {
    json sets = json::array();
    for (const auto& s : c.v2_cpusets) {
      sets.push_back({{"path", s.path},
                      {"partition", s.path == "/" ? json(nullptr) : json(s.partition)},
                      {"partition_type", s.parsed.type},
                      {"valid", s.parsed.valid},
                      {"reason", s.parsed.reason.empty() ? json(nullptr) : json(s.parsed.reason)},
                      {"cpus", Cpus(s.cpus)},
                      {"effective_cpus", Cpus(s.effective_cpus)}});
    }
    v2 = {{"mount", *c.v2_mount},
          {"controllers", c.v2_controllers},
          {"subtree_control", c.v2_subtree_control},
          {"cpus_isolated", Cpus(cpus.partition_isolated)},
          {"cpusets", sets}};
  }
  json v1 = nullptr;
  if (!c.v1_hierarchies.empty()) {
    json hier = json::array();
    for (const auto& h : c.v1_hierarchies) hier.push_back({{"mount", h.mount}, {"controllers", h.controllers}});
    json sets = json::array();
    for (const auto& s : c.v1_cpusets) {
      sets.push_back({{"path", s.path},
                      {"cpus", Cpus(s.cpus)},
                      {"effective_cpus", Cpus(s.effective_cpus)},
                      {"cpu_exclusive", Opt(s.cpu_exclusive)},
                      {"sched_load_balance", Opt(s.sched_load_balance)}});
    }
    v1 = {{"hierarchies", hier}, {"cpuset_mount", Opt(c.v1_cpuset_mount)}, {"cpusets", sets}};
  }
  return {{"layout", c.layout}, {"v2", v2}, {"v1", v1}, {"truncated", c.truncated}};
}

json ClockJson(const ClockState& c) {
  const HypervisorInfo& h = c.hypervisor;
  return {
      {"clocksource", Opt(c.clocksource)},
      {"available", c.available},
      {"hypervisor",
       {{"present", h.present},
        {"evidence", h.evidence},
        {"cpuinfo_flag", h.cpuinfo_flag},
        {"type", Opt(h.type)},
        {"dmi_sys_vendor", Opt(h.dmi_sys_vendor)},
        {"dmi_product_name", Opt(h.dmi_product_name)},
        {"device_tree_model", Opt(h.device_tree_model)}}},
  };
}

json NetworkJson(const NetworkState& n) {
  json nics = json::array();
  for (const NicInfo& nic : n.nics) {
    json ch = nullptr;
    if (nic.channels) {
      const Channels& c = *nic.channels;
      ch = {{"combined", c.combined}, {"combined_max", c.combined_max}, {"rx", c.rx},       {"rx_max", c.rx_max},
            {"tx", c.tx},             {"tx_max", c.tx_max},             {"other", c.other}, {"other_max", c.other_max}};
    }
    nics.push_back({{"name", nic.name},
                    {"operstate", Opt(nic.operstate)},
                    {"channels_state", ChannelsStateName(nic.channels_state)},
                    {"channels", ch},
                    {"channels_error", nic.error.empty() ? json(nullptr) : json(nic.error)}});
  }
  return {{"listed", n.listed}, {"interfaces", nics}};
}

}  // namespace

void WriteInspectJson(const SystemState& s, std::ostream& os) {
  Members m;
  m.emplace_back("schema", json(kInspectSchema));
  if (s.kernel) m.emplace_back("kernel", KernelJson(*s.kernel));
  if (s.cmdline) m.emplace_back("cmdline", CmdlineJson(*s.cmdline));
  if (s.show_cpus) m.emplace_back("cpus", CpusJson(s.cpu_sets));
  if (s.irqs) {
    const IrqState& irqs = *s.irqs;
    Writer each = ArrayWriter(irqs.irqs.size(), [&irqs](size_t k) { return IrqJson(irqs.irqs[k], irqs.cpu_columns); });
    m.emplace_back("irqs", Writer([&irqs, each](std::ostream& o, int indent) {
                     WriteObject(o, IrqsMembers(irqs, each), indent);
                   }));
  }
  if (s.threads) {
    const ThreadState& t = *s.threads;
    Writer each = ArrayWriter(t.realtime.size(), [&t](size_t k) { return ThreadJson(t.realtime[k]); });
    m.emplace_back("threads", Writer([&t, each](std::ostream& o, int indent) {
                     WriteObject(o, ThreadsMembers(t, each), indent);
                   }));
  }
  if (s.memory) m.emplace_back("memory", MemoryJson(*s.memory));
  if (s.power) {
    const PowerState& p = *s.power;
    Writer each = ArrayWriter(p.cpus.size(), [&p](size_t k) { return PowerCpuJson(p.cpus[k]); });
    m.emplace_back("power", Writer([&p, each](std::ostream& o, int indent) {
                     WriteObject(o, PowerMembers(p, each), indent);
                   }));
  }
  if (s.cgroups) m.emplace_back("cgroups", CgroupsJson(*s.cgroups, s.cpu_sets));
  if (s.clock) m.emplace_back("clock", ClockJson(*s.clock));
  if (s.network) m.emplace_back("network", NetworkJson(*s.network));
  ChunkedOut chunks(os);
  std::ostream out(&chunks);
  WriteObject(out, m, 0);
  out << "\n";
  out.flush();
}

nlohmann::ordered_json InspectJson(const SystemState& s) {
  json j = {{"schema", kInspectSchema}};
  if (s.kernel) j["kernel"] = KernelJson(*s.kernel);
  if (s.cmdline) j["cmdline"] = CmdlineJson(*s.cmdline);
  if (s.show_cpus) j["cpus"] = CpusJson(s.cpu_sets);
  if (s.irqs) j["irqs"] = IrqsJson(*s.irqs);
  if (s.threads) j["threads"] = ThreadsJson(*s.threads);
  if (s.memory) j["memory"] = MemoryJson(*s.memory);
  if (s.power) j["power"] = PowerJson(*s.power);
  if (s.cgroups) j["cgroups"] = CgroupsJson(*s.cgroups, s.cpu_sets);
  if (s.clock) j["clock"] = ClockJson(*s.clock);
  if (s.network) j["network"] = NetworkJson(*s.network);
  return j;
}

}  // namespace rtagent
