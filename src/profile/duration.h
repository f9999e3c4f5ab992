// Durations as people write them in a profile: "10s", "500ms", "250us", "2h", "1h30m".
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace rtagent::profile {

/// Parses a duration: one or more number+unit parts ("1h30m", "1.5s"). Units: ns, us (or µs),
/// ms, s, m (or min), h, d. A bare number is an error: "10" could be seconds or microseconds.
Result<std::chrono::nanoseconds> ParseDuration(std::string_view text);

/// The shortest exact spelling of `d` in the units above: 90s -> "1m30s", 1500us -> "1500us".
std::string FormatDuration(std::chrono::nanoseconds d);

}  // namespace rtagent::profile
