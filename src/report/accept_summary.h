// The verdict as `rtagent accept` (and commission's latency step) prints it on the terminal:
// the result, the host, the trust warnings, a table per measured CPU and every criterion.
#pragma once

#include <string>

#include "report/verdict.h"

namespace rtagent {

/// The terminal summary of a verdict; `color` makes the result line bold (ANSI).
std::string RenderAcceptSummary(const Verdict& v, bool color);

}  // namespace rtagent
