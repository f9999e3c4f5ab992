#include "report/accept_summary.h"

#include "base/ansi_style.h"
#include "base/text_table.h"
#include "report/format.h"
#include "report/why_section.h"

namespace rtagent {

namespace {

std::string PercentileText(const LatencyStats& st, double q) {
  const Percentile* p = st.Find(q);
  if (p == nullptr || (!p->us && !p->beyond_limit)) return "-";
  return p->beyond_limit ? "beyond" : std::to_string(*p->us);
}

std::string HostLine(const HostFacts& h) {
  return "host: " + h.hostname + ", kernel " + h.kernel_release +
         (h.preempt_rt ? " (PREEMPT_RT)" : " (not PREEMPT_RT)") + ", clocksource " +
         (h.clocksource.empty() ? "unknown" : h.clocksource) + ", virtual machine " +
         (h.virtual_machine ? "yes" + (h.hypervisor.empty() ? "" : " (" + h.hypervisor + ")") : std::string("no")) +
         "\n";
}

std::string CpuTable(const Verdict& v) {
  TextTable t({">CPU", ">samples", ">min µs", ">p99 µs", ">p99.9 µs", ">max µs", ">overflows"});
  for (const CpuResult& c : v.cpus) {
    const LatencyStats& st = c.stats;
    t.Row({std::to_string(c.cpu), FormatCount(st.samples), st.min_ns ? FormatNsAsUs(*st.min_ns) : "-",
           PercentileText(st, 0.99), PercentileText(st, 0.999), st.max_ns ? FormatNsAsUs(*st.max_ns) : "-",
           FormatCount(st.overflows)});
  }
  return t.Render(2);
}

}  // namespace

std::string RenderAcceptSummary(const Verdict& v, bool color) {
  const std::string result = std::string("accept: ") + (v.pass ? "PASS" : "FAIL");
  std::string out = Paint(color, "1", result) + " — " + v.profile_name + ", " +
                    FormatDuration(v.config.duration_actual_ns) + " on " + v.config.cpus.Named() + " (" +
                    v.config.policy + " " + std::to_string(v.config.priority) + ", every " +
                    std::to_string(v.config.interval_us) + " µs)" + (v.interrupted ? ", INTERRUPTED" : "") + "\n";
  out += HostLine(v.host);
  for (const TrustWarning& w : v.warnings) out += "warning: " + w.text + "\n";
  out += "\n" + CpuTable(v) + "\n";
  for (const Criterion& k : v.criteria) {
    out += std::string(k.pass ? "PASS " : "FAIL ") + k.name + " (" + k.Role() + "): " + k.evidence + "\n";
  }
  if (v.why) out += "\n" + RenderWhySectionText(*v.why);
  return out;
}

}  // namespace rtagent
