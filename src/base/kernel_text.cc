#include "base/kernel_text.h"

#include <algorithm>
#include <charconv>

namespace rtagent {

bool IsKernelSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\v' || c == '\f';
}

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && IsKernelSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsKernelSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string Trim(std::string_view s) { return std::string(TrimView(s)); }

std::vector<std::string_view> SplitWs(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsKernelSpace(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !IsKernelSpace(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

size_t SplitWsInto(std::string_view s, std::string_view* out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; n < max;) {
    while (i < s.size() && IsKernelSpace(s[i])) ++i;
    if (i >= s.size()) break;
    size_t b = i;
    while (i < s.size() && !IsKernelSpace(s[i])) ++i;
    out[n++] = s.substr(b, i - b);
  }
  return n;
}

std::vector<std::string_view> SplitChar(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t b = 0;
  for (;;) {
    size_t e = s.find(sep, b);
    if (e == std::string_view::npos) {
      out.push_back(s.substr(b));
      return out;
    }
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t b = 0;
  while (b < s.size()) {
    size_t e = s.find('\n', b);
    if (e == std::string_view::npos) e = s.size();
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

bool HasWord(std::string_view s, std::string_view word) {
  for (auto w : SplitWs(s)) {
    if (w == word) return true;
  }
  return false;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<long long> ParseInt(std::string_view s) {
  s = TrimView(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<unsigned long long> ParseUint(std::string_view s) {
  s = TrimView(s);
  unsigned long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::string> ParseBracketChoice(std::string_view text) {
  for (std::string_view f : SplitWs(text)) {
    if (f.size() >= 2 && ((f.front() == '[' && f.back() == ']') || (f.front() == '(' && f.back() == ')'))) {
      return std::string(f.substr(1, f.size() - 2));
    }
  }
  return std::nullopt;
}

std::vector<std::string> BracketChoices(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view f : SplitWs(text)) {
    if (f.size() >= 2 && ((f.front() == '[' && f.back() == ']') || (f.front() == '(' && f.back() == ')'))) {
      f = f.substr(1, f.size() - 2);
    }
    out.emplace_back(f);
  }
  return out;
}

std::optional<std::string> FindKeyValue(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t e = text.find('\n', pos);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(pos, e - pos);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      return Trim(line.substr(key.size() + 1));
    }
    pos = e + 1;
  }
  return std::nullopt;
}

std::string JoinSome(const std::vector<std::string>& items, size_t most) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > most) out += " and " + std::to_string(items.size() - most) + " more";
  return out;
}

}  // namespace rtagent
