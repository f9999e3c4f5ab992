#include "report/junit.h"

#include <sstream>

#include "report/format.h"

namespace rtagent {
namespace {

std::string Limit(const Criterion& k) {
  std::string unit = k.unit.empty() ? "" : " " + k.unit;
  std::string value = FormatFixed(k.limit, k.limit == static_cast<double>(static_cast<int64_t>(k.limit)) ? 0 : 1);
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

std::string XmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderJUnit(const Verdict& v) {
  int failures = 0;
  for (const Criterion& k : v.criteria) failures += k.pass ? 0 : 1;
  if (v.interrupted) ++failures;
  const size_t tests = v.criteria.size() + 1;
  const std::string secs = FormatFixed(static_cast<double>(v.config.duration_actual_ns) / 1e9, 3);
  const std::string suite = "rtagent accept: " + v.profile_name;

  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<testsuites name=\"rtagent accept\" tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\"0\" time=\""
    << secs << "\">\n";
  o << "  <testsuite name=\"" << XmlEscape(suite) << "\" tests=\"" << tests << "\" failures=\"" << failures
    << "\" errors=\"0\" skipped=\"0\" time=\"" << secs << "\"";
  if (!v.started_at.empty()) o << " timestamp=\"" << XmlEscape(v.started_at) << "\"";
  if (!v.host.hostname.empty()) o << " hostname=\"" << XmlEscape(v.host.hostname) << "\"";
  o << ">\n";
  o << "    <properties>\n";
  auto prop = [&](const std::string& name, const std::string& value) {
    o << "      <property name=\"" << XmlEscape(name) << "\" value=\"" << XmlEscape(value) << "\"/>\n";
  };
  prop("result", v.pass ? "PASS" : "FAIL");
  prop("profile", v.profile_name);
  if (!v.profile_digest.empty()) prop("profile_digest", v.profile_digest);
  prop("kernel", v.host.kernel_release);
  prop("preempt_rt", v.host.preempt_rt ? "yes" : "no");
  prop("virtual_machine", v.host.virtual_machine ? "yes" : "no");
  prop("coarse_clock", v.host.coarse_clock ? "yes" : "no");
  prop("cpus", v.config.cpus.ToList());
  prop("interval_us", std::to_string(v.config.interval_us));
  for (const TrustWarning& w : v.warnings) prop("warning." + w.code, w.text);
  o << "    </properties>\n";

  for (const Criterion& k : v.criteria) {
    o << "    <testcase classname=\"" << ClassName(k) << "\" name=\"" << XmlEscape(CaseName(k)) << "\" time=\"0\"";
    if (k.pass) {
      o << "/>\n";
      continue;
    }
    std::string limit = Limit(k);
    std::string message = k.Role() + ": " + k.name + " " + (k.measured_text.empty() ? "failed" : k.measured_text) +
                          (limit.empty() ? "" : ", limit " + limit);
    o << ">\n      <failure message=\"" << XmlEscape(message) << "\" type=\"" << XmlEscape(k.name.substr(0, k.name.find(' ')))
      << "\">" << XmlEscape(k.evidence) << "</failure>\n    </testcase>\n";
  }
  o << "    <testcase classname=\"rtagent.accept.run\" name=\"completed\" time=\"" << secs << "\"";
  if (v.interrupted) {
    o << ">\n      <failure message=\"the run was interrupted\" type=\"interrupted\">measured for "
      << XmlEscape(FormatDuration(v.config.duration_actual_ns)) << " of "
      << XmlEscape(FormatDuration(v.config.duration_asked_ns)) << "</failure>\n    </testcase>\n";
  } else {
    o << "/>\n";
  }
  o << "    <system-out>";
  std::string out = "result " + std::string(v.pass ? "PASS" : "FAIL") + "\n";
  for (const TrustWarning& w : v.warnings) out += "warning: " + w.text + "\n";
  o << XmlEscape(out) << "</system-out>\n";
  o << "  </testsuite>\n</testsuites>\n";
  return o.str();
}

}  // namespace rtagent
