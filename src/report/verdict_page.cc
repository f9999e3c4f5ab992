#include "report/verdict_page.h"

#include "base/kernel_paths.h"
#include "report/format.h"

namespace rtagent {
namespace {

std::string Us(const std::optional<int64_t>& ns) { return ns ? FormatNsAsUs(*ns) : "–"; }

std::string YesNo(bool b) { return b ? "yes" : "no"; }

/// `text` when the verdict knows `fact`, else "unknown" (an import's source did not say).
std::string Known(const Verdict& v, const std::string& fact, const std::string& text) {
  return v.Knows(fact) ? text : "unknown";
}

std::string PercentileCell(const Percentile* p, uint32_t limit_us, const std::string& beyond) {
  if (!p) return "–";
  if (p->beyond_limit) return "> " + std::to_string(limit_us) + " (" + beyond + ")";
  if (!p->us) return "–";
  return std::to_string(*p->us);
}

}  // namespace

const std::vector<std::string>& CriteriaColumns() {
  static const std::vector<std::string> kColumns = {"Role", "Criterion", "Limit", "Measured", "Result", "Evidence"};
  return kColumns;
}

const std::vector<std::string>& LoadColumns() {
  static const std::vector<std::string> kColumns = {"Load", "CPUs asked", "CPUs ran", "Placement", "Ended", "Log"};
  return kColumns;
}

std::vector<const Criterion*> FailedCriteria(const Verdict& v) {
  std::vector<const Criterion*> failed;
  for (const Criterion& k : v.criteria) {
    if (!k.pass) failed.push_back(&k);
  }
  return failed;
}

std::vector<std::string> LatencyColumns() {
  std::vector<std::string> columns = {"CPU", "Samples", "Min", "Mean"};
  for (double q : kReportedQuantiles) columns.push_back("p" + FormatFixed(q * 100, q >= 0.9999 ? 2 : q >= 0.999 ? 1 : 0));
  columns.insert(columns.end(), {"Max", "Overflows", "Skipped periods"});
  return columns;
}

std::vector<std::string> LatencyCells(const Verdict& v, const CpuResult& c, const std::string& beyond) {
  const uint32_t lim = c.histogram.limit_us();
  std::vector<std::string> cells = {std::to_string(c.cpu), FormatCount(c.stats.samples), Us(c.stats.min_ns),
                                    c.stats.mean_ns ? FormatFixed(*c.stats.mean_ns / 1000.0, 1) : "–"};
  for (double q : kReportedQuantiles) cells.push_back(PercentileCell(c.stats.Find(q), lim, beyond));
  cells.insert(cells.end(), {Us(c.stats.max_ns), v.Knows("overflows") ? FormatCount(c.stats.overflows) : "unknown",
                             v.Knows("skipped_periods") ? FormatCount(c.stats.skipped_periods) : "unknown"});
  return cells;
}

PageFact PlainFact(std::string label, std::string text) {
  PageFact f;
  f.label = std::move(label);
  f.text = std::move(text);
  return f;
}

std::vector<PageFact> RunFactRows(const Verdict& v) {
  const RunConfig& r = v.config;
  return {
      PlainFact("Measured CPUs", r.cpus.ToList() + (v.Knows("cpus") ? "" : " (threads; the CPU each ran on unknown)")),
      PlainFact("Interval", Known(v, "interval", std::to_string(r.interval_us) + " µs")),
      PlainFact("Scheduling", Known(v, "scheduling", r.policy + ", priority " + std::to_string(r.priority) + " asked")),
      PlainFact("Duration", Known(v, "duration",
                                  v.imported ? FormatDuration(r.duration_actual_ns) + " (what was asked: unknown)"
                                             : FormatDuration(r.duration_actual_ns) + " of " +
                                                   FormatDuration(r.duration_asked_ns) + " asked")),
      PlainFact("Histogram", "1 µs bins, 0 to " + std::to_string(r.histogram_limit_us) + " µs"),
      PlainFact("Memory locked", Known(v, "memory_locked", YesNo(r.memory_locked))),
  };
}

std::string PmQosText(const Verdict& v) {
  if (!v.Knows("pm_qos")) return "unknown";
  std::string s;
  if (v.config.pm_qos.holder == PmQosHolder::kNone) {
    s = "none (every idle state allowed)";
  } else {
    s = (v.config.pm_qos.value_us ? std::to_string(*v.config.pm_qos.value_us) + " µs" : "unknown value") + ", held by " +
        (v.config.pm_qos.holder == PmQosHolder::kSampler   ? "the sampler itself"
         : v.config.pm_qos.holder == PmQosHolder::kProfile ? "the profile's tuned state"
                                                           : "an unknown program");
  }
  if (v.config.pm_qos_device_us || v.config.pm_qos_hold_us) {
    s += " (";
    if (v.config.pm_qos_device_us) s += "/" + kpath::kCpuDmaLatency + " read " + std::to_string(*v.config.pm_qos_device_us) + " µs";
    if (v.config.pm_qos_device_us && v.config.pm_qos_hold_us) s += "; ";
    if (v.config.pm_qos_hold_us) s += "rtagent hold holds " + std::to_string(*v.config.pm_qos_hold_us) + " µs";
    s += ")";
  }
  return s;
}

std::vector<PageFact> HostFactRows(const Verdict& v, HostDetail detail) {
  const HostFacts& h = v.host;
  const bool notes = detail == HostDetail::kNotes;
  std::vector<PageFact> facts;
  facts.push_back(PlainFact("Host", Known(v, "host", h.hostname)));
  PageFact kernel = PlainFact("Kernel", Known(v, "kernel", h.kernel_release));
  // An import may give the release without uname -v (rteval): then no version is shown.
  if (v.Knows("kernel") && !h.kernel_version.empty()) kernel.code = h.kernel_version;
  facts.push_back(kernel);
  facts.push_back(PlainFact("PREEMPT_RT", Known(v, "kernel", YesNo(h.preempt_rt))));
  facts.push_back(PlainFact("Clocksource", Known(v, "clock", h.clocksource)));
  PageFact clock = PlainFact("Clock", Known(v, "clock", "resolution " + std::to_string(h.clock_resolution_ns) +
                                                           " ns, one read " + std::to_string(h.clock_read_cost_ns) + " ns"));
  if (v.Knows("clock") && h.coarse_clock) clock.alert = "coarse";
  facts.push_back(clock);
  if (notes) {
    for (const std::string& r : h.clock_reasons) facts.push_back(PlainFact("Clock note", r));
  }
  std::string vm =
      Known(v, "virtual_machine", YesNo(h.virtual_machine) + (h.hypervisor.empty() ? "" : " (" + h.hypervisor + ")"));
  if (notes && v.Knows("virtual_machine") && h.virtual_machine) vm += ": virtual-machine figures, not the board's";
  facts.push_back(PlainFact("Virtual machine", vm));
  return facts;
}

std::optional<std::string> VmLabel(const Verdict& v) {
  if (!v.Knows("virtual_machine") || !v.host.virtual_machine) return std::nullopt;
  std::string text = "Measured on a virtual machine: these are virtual-machine figures, not the board's real-time figures.";
  for (const TrustWarning& w : v.warnings) {
    if (w.code == "virtual_machine") text = w.text;
  }
  return text;
}

std::string RunSentence(const Verdict& v, const std::function<std::string(const std::string&)>& inner) {
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
  s += v.Knows("host") ? ", on " + inner(v.host.hostname) : ", host unknown";
  s += v.Knows("kernel") ? " (" + inner(v.host.kernel_release) + (v.host.preempt_rt ? ", PREEMPT_RT)" : ", not PREEMPT_RT)")
                         : " (kernel unknown)";
  if (!v.started_at.empty()) s += ", started " + v.started_at;
  s += ".";
  if (v.imported) s += " Read from " + v.imported->tool + " output " + inner(v.imported->path) + ".";
  return s;
}

const std::vector<std::string>& TuningColumns() {
  static const std::vector<std::string> columns = {"Section", "Setting", "Before", "After"};
  return columns;
}

std::string TuningSentence(const Verdict& v) {
  if (!v.tuning) {
    return "Not recorded in this verdict: `rtagent plan PROFILE` shows what the profile asks for and the journal "
           "on the machine what was changed.";
  }
  const TuningInForce& t = *v.tuning;
  if (!t.error.empty()) return "Unknown: rtagent's journal could not be read when the run started (" + t.error + ").";
  if (t.total == 0) {
    return "No change by rtagent was in force when the run started: the figures are those of the system as it was "
           "found (or as another tool left it).";
  }
  std::string s = "rtagent had made " + std::to_string(t.total) + (t.total == 1 ? " change" : " changes") +
                  " and not reverted them when the run started (journal " + t.source + ")";
  if (t.changes.size() < t.total) {
    s += "; the first " + std::to_string(t.changes.size()) + " are listed, the journal on the machine holds them all";
  }
  return s + ".";
}

std::string TuningValue(const std::string& value) {
  constexpr size_t kCut = 120;
  if (value.empty()) return "(empty)";
  if (value.size() <= kCut) return value;
  size_t cut = kCut;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return value.substr(0, cut) + "…";
}

std::string LoadEnded(const LoadResult& l) {
  return l.exit_code ? "exit " + std::to_string(*l.exit_code) : l.signal ? "signal " + std::to_string(*l.signal) : "still running";
}

}  // namespace rtagent
