#include "profile/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace rtagent::profile {
namespace {

struct Unit {
  std::string_view name;
  long long ns;
};

// A unit is matched whole. Microseconds are "us", the micro sign (U+00B5, which is what a
// keyboard's µ types) or the Greek mu (U+03BC, which looks the same).
constexpr Unit kUnits[] = {
    {"min", 60'000'000'000LL}, {"ns", 1LL}, {"us", 1'000LL}, {"\xC2\xB5s", 1'000LL}, {"\xCE\xBCs", 1'000LL}, {"ms", 1'000'000LL},
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
  const Unit* previous = nullptr;
  while (!s.empty()) {
    size_t n = 0;
    bool dot = false;
    while (n < s.size() && (std::isdigit(static_cast<unsigned char>(s[n])) || (s[n] == '.' && !dot))) {
      if (s[n] == '.') dot = true;
      ++n;
    }
    if (n == 0 || (n == 1 && dot)) return Bad(text, "expected a number before \"" + std::string(s) + "\"");
    // strtold, not stold: a number of a thousand digits is "too long" below, not an exception.
    const std::string digits(s.substr(0, n));
    long double number = std::strtold(digits.c_str(), nullptr);
    s.remove_prefix(n);
    // The unit is everything up to the next number: "10sec" is the unknown unit "sec".
    size_t u = 0;
    while (u < s.size() && !std::isdigit(static_cast<unsigned char>(s[u])) && s[u] != '.') ++u;
    const std::string_view word = s.substr(0, u);
    const size_t first = word.find_first_not_of(" \t");
    std::string_view name = first == std::string_view::npos ? std::string_view() : word.substr(first);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.remove_suffix(1);  // "1h 30m"
    const Unit* unit = nullptr;
    for (const Unit& x : kUnits) {
      if (name == x.name) unit = &x;
    }
    if (word.empty()) return Bad(text, "the number needs a unit (ns, us, ms, s, m, h, d)");
    if (unit == nullptr) {
      return Bad(text, "unknown unit \"" + std::string(name) + "\" (use ns, us or µs, ms, s, m or min, h, d)");
    }
    if (first != 0) {
      return Bad(text, "a space between the number and its unit; write \"" + digits + std::string(name) + "\"");
    }
    // "1h30m": each unit once, the largest first, so "30s2h" or "1s1s" is a slip, not a sum.
    if (previous != nullptr && unit->ns >= previous->ns) {
      return Bad(text, "\"" + std::string(unit->name) + "\" after \"" + std::string(previous->name) +
                           "\"; write each unit once, the largest first, as in 1h30m");
    }
    previous = unit;
    s.remove_prefix(u);
    total += number * static_cast<long double>(unit->ns);
  }
  if (!(total <= 9.0e18L)) return Bad(text, "too long (at most about 292 years)");
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
