#include "tune/change.h"

#include "base/cpuset.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

// "always [madvise] never" -> "madvise"; a value without brackets is its own choice.
std::string Chosen(std::string_view s) { return ParseBracketChoice(s).value_or(Trim(s)); }

// "a  b\n" -> "a b".
std::string Words(std::string_view s) {
  std::string out;
  for (std::string_view w : SplitWs(s)) out += (out.empty() ? "" : " ") + std::string(w);
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
