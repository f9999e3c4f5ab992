#include "base/count_text.h"

namespace rtagent {

std::string FormatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  int lead = static_cast<int>(digits.size() % 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (static_cast<int>(i) - lead) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string CountOf(uint64_t n, const std::string& one, const std::string& many) {
  return FormatCount(n) + " " + (n == 1 ? one : many);
}

}  // namespace rtagent
