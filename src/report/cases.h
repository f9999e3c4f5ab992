// The verdict's criteria as plain lines for board-farm scripts (LAVA's lava-test-case, shell
// loops on a board without python or jq): one line per criterion,
//   NAME RESULT MEASUREMENT UNITS
// NAME made of [a-z0-9._-] ("cpu2-max", "cpu2-p99.9", "run-preflight-interrupts"), RESULT
// pass or fail, MEASUREMENT a plain number or "-" when unknown (a percentile beyond the
// histogram), UNITS "us", "s", "count" or "-". Fields never hold a space.
#pragma once

#include <string>

#include "report/verdict.h"

namespace rtagent {

std::string RenderCases(const Verdict& v);

}  // namespace rtagent
