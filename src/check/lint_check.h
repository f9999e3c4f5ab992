// The lint check: the Field Guide's checklist (lesson chapter 11) as rules over the profile
// and the live system. Each rule has a stable id ("lint.timer_migration") that
// checks.lint.ignore names to silence it; docs/checks.md describes every one.
#pragma once

#include <string>
#include <vector>

namespace rtagent::check {

/// Every lint rule id, in the order the check reports them.
const std::vector<std::string>& LintRuleIds();

}  // namespace rtagent::check
