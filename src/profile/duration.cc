#include "profile/duration.h"

#include <cctype>
#include <cmath>

namespace rtagent::profile {
namespace {

struct Unit {
  std::string_view name;
  long long ns;
};

// Longest names first so "ms" is not read as "m" followed by "s".
constexpr Unit kUnits[] = {
    {"min", 60'000'000'000LL}, {"ns", 1LL}, {"us", 1'000LL}, {"\xC2\xB5s", 1'000LL}, {"ms", 1'000'000LL},
    {"s", 1'000'000'000LL},    {"m", 60'000'000'000LL}, {"h", 3'600'000'000'000LL}, {"d", 86'400'000'000'000LL},
};

Error Bad(std::string_view text, const std::string& why) {
  return MakeError("invalid duration \"" + std::string(text) + "\": " + why);
}

}  // namespace

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return Bad(text, "empty");
  if (s.front() == '-') return Bad(text, "a duration cannot be negative");
  long double total = 0;
  bool any = false;
  while (!s.empty()) {
    size_t n = 0;
    bool dot = false;
    while (n < s.size() && (std::isdigit(static_cast<unsigned char>(s[n])) || (s[n] == '.' && !dot))) {
      if (s[n] == '.') dot = true;
      ++n;
    }
    if (n == 0 || (n == 1 && dot)) return Bad(text, "expected a number before \"" + std::string(s) + "\"");
    long double number = std::stold(std::string(s.substr(0, n)));
    s.remove_prefix(n);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (s.substr(0, u.name.size()) == u.name) {
        // "m" must not swallow the "m" of "ms"/"min"; the table order already handles it.
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) {
      if (s.empty()) return Bad(text, "the number needs a unit (ns, us, ms, s, m, h, d)");
      return Bad(text, "unknown unit \"" + std::string(s) + "\" (use ns, us, ms, s, m, h, d)");
    }
    s.remove_prefix(unit->name.size());
    total += number * static_cast<long double>(unit->ns);
    any = true;
  }
  if (!any) return Bad(text, "empty");
  if (total > 9.0e18L) return Bad(text, "too long");
  return std::chrono::nanoseconds(static_cast<long long>(std::llround(total)));
}

std::string FormatDuration(std::chrono::nanoseconds d) {
  long long ns = d.count();
  if (ns == 0) return "0s";
  std::string out;
  if (ns < 0) {
    out = "-";
    ns = -ns;
  }
  // Sub-second values print in one unit; longer ones as h/m/s parts.
  if (ns % 1'000'000'000LL != 0) {
    if (ns % 1'000'000LL == 0) return out + std::to_string(ns / 1'000'000LL) + "ms";
    if (ns % 1'000LL == 0) return out + std::to_string(ns / 1'000LL) + "us";
    return out + std::to_string(ns) + "ns";
  }
  long long s = ns / 1'000'000'000LL;
  long long h = s / 3600, m = (s % 3600) / 60, sec = s % 60;
  if (h) out += std::to_string(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (sec) out += std::to_string(sec) + "s";
  return out;
}

}  // namespace rtagent::profile
