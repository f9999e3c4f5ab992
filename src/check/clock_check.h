// Clock honesty as a check (lesson chapters 1 and 5): the clocksource, the resolution and cost
// of reading CLOCK_MONOTONIC, and a hypervisor underneath. Split from its factory so tests can
// hand in a measured clock (a coarse one) without depending on this machine's.
#pragma once

#include <optional>
#include <vector>

#include "check/check.h"
#include "latency/clock_info.h"

namespace rtagent::check {

/// The clock check's answers for the clock section of env.state and `measured` (this machine's
/// clock_getres and read cost; nullopt when not measured, as under --root DIR where the fixture
/// is not the machine whose clock could be read).
std::vector<CheckResult> ClockResults(const CheckEnv& env, const std::optional<ClockFacts>& measured,
                                      const std::string& not_measured_reason);

}  // namespace rtagent::check
