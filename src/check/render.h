// A suite's answers for a person (a table, hints under the problems), for a program (JSON)
// and for CI (JUnit XML). Pure functions of the report; tests compare them with
// tests/expected/verify.*.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "check/runner.h"

namespace rtagent::check {

/// The table `rtagent verify` prints: status, check id, measured, limit, chapter and summary
/// per result, then every WARN and FAIL again with its full figure, profile line and hint,
/// then the counts and the overall status. `color` paints the statuses (ANSI).
std::string RenderSuiteText(const SuiteReport& report, bool color);

/// Every result with every field; "result" is the overall status, "interrupted" says whether
/// Ctrl-C cut the run short.
nlohmann::json SuiteJson(const SuiteReport& report);

/// JUnit XML: one <testcase> per result (classname rtagent.verify.<check>, name its id);
/// FAIL is a <failure>, SKIP is <skipped>, WARN passes with its reason in <system-out>.
/// An interrupted run adds a failing "completed" case.
std::string RenderSuiteJUnit(const SuiteReport& report);

}  // namespace rtagent::check
