#include "report/markdown.h"

#include <sstream>

#include "base/kernel_paths.h"
#include "report/format.h"
#include "report/why_section.h"

namespace rtagent {
namespace {

std::string Us(const std::optional<int64_t>& ns) { return ns ? FormatNsAsUs(*ns) : "–"; }

std::string PercentileCell(const Percentile* p, uint32_t limit_us) {
  if (!p) return "–";
  if (p->beyond_limit) return "> " + std::to_string(limit_us) + " (beyond limit)";
  if (!p->us) return "–";
  return std::to_string(*p->us);
}

std::string YesNo(bool b) { return b ? "yes" : "no"; }

/// `text` when the verdict knows `fact`, else "unknown" (an import's source did not say).
std::string Known(const Verdict& v, const std::string& fact, const std::string& text) {
  return v.Knows(fact) ? text : "unknown";
}

// "Measured CPUs 2-3 every 1000 µs for 1.0 s (asked 1.0 s), SCHED_FIFO priority 80, on host
// (kernel, PREEMPT_RT), started ...": each part an import's source does not state says so.
std::string RunSentence(const Verdict& v) {
  std::string s = v.Knows("cpus") ? "Measured CPUs " + v.config.cpus.ToList()
                                   : "Measured threads " + v.config.cpus.ToList() + " (the CPU each ran on unknown)";
  s += v.Knows("interval") ? " every " + std::to_string(v.config.interval_us) + " µs" : ", interval unknown";
  // An import states how long it ran, never what was asked.
  s += !v.Knows("duration") ? ", duration unknown"
       : v.imported         ? " for " + FormatDuration(v.config.duration_actual_ns)
                            : " for " + FormatDuration(v.config.duration_actual_ns) + " (asked " +
                                  FormatDuration(v.config.duration_asked_ns) + ")";
  s += v.Knows("scheduling") ? ", " + v.config.policy + " priority " + std::to_string(v.config.priority)
                             : ", scheduling unknown";
  s += v.Knows("host") ? ", on " + MarkdownCell(v.host.hostname) : ", host unknown";
  s += v.Knows("kernel") ? " (" + MarkdownCell(v.host.kernel_release) + (v.host.preempt_rt ? ", PREEMPT_RT)" : ", not PREEMPT_RT)")
                         : " (kernel unknown)";
  if (!v.started_at.empty()) s += ", started " + v.started_at;
  s += ".";
  if (v.imported) s += " Read from " + v.imported->tool + " output " + MarkdownCell(v.imported->path) + ".";
  return s;
}

}  // namespace

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderMarkdown(const Verdict& v) {
  std::ostringstream o;
  const char* result = v.pass ? "PASS" : "FAIL";
  o << "# Latency acceptance: " << result << " — " << MarkdownCell(v.profile_name) << "\n\n";

  if (!v.warnings.empty()) {
    o << "> **Read this first: these figures cannot be taken at face value.**\n";
    for (const TrustWarning& w : v.warnings) o << "> - " << w.text << "\n";
    o << "\n";
  }

  int failed = 0;
  for (const Criterion& k : v.criteria) failed += k.pass ? 0 : 1;
  o << "**Result: " << result << "**";
  if (failed > 0) {
    o << " — " << failed << " of " << v.criteria.size() << " criteria failed";
  } else if (!v.criteria.empty()) {
    o << " — all " << v.criteria.size() << " criteria hold";
  }
  if (v.interrupted) o << "; the run was interrupted";
  o << ".\n\n";
  o << RunSentence(v) << "\n\n";

  if (!v.criteria.empty()) {
    o << "## Criteria\n\n";
    o << "| Role | Criterion | Limit | Measured | Result | Evidence |\n";
    o << "|---|---|---|---|---|---|\n";
    for (const Criterion& k : v.criteria) {
      o << "| " << k.Role() << " | " << MarkdownCell(k.name) << " | " << k.LimitText() << " | "
        << MarkdownCell(k.measured_text) << " | " << (k.pass ? "pass" : "**FAIL**") << " | " << MarkdownCell(k.evidence)
        << " |\n";
    }
    o << "\n";
  }

  if (v.why) o << RenderWhySectionMarkdown(*v.why);

  o << "## Latency per CPU (µs)\n\n";
  o << "| CPU | Samples | Min | Mean | p50 | p90 | p99 | p99.9 | p99.99 | Max | Overflows | Skipped periods |\n";
  o << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const CpuResult& c : v.cpus) {
    const uint32_t lim = c.histogram.limit_us();
    o << "| " << c.cpu << " | " << FormatCount(c.stats.samples) << " | " << Us(c.stats.min_ns) << " | "
      << (c.stats.mean_ns ? FormatFixed(*c.stats.mean_ns / 1000.0, 1) : "–");
    for (double q : kReportedQuantiles) o << " | " << PercentileCell(c.stats.Find(q), lim);
    o << " | " << Us(c.stats.max_ns) << " | " << FormatCount(c.stats.overflows) << " | "
      << (v.Knows("skipped_periods") ? FormatCount(c.stats.skipped_periods) : "unknown") << " |\n";
  }
  o << "\nPercentiles are 1 µs bins counted with every overflow in the total; min, mean and max are exact.\n\n";

