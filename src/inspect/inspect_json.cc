#include "inspect/inspect_json.h"

namespace rtagent {
namespace {

using json = nlohmann::ordered_json;

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
json CountsJson(const std::vector<unsigned long long>& counts, const std::vector<int>& cols) {
  json out = json::object();
  if (counts.size() != cols.size()) return out;  // ERR/MIS: one total, no CPU
  for (size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] != 0) out[std::to_string(cols[c])] = counts[c];
  }
  return out;
}

json IrqsJson(const IrqState& s) {
  json irqs = json::array();
  for (const auto& i : s.irqs) {
    irqs.push_back({
        {"irq", i.irq},
        {"name", i.Name()},
        {"actions", i.actions},
        {"chip", i.chip},
        {"hwirq", i.hwirq.empty() ? json(nullptr) : json(i.hwirq)},
        {"type", i.type.empty() ? json(nullptr) : json(i.type)},
        {"handler", i.handler.empty() ? json(nullptr) : json(i.handler)},
        {"counts", CountsJson(i.counts, s.cpu_columns)},
        {"total", i.total},
        {"on_isolated", i.on_isolated},
        {"affinity", Cpus(i.affinity)},
        {"effective_affinity", Cpus(i.effective_affinity)},
        {"per_cpu", i.per_cpu},
        {"managed_hint", i.managed_hint},
    });
  }
  json rows = json::array();
  for (const auto& r : s.per_cpu_rows) {
    rows.push_back({{"id", r.id},
                    {"description", r.description},
                    {"counts", CountsJson(r.counts, s.cpu_columns)},
                    {"total", r.total},
                    {"on_isolated", r.on_isolated}});
  }
  return {
      {"readable", s.readable},
      {"cpu_columns", s.cpu_columns},
      {"default_affinity", Cpus(s.default_affinity)},
      {"count", s.irqs.size()},
      {"irqs", irqs},
      {"per_cpu_rows", rows},
  };
}

json ThreadsJson(const ThreadState& t) {
  json rt = json::array();
  for (const auto& th : t.realtime) {
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
    rt.push_back(std::move(j));
  }
  json groups = json::array();
  for (const auto& g : t.per_cpu_kthreads) groups.push_back({{"pattern", g.pattern}, {"count", g.count}, {"by_policy", g.by_policy}});
  return {
      {"processes", t.processes},
      {"threads", t.threads},
      {"kthreads", t.kthreads},
      {"by_policy", t.by_policy},
      {"realtime_count", t.realtime.size()},
      {"realtime", rt},
      {"per_cpu_kthreads", groups},
  };
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

json PowerJson(const PowerState& p) {
  json cpus = json::array();
  for (const auto& c : p.cpus) {
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
    cpus.push_back({{"cpu", c.cpu}, {"idle_states", states}, {"cpufreq", freq}, {"pm_qos_resume_latency_us", Opt(c.resume_latency_us)}});
  }
  return {
      {"cpu_dma_latency_us", Opt(p.cpu_dma_latency_us)},
      {"cpu_dma_latency_state", p.cpu_dma_latency_state},
      {"cpuidle", {{"driver", Opt(p.idle_driver)}, {"governor", Opt(p.idle_governor)}, {"available_governors", p.idle_governors}}},
      {"cpus", cpus},
  };
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

}  // namespace

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
  return j;
}

}  // namespace rtagent
