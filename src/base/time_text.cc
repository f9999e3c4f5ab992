#include "base/time_text.h"

#include <ctime>

namespace rtagent {

namespace {

std::string FormatUtc(int64_t unix_seconds, const char* format) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace

int64_t UnixNow() { return static_cast<int64_t>(std::time(nullptr)); }

std::string IsoTime(int64_t unix_seconds) { return FormatUtc(unix_seconds, "%Y-%m-%dT%H:%M:%SZ"); }

std::string IsoTimeBasic(int64_t unix_seconds) { return FormatUtc(unix_seconds, "%Y%m%dT%H%M%SZ"); }

std::optional<int64_t> ParseIsoTime(std::string_view text) {
  if (text.size() != 20) return std::nullopt;
  const std::string s(text);
  std::tm tm{};
  const char* end = ::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const int64_t t = static_cast<int64_t>(::timegm(&tm));
  // strptime accepts a 61st second or a 31st of February's digits; the stamp must read back.
  if (IsoTime(t) != s) return std::nullopt;
  return t;
}

}  // namespace rtagent
