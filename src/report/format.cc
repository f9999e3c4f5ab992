#include "report/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rtagent {

std::string FormatFixed(double v, int decimals) {
  // As long as the number needs: a double's integer part can run to 309 digits.
  const int n = std::snprintf(nullptr, 0, "%.*f", decimals, v);
  std::string s(static_cast<size_t>(std::max(n, 0)) + 1, '\0');
  std::snprintf(s.data(), s.size(), "%.*f", decimals, v);
  s.resize(static_cast<size_t>(std::max(n, 0)));
  if (s.size() > 1 && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string FormatWholeOrTenth(double v) {
  return FormatFixed(v, std::isfinite(v) && v == std::trunc(v) ? 0 : 1);
}

std::string FormatNsAsUs(int64_t ns) { return FormatFixed(static_cast<double>(ns) / 1000.0, 1); }

std::string FormatNsShort(int64_t ns) {
  const double v = static_cast<double>(ns < 0 ? -ns : ns);
  const char* sign = ns < 0 ? "-" : "";
  if (v < 1000) return sign + std::to_string(ns < 0 ? -ns : ns) + " ns";
  const struct {
    double scale;
    const char* unit;
  } units[] = {{1e3, " µs"}, {1e6, " ms"}, {1e9, " s"}};
  for (size_t i = 0; i < 3; ++i) {
    const double x = v / units[i].scale;
    // Rounding may carry into the next unit (999.96 µs is 1.00 ms).
    if (x >= 999.5 && i < 2) continue;
    const int decimals = x < 9.995 ? 2 : x < 99.95 ? 1 : 0;
    return sign + FormatFixed(x, decimals) + units[i].unit;
  }
  return sign + FormatFixed(v / 1e9, 2) + " s";
}

std::string FormatDuration(int64_t ns) {
  if (ns < 1000000000) return std::to_string((ns + 500000) / 1000000) + " ms";
  if (ns < 60LL * 1000000000) return FormatFixed(static_cast<double>(ns) / 1e9, 1) + " s";
  int64_t s = (ns + 500000000) / 1000000000;
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + std::to_string((s % 3600) / 60) + " min " + std::to_string(s % 60) + " s";
}

std::string CriteriaOutcome(size_t failed, size_t total) {
  if (total == 1) return failed > 0 ? "the 1 criterion failed" : "the 1 criterion holds";
  if (failed == 0) return "all " + FormatCount(total) + " criteria hold";
  return FormatCount(failed) + " of " + FormatCount(total) + " criteria failed";
}

}  // namespace rtagent
