// What the verdict takes from the checks before a run: the pre-flight checks (verify's
// answers, one per check of the suite).
#pragma once

#include <vector>

#include "check/runner.h"
#include "report/verdict.h"

namespace rtagent::check {

/// One pre-flight check per check of the suite, in run order: passed unless one of its
/// answers is FAIL (WARN and SKIP pass, and say so in the reason). An interrupted suite adds
/// a failed "suite" entry: checks that never ran did not pass. Each entry's status is the worst
/// of its answers (FAIL, WARN, PASS; SKIP when every answer skipped), its hint the hints of its
/// FAIL and WARN answers, each after its id.
std::vector<PreflightCheck> PreflightFromSuite(const SuiteReport& report);

}  // namespace rtagent::check