  bool any_overflow = false;
  for (const CpuResult& c : v.cpus) any_overflow = any_overflow || c.stats.overflows > 0;
  if (any_overflow) {
    o << "## Overflows (wake-ups past the histogram's last bin)\n\n";
    for (const CpuResult& c : v.cpus) {
      if (c.stats.overflows == 0) continue;
      const auto& first = c.histogram.first_overflows();
      o << "- CPU " << c.cpu << ": " << FormatCount(c.stats.overflows) << " at or past " << c.histogram.limit_us()
        << " µs, the latest " << FormatNsAsUs(c.histogram.overflow_max_ns()) << " µs.";
      if (!c.histogram.worst_overflows().empty()) o << " Worst:";
      for (const OverflowEvent& e : c.histogram.worst_overflows()) {
        o << " " << FormatNsAsUs(e.latency_ns) << " µs at sample " << FormatCount(e.sample_index) << " ("
          << FormatDuration(e.since_start_ns) << ");";
      }
      if (first.empty()) {
        // rtla and cyclictest --json count overflows without saying when they happened.
        o << " At which samples: unknown.\n";
      } else {
        o << " first at sample";
        for (size_t i = 0; i < first.size(); ++i) o << (i ? ", " : " ") << FormatCount(first[i].sample_index);
        if (first.size() < c.stats.overflows) o << " and " << FormatCount(c.stats.overflows - first.size()) << " more";
        o << ".\n";
      }
    }
    o << "\n";
  }

