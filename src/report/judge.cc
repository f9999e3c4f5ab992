#include "report/judge.h"

#include <algorithm>
#include <set>

#include "report/format.h"

namespace rtagent {
namespace {

// "at sample 151,220, 2 min 31 s into the run" for an overflow event.
// An imported event may not say when it happened (since_start_ns < 0): then only its sample.
std::string When(const OverflowEvent& e) {
  return "at sample " + FormatCount(e.sample_index) +
         (e.since_start_ns >= 0 ? ", " + FormatDuration(e.since_start_ns) + " into the run" : std::string());
}

Criterion MaxCriterion(const CpuResult& c, int64_t limit_us) {
  Criterion k;
  k.name = "max";
  k.cpu = c.cpu;
  k.unit = "µs";
  k.limit = static_cast<double>(limit_us);
  if (!c.stats.max_ns) {
    k.measured_text = "no samples";
    k.evidence = "CPU " + std::to_string(c.cpu) + " recorded no wake-up";
    return k;
  }
  const int64_t max_ns = *c.stats.max_ns;
  k.measured = static_cast<double>(max_ns) / 1000.0;
  k.measured_text = FormatNsAsUs(max_ns) + " µs";
  k.pass = max_ns <= limit_us * 1000;
  k.evidence = "worst wake-up " + k.measured_text;
  auto worst = c.histogram.worst_overflows();
  if (!worst.empty() && worst.front().latency_ns == max_ns) k.evidence += " (" + When(worst.front()) + ")";
  k.evidence += " of " + CountOf(c.stats.samples, "wake-up", "wake-ups") + "; limit " + std::to_string(limit_us) + " µs";
  if (!k.pass) k.evidence += ", exceeded by " + FormatNsAsUs(max_ns - limit_us * 1000) + " µs";
  return k;
}

Criterion PercentileCriterion(const CpuResult& c, const PercentileLimit& pl) {
  Criterion k;
  const std::string label = PercentileLabel(pl.quantile);
  k.name = label;
  k.cpu = c.cpu;
  k.unit = "µs";
  k.limit = static_cast<double>(pl.limit_us);
  Percentile p;
  if (const Percentile* found = c.stats.Find(pl.quantile)) {
    p = *found;
  } else {
    p = ComputePercentile(c.histogram, pl.quantile);
  }
  if (p.beyond_limit) {
    k.measured_text = "beyond " + std::to_string(c.histogram.limit_us()) + " µs";
    k.evidence = label + " lies past the histogram's last bin (" + std::to_string(c.histogram.limit_us()) + " µs): " +
                 FormatCount(c.stats.overflows) + " of " + FormatCount(c.stats.samples) +
                 " wake-ups overflowed, more than the " + FormatFixed((1.0 - pl.quantile) * 100.0, 2) +
                 " % it allows; its value is unknown, so it cannot be shown to be within " +
                 std::to_string(pl.limit_us) + " µs";
    return k;
  }
  if (!p.us) {
    k.measured_text = "no samples";
    k.evidence = "CPU " + std::to_string(c.cpu) + " recorded no wake-up";
    return k;
  }
  k.measured = *p.us;
  k.measured_text = std::to_string(*p.us) + " µs";
  k.pass = static_cast<int64_t>(*p.us) <= pl.limit_us;
  k.evidence = label + " " + k.measured_text + " of " + CountOf(c.stats.samples, "wake-up", "wake-ups") + "; limit " +
               std::to_string(pl.limit_us) + " µs";
  return k;
}

// `counted`: false for an import whose file does not count its overflows (rteval): never a
// pass, since nothing shows there were none; a worst past the histogram shows at least one.
Criterion OverflowCriterion(const CpuResult& c, bool counted) {
  Criterion k;
  k.name = "overflows";
  k.cpu = c.cpu;
  k.unit = "";
  k.limit = 0;
  const std::string limit = std::to_string(c.histogram.limit_us());
  if (!counted) {
    const bool past = c.stats.max_ns && *c.stats.max_ns >= static_cast<int64_t>(c.histogram.limit_us()) * 1000;
    k.measured_text = past ? "at least 1" : "unknown";
    k.pass = false;
    k.evidence = past ? "the worst, " + FormatNsAsUs(*c.stats.max_ns) + " µs, is past the histogram's " + limit +
                            " µs; the file does not count the wake-ups past it"
                      : "the file does not count the wake-ups past its histogram (" + limit + " µs): none can be shown";
    return k;
  }
  k.measured = static_cast<double>(c.stats.overflows);
  k.measured_text = FormatCount(c.stats.overflows);
  k.pass = c.stats.overflows == 0;
  if (k.pass) {
    k.evidence = "every wake-up fit the histogram (below " + limit + " µs)";
    return k;
  }
  k.evidence = CountOf(c.stats.overflows, "wake-up", "wake-ups") + " at or past " + limit + " µs, the latest " +
               FormatNsAsUs(c.histogram.overflow_max_ns()) + " µs";
  const auto& first = c.histogram.first_overflows();
  if (!first.empty()) k.evidence += "; the first " + When(first.front());
  return k;
}

Criterion SamplesCriterion(const CpuResult& c, uint64_t min_samples) {
  Criterion k;
  k.name = "samples";
  k.cpu = c.cpu;
  k.unit = "";
  k.limit = static_cast<double>(min_samples);
  k.measured = static_cast<double>(c.stats.samples);
  k.measured_text = FormatCount(c.stats.samples);
  k.pass = c.stats.samples >= min_samples;
  k.evidence = CountOf(c.stats.samples, "wake-up", "wake-ups") + " measured, at least " + FormatCount(min_samples) +
               " required";
  if (c.stats.skipped_periods > 0) k.evidence += "; " + CountOf(c.stats.skipped_periods, "period", "periods") + " skipped";
  return k;
}

}  // namespace

std::vector<Criterion> EvaluateCriteria(const AcceptanceLimits& limits, const Verdict& v) {
  std::vector<Criterion> out;
  for (const CpuResult& c : v.cpus) {
    if (limits.max_us) out.push_back(MaxCriterion(c, *limits.max_us));
    for (const PercentileLimit& pl : limits.percentiles) out.push_back(PercentileCriterion(c, pl));
    if (limits.zero_overflows) out.push_back(OverflowCriterion(c, v.Knows("overflows")));
    if (limits.min_samples > 0) {
      out.push_back(SamplesCriterion(c, limits.min_samples));
    } else if (c.stats.samples == 0) {
      // No floor asked for, but a CPU that never woke measured nothing: its max of 0 is no
      // pass (an imported histogram with no counts, a cyclictest thread that never ran).
      out.push_back(SamplesCriterion(c, 1));
    }
  }
  if (limits.min_duration_ns > 0) {
    Criterion k;
    k.name = "duration";
    k.unit = "s";
    k.limit = static_cast<double>(limits.min_duration_ns) / 1e9;
    k.measured = static_cast<double>(v.config.duration_actual_ns) / 1e9;
    k.measured_text = FormatDuration(v.config.duration_actual_ns);
    k.pass = v.config.duration_actual_ns >= limits.min_duration_ns;
    k.evidence = "measured for " + k.measured_text + ", at least " + FormatDuration(limits.min_duration_ns) +
                 " required";
    if (v.interrupted) k.evidence += " (interrupted)";
    out.push_back(std::move(k));
  }
  for (const PreflightCheck& p : v.preflight) {
    Criterion k;
    k.name = "preflight " + p.name;
    k.limit = 1;
    k.measured = p.passed ? 1 : 0;
    k.measured_text = p.passed ? "passed" : "failed";
    k.pass = p.passed;
    k.evidence = p.reason.empty() ? k.measured_text : p.reason;
    out.push_back(std::move(k));
  }
  if (limits.loads_stay_placed) {
    for (const LoadResult& l : v.loads) {
      Criterion k;
      k.name = "placement " + l.name;
      k.limit = 0;
      const CpuSet outside = l.cpus_ran.Minus(l.cpus_asked);
      k.measured = outside.Count();
      k.measured_text = outside.Empty() ? "held" : "ran on " + outside.Named();
      k.pass = outside.Empty();
      k.evidence = "load " + l.name + " was put on " + l.cpus_asked.Named() + " and ran on " +
                   (l.cpus_ran.Empty() ? std::string("no CPU seen") : l.cpus_ran.Named());
      if (!k.pass) k.evidence += ": outside its CPUs on " + outside.ToList();
      out.push_back(std::move(k));
    }
  }
  return out;
}

std::vector<TrustWarning> TrustWarnings(const Verdict& v, const AcceptanceLimits& limits) {
  std::vector<TrustWarning> out;
  if (v.imported) {
    std::string unknown;
    for (const std::string& f : v.imported->unknown) unknown += (unknown.empty() ? "" : ", ") + f;
    out.push_back({"imported", "read from " + v.imported->tool + " output " + v.imported->path +
                                   ", not measured by rtagent" +
                                   (unknown.empty() ? std::string() : "; the file does not say: " + unknown + " (shown as unknown)")});
  }
  if (!v.host.boot_args_pending.empty()) {
    std::string args;
    for (const std::string& a : v.host.boot_args_pending) args += (args.empty() ? "" : " ") + a;
    out.push_back({"not_isolated_yet",
                   "the measured CPUs are not isolated until the reboot: the boot arguments " + args +
                       " are written for the next boot, not in effect; reboot, then run `rtagent commission` again: "
                       "that run gives the verdict that counts"});
  }
  if (v.host.virtual_machine) {
    out.push_back({"virtual_machine",
                   "measured on a virtual machine" + (v.host.hypervisor.empty() ? "" : " (" + v.host.hypervisor + ")") +
                       ": these are virtual-machine figures, not the board's real-time figures"});
  }
  if (v.host.coarse_clock) {
    std::string text = "coarse clock: figures finer than the clock are not real";
    for (const std::string& r : v.host.clock_reasons) {
      if (r.find("virtual machine") == std::string::npos) text += "; " + r;
    }
    out.push_back({"coarse_clock", text});
  }
  if (!v.cpus.empty()) {
    const CpuResult* fewest = &v.cpus.front();
    for (const CpuResult& c : v.cpus) {
      if (c.stats.samples < fewest->stats.samples) fewest = &c;
    }
    std::set<double, std::greater<>> quantiles(kReportedQuantiles.begin(), kReportedQuantiles.end());
    for (const PercentileLimit& pl : limits.percentiles) quantiles.insert(pl.quantile);
    std::string unmet;
    for (double q : quantiles) {
      const uint64_t need = MinSamplesFor(q);
      if (fewest->stats.samples >= need) continue;
      unmet += (unmet.empty() ? "" : ", ") + PercentileLabel(q) + " needs at least " + FormatCount(need) + " samples";
    }
    if (!unmet.empty()) {
      out.push_back({"too_short", "run too short for its sample count: " + unmet + "; CPU " +
                                      std::to_string(fewest->cpu) + " has " + FormatCount(fewest->stats.samples)});
    }
  }
  if (v.config.pm_qos.holder == PmQosHolder::kSampler) {
    out.push_back({"own_pm_qos", "the sampler held its own PM QoS note (" +
                                     (v.config.pm_qos.value_us ? std::to_string(*v.config.pm_qos.value_us) : "?") +
                                     " µs): C-state exits are hidden"});
  }
  if (v.Knows("scheduling") && !v.config.policy.empty() && v.config.policy != "SCHED_FIFO") {
    out.push_back({"sched_other", "the sampler ran " + v.config.policy +
                                      ", not SCHED_FIFO: its figures include waits a real-time loop would not see"});
  }
  if (!v.cpus.empty() && v.Knows("memory_locked") && !v.config.memory_locked) {
    out.push_back({"memory_not_locked", "the sampler's memory was not locked: page faults may show in the figures"});
  }
  if (v.interrupted) {
    out.push_back({"interrupted", "the run was interrupted after " + FormatDuration(v.config.duration_actual_ns) +
                                      " of " + FormatDuration(v.config.duration_asked_ns)});
  }
  return out;
}

void Judge(Verdict& v, const AcceptanceLimits& limits) {
  v.criteria = EvaluateCriteria(limits, v);
  v.warnings = TrustWarnings(v, limits);
  v.pass = !v.cpus.empty() && !v.interrupted &&
           std::all_of(v.criteria.begin(), v.criteria.end(), [](const Criterion& k) { return k.pass; });
}

}  // namespace rtagent
