// A count as people read it, in every library's messages: "1,234 wake-ups", "1 file".
#pragma once

#include <cstdint>
#include <string>

namespace rtagent {

/// 1234567 -> "1,234,567".
std::string FormatCount(uint64_t n);
/// A count with its noun: (1, "wake-up", "wake-ups") -> "1 wake-up", 2000 -> "2,000 wake-ups".
std::string CountOf(uint64_t n, const std::string& one, const std::string& many);

}  // namespace rtagent
