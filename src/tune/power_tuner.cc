#include "tune/power_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_paths.h"

namespace rtagent {

namespace {
constexpr const char* kWhy = "Real-Time Linux, chapter 7 (saving power costs time)";

Change PowerChange(std::string what, std::string key, std::string before, std::string after) {
  Change c;
  c.section = "power";
  c.what = std::move(what);
  c.key = std::move(key);
  c.before = std::move(before);
  c.after = std::move(after);
  c.why = kWhy;
  return c;
}

// power.resume_latency_us on one CPU. 0 in the profile means "no idle state at all", which
// the kernel spells "n/a"; writing "0" to the file would mean "no constraint" (sysfs-devices-power).
void PlanResumeLatency(const profile::PowerConfig& cfg, const CpuPower& cp, SectionPlan& plan) {
  const std::string cpu = "CPU " + std::to_string(cp.cpu);
  const int v = **cfg.resume_latency_us;
  if (!cp.resume_latency_us) {
    plan.findings.push_back({Finding::Level::kInfo, cpu + " has no pm_qos_resume_latency_us (left alone)",
                             cfg.resume_latency_us.mark, kWhy});
    return;
  }
  plan.items.push_back(PowerChange(cpu + " PM QoS resume latency (us)", kpath::CpuResumeLatency(cp.cpu),
                                   *cp.resume_latency_us, v == 0 ? "n/a" : std::to_string(v)));
}

// power.max_exit_latency_us on one CPU: each idle state slower to leave is disabled.
void PlanIdleStates(const profile::PowerConfig& cfg, const CpuPower& cp, bool first_cpu, SectionPlan& plan) {
  const long long limit = **cfg.max_exit_latency_us;
  for (const IdleState& st : cp.idle_states) {
    if (!st.latency_us || !st.disabled.has_value()) continue;
    const bool disable = *st.latency_us > limit;
    Change c = PowerChange("CPU " + std::to_string(cp.cpu) + " idle state " + st.name + " (exit " +
                               std::to_string(*st.latency_us) + " us) " + (disable ? "disabled" : "enabled"),
                           kpath::CpuIdleState(cp.cpu, st.index) + "/disable", *st.disabled ? "1" : "0",
                           disable ? "1" : "0");
    c.compare = Compare::kInteger;
    plan.items.push_back(std::move(c));
  }
  if (cp.idle_states.empty() && first_cpu) {
    plan.findings.push_back({Finding::Level::kInfo, "no cpuidle states exposed (no cpuidle driver): nothing to disable",
                             cfg.max_exit_latency_us.mark, kWhy});
  }
}

// power.governor on one CPU, when cpufreq is there and offers it.
void PlanGovernor(const profile::PowerConfig& cfg, const CpuPower& cp, bool first_cpu, SectionPlan& plan) {
  const std::string cpu = "CPU " + std::to_string(cp.cpu);
  const std::string& want = **cfg.governor;
  if (!cp.cpufreq || !cp.cpufreq->governor) {
    if (first_cpu) {
      plan.findings.push_back({Finding::Level::kInfo, "no cpufreq on this system: governor \"" + want + "\" not applied",
                               cfg.governor.mark, kWhy});
    }
    return;
  }
  const auto& avail = cp.cpufreq->available_governors;
  if (!avail.empty() && std::find(avail.begin(), avail.end(), want) == avail.end()) {
    std::string list;
    for (const auto& g : avail) list += (list.empty() ? "" : ", ") + g;
    plan.findings.push_back({Finding::Level::kError, cpu + " has no cpufreq governor \"" + want + "\" (available: " + list + ")",
                             cfg.governor.mark, kWhy});
    return;
  }
  plan.items.push_back(PowerChange(cpu + " cpufreq governor", kpath::CpuFreqDir(cp.cpu) + "/scaling_governor",
                                   *cp.cpufreq->governor, want));
}

}  // namespace

Result<SectionPlan> PowerTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::PowerConfig& cfg = ctx.profile.power;
  if (!ctx.state.power) return plan;
  const PowerState& ps = *ctx.state.power;
  const CpuSet& cpus = cfg.cpus->cpus;
  for (const CpuPower& cp : ps.cpus) {
    if (!cpus.Has(cp.cpu)) continue;
    const bool first_cpu = cp.cpu == cpus.Cpus().front();
    if (cfg.resume_latency_us->has_value()) PlanResumeLatency(cfg, cp, plan);
    if (cfg.max_exit_latency_us->has_value()) PlanIdleStates(cfg, cp, first_cpu, plan);
    if (cfg.governor->has_value()) PlanGovernor(cfg, cp, first_cpu, plan);
  }
  if (cfg.cpu_dma_latency_us->has_value()) {
    std::string now = ps.cpu_dma_latency_us ? std::to_string(*ps.cpu_dma_latency_us) + " us" : ps.cpu_dma_latency_state;
    plan.findings.push_back(
        {Finding::Level::kInfo,
         "PM QoS note " + std::to_string(**cfg.cpu_dma_latency_us) + " us on /dev/cpu_dma_latency (now " + now +
             "): it lives only while its file stays open, so apply cannot leave it behind; `rtagent hold` holds it",
         cfg.cpu_dma_latency_us.mark, kWhy});
  }
  return plan;
}

}  // namespace rtagent