  o << "## Run\n\n";
  o << "| Setting | Value |\n|---|---|\n";
  o << "| Measured CPUs | " << v.config.cpus.ToList() << (v.Knows("cpus") ? "" : " (threads; the CPU each ran on unknown)") << " |\n";
  o << "| Interval | " << Known(v, "interval", std::to_string(v.config.interval_us) + " µs") << " |\n";
  o << "| Scheduling | " << Known(v, "scheduling", v.config.policy + ", priority " + std::to_string(v.config.priority) + " asked") << " |\n";
  o << "| Duration | "
    << Known(v, "duration",
             v.imported ? FormatDuration(v.config.duration_actual_ns) + " (what was asked: unknown)"
                        : FormatDuration(v.config.duration_actual_ns) + " of " + FormatDuration(v.config.duration_asked_ns) + " asked")
    << " |\n";
  o << "| Histogram | 1 µs bins, 0 to " << v.config.histogram_limit_us << " µs |\n";
  o << "| Memory locked | " << Known(v, "memory_locked", YesNo(v.config.memory_locked)) << " |\n";
  o << "| PM QoS note in force | ";
  if (!v.Knows("pm_qos")) {
    o << "unknown";
  } else if (v.config.pm_qos.holder == PmQosHolder::kNone) {
    o << "none (every idle state allowed)";
  } else {
    o << (v.config.pm_qos.value_us ? std::to_string(*v.config.pm_qos.value_us) + " µs" : "unknown value") << ", held by "
      << (v.config.pm_qos.holder == PmQosHolder::kSampler   ? "the sampler itself"
          : v.config.pm_qos.holder == PmQosHolder::kProfile ? "the profile's tuned state"
                                                            : "an unknown program");
  }
  if (v.config.pm_qos_device_us || v.config.pm_qos_hold_us) {
    o << " (";
    if (v.config.pm_qos_device_us) o << "/" << kpath::kCpuDmaLatency << " read " << *v.config.pm_qos_device_us << " µs";
    if (v.config.pm_qos_device_us && v.config.pm_qos_hold_us) o << "; ";
    if (v.config.pm_qos_hold_us) o << "rtagent hold holds " << *v.config.pm_qos_hold_us << " µs";
    o << ")";
  }
  o << " |\n";
  for (const std::string& n : v.config.notes) o << "| Note | " << MarkdownCell(n) << " |\n";
  if (!v.profile_digest.empty()) o << "| Profile digest | `" << v.profile_digest << "` |\n";
  o << "\n";

  o << "## Host\n\n";
  o << "| Fact | Value |\n|---|---|\n";
  o << "| Host | " << Known(v, "host", MarkdownCell(v.host.hostname)) << " |\n";
  o << "| Kernel | "
    << Known(v, "kernel", MarkdownCell(v.host.kernel_release) + " `" + MarkdownCell(v.host.kernel_version) + "`") << " |\n";
  o << "| PREEMPT_RT | " << Known(v, "kernel", YesNo(v.host.preempt_rt)) << " |\n";
  o << "| Clocksource | " << Known(v, "clock", MarkdownCell(v.host.clocksource)) << " |\n";
  o << "| Clock | "
    << Known(v, "clock", "resolution " + std::to_string(v.host.clock_resolution_ns) + " ns, one read " +
                             std::to_string(v.host.clock_read_cost_ns) + " ns" + (v.host.coarse_clock ? ", **coarse**" : ""))
    << " |\n";
  o << "| Virtual machine | "
    << Known(v, "virtual_machine",
             YesNo(v.host.virtual_machine) + (v.host.hypervisor.empty() ? "" : " (" + MarkdownCell(v.host.hypervisor) + ")"))
    << " |\n\n";

  if (!v.loads.empty()) {
    o << "## Loads\n\n";
    o << "| Load | CPUs asked | CPUs ran | Placement | Ended | Log |\n|---|---|---|---|---|---|\n";
    for (const LoadResult& l : v.loads) {
      std::string ended = l.exit_code ? "exit " + std::to_string(*l.exit_code)
                          : l.signal  ? "signal " + std::to_string(*l.signal)
                                      : "still running";
      o << "| " << MarkdownCell(l.name) << " | " << l.cpus_asked.ToList() << " | "
        << (l.cpus_ran.Empty() ? "–" : l.cpus_ran.ToList()) << " | " << (l.PlacementHeld() ? "held" : "**broken**")
        << " | " << ended << " | " << MarkdownCell(l.log_path) << " |\n";
    }
    o << "\n";
  }

  if (!v.interrupts.empty()) {
    o << "## Interrupts on the measured CPUs during the run\n\n";
    o << "| Interrupt | Count |\n|---|---:|\n";
    for (const InterruptDelta& d : v.interrupts) o << "| " << MarkdownCell(d.name) << " | " << FormatCount(d.count) << " |\n";
    o << "\n";
  }

  if (!v.preflight.empty()) {
    o << "## Pre-flight checks\n\n";
    for (const PreflightCheck& p : v.preflight) {
      o << "- " << (p.passed ? "pass" : "**FAIL**") << " " << p.name << (p.reason.empty() ? "" : ": " + p.reason) << "\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace rtagent
