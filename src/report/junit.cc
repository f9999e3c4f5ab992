#include "report/junit.h"

#include "base/junit_xml.h"
#include "report/format.h"
#include "report/why_section.h"

namespace rtagent {
namespace {

std::string Limit(const Criterion& k) {
  std::string unit = k.unit.empty() ? "" : " " + k.unit;
  std::string value = FormatWholeOrTenth(k.limit);
  if (k.name == "samples" || k.name == "duration") return ">= " + value + unit;
  if (k.name.rfind("preflight ", 0) == 0 || k.name.rfind("placement ", 0) == 0) return "";
  return "<= " + value + unit;
}

std::string CaseName(const Criterion& k) {
  std::string limit = Limit(k);
  return limit.empty() ? k.name : k.name + " " + limit;
}

std::string ClassName(const Criterion& k) {
  return k.cpu ? "rtagent.accept.cpu" + std::to_string(*k.cpu) : "rtagent.accept.run";
}

}  // namespace

std::string RenderJUnit(const Verdict& v, const VerdictDiff* baseline) {
  JUnitReport r;
  r.name = "rtagent accept";
  r.suite_name = "rtagent accept: " + v.profile_name;
  if (v.Knows("duration")) r.time = FormatFixed(static_cast<double>(v.config.duration_actual_ns) / 1e9, 3);
  r.timestamp = v.started_at;
  if (v.Knows("host")) r.hostname = v.host.hostname;
  r.properties = {{"result", v.pass ? "PASS" : "FAIL"}, {"profile", v.profile_name}};
  if (!v.profile_digest.empty()) r.properties.push_back({"profile_digest", v.profile_digest});
  // What an import's source does not state is left out, never written as "no" or 0.
  auto add = [&](const char* fact, std::string name, std::string value) {
    if (v.Knows(fact)) r.properties.push_back({std::move(name), std::move(value)});
  };
  add("kernel", "kernel", v.host.kernel_release);
  add("kernel", "preempt_rt", v.host.preempt_rt ? "yes" : "no");
  add("virtual_machine", "virtual_machine", v.host.virtual_machine ? "yes" : "no");
  add("clock", "coarse_clock", v.host.coarse_clock ? "yes" : "no");
  add("cpus", "cpus", v.config.cpus.ToList());
  add("interval", "interval_us", std::to_string(v.config.interval_us));
  if (v.imported) r.properties.push_back({"imported_from", v.imported->tool + " " + v.imported->path});
  for (const TrustWarning& w : v.warnings) r.properties.push_back({"warning." + w.code, w.text});

  for (const Criterion& k : v.criteria) {
    JUnitCase c{ClassName(k), CaseName(k), "0", std::nullopt, std::nullopt, std::nullopt};
    if (!k.pass) {
      const std::string limit = Limit(k);
      // A latency that failed carries the why of the worst wake-up, which is what CI shows first.
      const bool latency = k.unit == "µs";
      c.failure = JUnitFailure{k.Role() + ": " + k.name + " " + (k.measured_text.empty() ? "failed" : k.measured_text) +
                                   (limit.empty() ? "" : ", limit " + limit) +
                                   (latency && v.why ? "; " + WhyCaption(*v.why) : ""),
                               k.name.substr(0, k.name.find(' ')),
                               k.evidence + (latency && v.why ? "\n\n" + RenderWhySectionText(*v.why) : "")};
    }
    r.cases.push_back(std::move(c));
  }
  JUnitCase completed{"rtagent.accept.run", "completed", r.time.value_or("0"), std::nullopt, std::nullopt, std::nullopt};
  if (v.interrupted) {
    completed.failure = JUnitFailure{"the run was interrupted", "interrupted",
                                     "measured for " + FormatDuration(v.config.duration_actual_ns) + " of " +
                                         FormatDuration(v.config.duration_asked_ns)};
  }
  r.cases.push_back(std::move(completed));
  std::string out = "result " + std::string(v.pass ? "PASS" : "FAIL") + "\n";
  for (const TrustWarning& w : v.warnings) out += "warning: " + w.text + "\n";
  if (v.why) out += "\n" + RenderWhySectionText(*v.why);
  r.system_out = out;
  if (baseline != nullptr) {
    r.properties.push_back({"baseline_result", baseline->regression ? "REGRESSION" : "no regression"});
    for (JUnitCase& c : DiffJUnitCases(*baseline)) r.cases.push_back(std::move(c));
  }
  return RenderJUnitXml(r);
}

}  // namespace rtagent
