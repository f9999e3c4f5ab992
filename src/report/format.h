// Number formatting shared by the renderers, so every output spells a value the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/count_text.h"  // FormatCount, CountOf: the renderers use them too

namespace rtagent {

/// Nanoseconds as microseconds with one decimal: 12345 -> "12.3" (no unit).
std::string FormatNsAsUs(int64_t ns);
/// A short duration with its unit and three significant digits, from nanoseconds up:
/// 85 -> "85 ns", 1234 -> "1.23 µs", 56789 -> "56.8 µs", 2500000 -> "2.50 ms", 3e9 -> "3.00 s".
std::string FormatNsShort(int64_t ns);
/// A duration for people: "250 ms", "3.5 s", "12 min 5 s", "2 h 0 min 0 s".
std::string FormatDuration(int64_t ns);
/// `v` with `decimals` decimals, "-0.0" printed as "0.0".
std::string FormatFixed(double v, int decimals);
/// A criterion's limit or measurement: `v` without decimals when it is a whole number ("50"),
/// else with one ("12.5"); never cast to an integer to tell (a value from a file may be 1e71).
std::string FormatWholeOrTenth(double v);
/// How a verdict's criteria came out, for its first line: "all 15 criteria hold", "the 1
/// criterion holds", "4 of 15 criteria failed", "the 1 criterion failed". `total` > 0.
std::string CriteriaOutcome(size_t failed, size_t total);

}  // namespace rtagent
