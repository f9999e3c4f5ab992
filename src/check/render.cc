#include "check/render.h"

#include "base/ansi_style.h"
#include "base/junit_xml.h"
#include "base/text_table.h"

namespace rtagent::check {
namespace {

using nlohmann::json;


const char* StatusColor(Status s) {
  switch (s) {
    case Status::kPass: return "32";
    case Status::kWarn: return "33";
    case Status::kFail: return "1;31";
    case Status::kSkip: return "2";
  }
  return "0";
}

std::string Counts(const SuiteReport& r) {
  return std::to_string(r.Count(Status::kPass)) + " pass, " + std::to_string(r.Count(Status::kWarn)) + " warn, " +
         std::to_string(r.Count(Status::kFail)) + " fail, " + std::to_string(r.Count(Status::kSkip)) + " skipped";
}

// A table cell: empty stays empty (ShortValue would print "").
std::string Cell(const std::string& value, size_t width) { return value.empty() ? "" : ShortValue(value, width); }

// The verdict: FAIL when anything failed or Ctrl-C cut the run short (what was not checked is
// not proven), otherwise PASS: warnings do not fail a run. verify's exit code follows it.
Status Verdict(const SuiteReport& r) {
  return r.Count(Status::kFail) > 0 || r.interrupted ? Status::kFail : Status::kPass;
}

}  // namespace

std::string RenderSuiteText(const SuiteReport& report, bool color) {
  std::string out = "verify " + report.profile + " on " + report.root + ", suite " + report.suite;
  if (!report.suite_source.empty()) out += " from " + report.suite_source;
  out += "\n\n";
  TextTable t({"status", "check", "measured", "limit", "chapter", "summary"});
  for (const auto& r : report.results) {
    t.Row({Paint(color, StatusColor(r.status), ToString(r.status)), r.id, Cell(r.measured, 40), Cell(r.limit, 32),
           r.chapter, r.summary});
  }
  out += t.Render(2);

  bool header = false;
  for (const auto& r : report.results) {
    if (r.status != Status::kFail && r.status != Status::kWarn) continue;
    if (!header) {
      out += "\nwhat to look at:\n";
      header = true;
    }
    out += "  " + Paint(color, StatusColor(r.status), ToString(r.status)) + " " + r.id;
    if (r.mark.Known()) out += " (" + r.mark.ToString() + ")";
    out += ": " + r.summary + "\n";
    if (!r.measured.empty()) out += "      measured: " + r.measured + "\n";
    if (!r.limit.empty()) out += "      limit: " + r.limit + "\n";
    if (!r.hint.empty()) out += "      hint: " + r.hint + "\n";
  }
  out += "\n" + Counts(report) + "\n";
  if (report.interrupted) out += Paint(color, "1;33", "interrupted") + ": Ctrl-C stopped the suite; the checks not run are absent\n";
  Status v = Verdict(report);
  out += Paint(color, StatusColor(v), ToString(v)) + ": " +
         (report.Count(Status::kFail) > 0 ? "at least one check failed"
          : report.interrupted            ? "interrupted before every check ran"
          : report.Count(Status::kWarn) > 0 ? "nothing failed (see the warnings)"
                                            : "every check passed") +
         "\n";
  return out;
}

json SuiteJson(const SuiteReport& report) {
  json results = json::array();
  for (const auto& r : report.results) {
    json j = {{"check", r.check},     {"id", r.id},         {"status", ToString(r.status)},
              {"summary", r.summary}, {"measured", r.measured}, {"limit", r.limit},
              {"chapter", r.chapter}, {"hint", r.hint}};
    j["source"] = r.mark.Known() ? json{{"file", r.mark.file}, {"line", r.mark.line}, {"column", r.mark.column}} : json(nullptr);
    results.push_back(std::move(j));
  }
  return {{"suite", report.suite},
          {"suite_source", report.suite_source},
          {"profile", report.profile},
          {"root", report.root},
          {"host",
           {{"hostname", report.hostname ? json(*report.hostname) : json(nullptr)},
            {"kernel_release", report.kernel_release ? json(*report.kernel_release) : json(nullptr)}}},
          {"result", ToString(Verdict(report))},
          {"interrupted", report.interrupted},
          {"counts",
           {{"pass", report.Count(Status::kPass)},
            {"warn", report.Count(Status::kWarn)},
            {"fail", report.Count(Status::kFail)},
            {"skip", report.Count(Status::kSkip)}}},
          {"results", results}};
}

std::string RenderSuiteJUnit(const SuiteReport& report) {
  JUnitReport x;
  x.name = "rtagent verify";
  x.suite_name = "rtagent verify: " + report.suite;
  x.hostname = report.hostname.value_or("");
  x.properties = {{"result", ToString(Verdict(report))}, {"profile", report.profile}, {"root", report.root},
                  {"suite", report.suite}};
  if (!report.suite_source.empty()) x.properties.push_back({"suite_source", report.suite_source});
  x.properties.push_back({"interrupted", report.interrupted ? "yes" : "no"});
  for (const auto& r : report.results) {
    JUnitCase c{"rtagent.verify." + r.check, r.id, "0", std::nullopt, std::nullopt, std::nullopt};
    std::string detail;
    if (!r.measured.empty()) detail += "measured: " + r.measured + "\n";
    if (!r.limit.empty()) detail += "limit: " + r.limit + "\n";
    if (!r.chapter.empty()) detail += "chapter: " + r.chapter + "\n";
    if (r.mark.Known()) detail += "profile: " + r.mark.ToString() + "\n";
    if (!r.hint.empty()) detail += "hint: " + r.hint + "\n";
    switch (r.status) {
      case Status::kPass: break;
      case Status::kFail: c.failure = JUnitFailure{r.summary, r.id, detail}; break;
      case Status::kSkip: c.skipped = r.summary; break;
      case Status::kWarn: c.system_out = "WARN: " + r.summary + "\n" + detail; break;
    }
    x.cases.push_back(std::move(c));
  }
  if (report.interrupted) {
    x.cases.push_back({"rtagent.verify.run", "completed", "0",
                       JUnitFailure{"interrupted (Ctrl-C): the checks not run are absent", "interrupted", std::nullopt},
                       std::nullopt, std::nullopt});
  }
  return RenderJUnitXml(x);
}

}  // namespace rtagent::check
