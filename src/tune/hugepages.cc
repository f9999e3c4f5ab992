#include "tune/hugepages.h"

#include <cctype>
#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

std::optional<long long> ParseHugepageSize(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  auto n = ParseInt(std::string_view(text).substr(0, digits));
  if (!n || *n <= 0) return std::nullopt;
  std::string unit;
  for (char ch : text.substr(digits)) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (unit == "k" || unit == "kb") return *n;
  if (unit == "m" || unit == "mb") return *n * 1024;
  if (unit == "g" || unit == "gb") return *n * 1024 * 1024;
  return std::nullopt;
}

std::string HugepageSizeText(long long size_kb) {
  if (size_kb % (1024 * 1024) == 0) return std::to_string(size_kb / (1024 * 1024)) + "G";
  if (size_kb % 1024 == 0) return std::to_string(size_kb / 1024) + "M";
  return std::to_string(size_kb) + "K";
}

std::string HugepagePoolPath(long long size_kb, std::optional<int> node) {
  return node ? kpath::NodeHugepagesNr(*node, size_kb) : kpath::HugepagesNr(size_kb);
}

std::string HugepagePoolName(long long size_kb, std::optional<int> node) {
  return HugepageSizeText(size_kb) + " huge pages" + (node ? " on node " + std::to_string(*node) : "");
}

Result<void> HugepagesActuator::Write(const std::string& key, const std::string& value) {
  auto want = ParseInt(value);
  if (!want) return InvalidInput(key + ": \"" + value + "\" is not a page count");
  auto before = root_.ReadTrimmed(key);
  if (!before) return before.error();
  if (auto w = root_.Write(key, value); !w) return w;
  // hugetlbpage.rst: "the kernel will attempt to adjust the number of huge pages in the pool
  // to the specified number" and reads back what it reached; the write itself succeeds.
  auto got_text = root_.ReadTrimmed(key);
  if (!got_text) return got_text.error();
  auto got = ParseInt(*got_text);
  if (!got || *got >= *want) return {};
  auto back = root_.Write(key, *before);
  return Error{key + ": the kernel found " + std::to_string(*got) + " of the " + std::to_string(*want) +
                   " huge pages asked for (not enough free memory in blocks of that size); " +
                   (back ? "the pool is back at " + *before
                         : "putting it back to " + *before + " failed too: " + back.error().message),
               ENOMEM};
}

}  // namespace rtagent
