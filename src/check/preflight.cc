#include "check/preflight.h"

#include <algorithm>

namespace rtagent::check {

std::vector<PreflightCheck> PreflightFromSuite(const SuiteReport& report) {
  struct Entry {
    std::string check;
    int pass = 0, warn = 0, skip = 0;
    std::string fails, first_warn;
    std::string hints;  // "id: hint" of each FAIL and WARN answer that gave one
  };
  std::vector<Entry> entries;  // one per check, in run order
  for (const CheckResult& r : report.results) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.check == r.check; });
    Entry& e = it != entries.end() ? *it : entries.emplace_back(Entry{r.check, 0, 0, 0, "", "", ""});
    const std::string said = r.summary.empty() ? r.id : r.id + ": " + r.summary;
    if ((r.status == Status::kFail || r.status == Status::kWarn) && !r.hint.empty()) {
      e.hints += (e.hints.empty() ? "" : "; ") + r.id + ": " + r.hint;
    }
    switch (r.status) {
      case Status::kFail: e.fails += (e.fails.empty() ? "" : "; ") + said; break;
      case Status::kWarn:
        if (e.warn++ == 0) e.first_warn = said;
        break;
      case Status::kPass: ++e.pass; break;
      case Status::kSkip: ++e.skip; break;
    }
  }
  std::vector<PreflightCheck> out;
  for (const Entry& e : entries) {
    if (!e.fails.empty()) {
      out.push_back({e.check, false, "FAIL " + e.fails, "FAIL", e.hints});
      continue;
    }
    std::string reason = std::to_string(e.pass) + " passed";
    if (e.warn) reason += ", " + std::to_string(e.warn) + " warned (" + e.first_warn + (e.warn > 1 ? "; ..." : "") + ")";
    if (e.skip) reason += ", " + std::to_string(e.skip) + " skipped";
    const std::string status = e.warn ? "WARN" : e.pass ? "PASS" : "SKIP";
    out.push_back({e.check, true, reason + " (suite " + report.suite + ")", status, e.hints});
  }
  if (report.interrupted) {
    out.push_back({"suite", false, "the " + report.suite + " suite was interrupted: its remaining checks did not run",
                   "FAIL", "run the suite again without stopping it"});
  }
  return out;
}

}  // namespace rtagent::check
