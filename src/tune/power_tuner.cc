#include "tune/power_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_paths.h"

namespace rtagent {

namespace {
constexpr const char* kWhy = "Real-Time Linux, chapter 7 (saving power costs time)";
}

Result<SectionPlan> PowerTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::PowerConfig& cfg = ctx.profile.power;
  if (!ctx.state.power) return plan;
  const PowerState& ps = *ctx.state.power;
  const CpuSet& cpus = cfg.cpus->cpus;

  for (const CpuPower& cp : ps.cpus) {
    if (!cpus.Has(cp.cpu)) continue;
    std::string cpu = "CPU " + std::to_string(cp.cpu);

    if (cfg.resume_latency_us->has_value()) {
      // 0 in the profile means "no idle state at all", which the kernel spells "n/a";
      // writing "0" to the file would mean "no constraint" (sysfs-devices-power).
      int v = **cfg.resume_latency_us;
      if (cp.resume_latency_us) {
        Change c;
        c.section = Section();
        c.what = cpu + " PM QoS resume latency (us)";
        c.key = kpath::CpuResumeLatency(cp.cpu);
        c.before = *cp.resume_latency_us;
        c.after = v == 0 ? "n/a" : std::to_string(v);
        c.why = kWhy;
        plan.items.push_back(std::move(c));
      } else {
        plan.findings.push_back({Finding::Level::kInfo, cpu + " has no pm_qos_resume_latency_us (left alone)",
                                 cfg.resume_latency_us.mark, kWhy});
      }
    }

    if (cfg.max_exit_latency_us->has_value()) {
      long long limit = **cfg.max_exit_latency_us;
      for (const IdleState& st : cp.idle_states) {
        if (!st.latency_us || !st.disabled.has_value()) continue;
        bool disable = *st.latency_us > limit;
        Change c;
        c.section = Section();
        c.what = cpu + " idle state " + st.name + " (exit " + std::to_string(*st.latency_us) + " us) " +
                 (disable ? "disabled" : "enabled");
        c.key = kpath::CpuIdleState(cp.cpu, st.index) + "/disable";
        c.before = *st.disabled ? "1" : "0";
        c.after = disable ? "1" : "0";
        c.compare = Compare::kInteger;
        c.why = kWhy;
        plan.items.push_back(std::move(c));
      }
      if (cp.idle_states.empty() && cp.cpu == cpus.Cpus().front()) {
        plan.findings.push_back({Finding::Level::kInfo, "no cpuidle states exposed (no cpuidle driver): nothing to disable",
                                 cfg.max_exit_latency_us.mark, kWhy});
      }
    }

    if (cfg.governor->has_value()) {
      const std::string& want = **cfg.governor;
      if (!cp.cpufreq || !cp.cpufreq->governor) {
        if (cp.cpu == cpus.Cpus().front()) {
          plan.findings.push_back({Finding::Level::kInfo, "no cpufreq on this system: governor \"" + want + "\" not applied",
                                   cfg.governor.mark, kWhy});
        }
        continue;
      }
      const auto& avail = cp.cpufreq->available_governors;
      if (!avail.empty() && std::find(avail.begin(), avail.end(), want) == avail.end()) {
        std::string list;
        for (const auto& g : avail) list += (list.empty() ? "" : ", ") + g;
        plan.findings.push_back({Finding::Level::kError,
                                 cpu + " has no cpufreq governor \"" + want + "\" (available: " + list + ")",
                                 cfg.governor.mark, kWhy});
        continue;
      }
      Change c;
      c.section = Section();
      c.what = cpu + " cpufreq governor";
      c.key = kpath::CpuFreqDir(cp.cpu) + "/scaling_governor";
      c.before = *cp.cpufreq->governor;
      c.after = want;
      c.why = kWhy;
      plan.items.push_back(std::move(c));
    }
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
