#include "tune/change.h"

#include <sstream>

#include "base/cpuset.h"

namespace rtagent {
namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// "always [madvise] never" -> "madvise"; a value without brackets is its own choice.
std::string Chosen(std::string_view s) {
  size_t open = s.find('[');
  size_t close = s.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return Trim(s);
  return Trim(s.substr(open + 1, close - open - 1));
}

std::string Words(std::string_view s) {
  std::istringstream in{std::string(s)};
  std::string w, out;
  while (in >> w) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

std::string WritableValue(Compare how, std::string_view read_back) {
  // Everything else goes back exactly as read (actuators already trim kernel attributes; a
  // boot loader file keeps its final newline).
  return how == Compare::kChoice ? Chosen(read_back) : std::string(read_back);
}

std::string_view CompareName(Compare c) {
  switch (c) {
    case Compare::kExact: return "exact";
    case Compare::kInteger: return "integer";
    case Compare::kCpuList: return "cpulist";
    case Compare::kCpuMask: return "cpumask";
    case Compare::kChoice: return "choice";
    case Compare::kWords: return "words";
  }
  return "exact";
}

bool ParseCompare(std::string_view name, Compare* out) {
  for (Compare c : {Compare::kExact, Compare::kInteger, Compare::kCpuList, Compare::kCpuMask, Compare::kChoice,
                    Compare::kWords}) {
    if (CompareName(c) == name) {
      *out = c;
      return true;
    }
  }
  return false;
}

bool SameValue(Compare how, std::string_view current, std::string_view wanted) {
  switch (how) {
    case Compare::kExact:
      return Trim(current) == Trim(wanted);
    case Compare::kInteger: {
      try {
        return std::stoll(Trim(current)) == std::stoll(Trim(wanted));
      } catch (...) {
        return Trim(current) == Trim(wanted);
      }
    }
    case Compare::kCpuList: {
      auto a = CpuSet::ParseList(current), b = CpuSet::ParseList(wanted);
      return a.ok() && b.ok() ? *a == *b : Trim(current) == Trim(wanted);
    }
    case Compare::kCpuMask: {
      auto a = CpuSet::ParseMask(current), b = CpuSet::ParseMask(wanted);
      return a.ok() && b.ok() ? *a == *b : Trim(current) == Trim(wanted);
    }
    case Compare::kChoice:
      return Chosen(current) == Chosen(wanted);
    case Compare::kWords:
      return Words(current) == Words(wanted);
  }
  return false;
}

}  // namespace rtagent
