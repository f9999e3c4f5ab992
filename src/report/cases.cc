#include "report/cases.h"

#include <cctype>
#include <sstream>

#include "report/format.h"

namespace rtagent {
namespace {

// Lower case; every character outside [a-z0-9.] becomes one '-'; no leading or trailing '-'.
std::string Slug(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    const char l = static_cast<char>(std::tolower(c));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.') {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "criterion" : out;
}

std::string Units(const std::string& unit) {
  if (unit == "µs") return "us";
  if (unit.empty()) return "count";
  return Slug(unit);
}

}  // namespace

std::string RenderCases(const Verdict& v) {
  std::ostringstream o;
  for (const Criterion& k : v.criteria) {
    const std::string name = (k.cpu ? "cpu" + std::to_string(*k.cpu) : std::string("run")) + "-" + Slug(k.name);
    const bool judged_only = k.name.rfind("preflight ", 0) == 0 || k.name.rfind("placement ", 0) == 0;
    o << name << " " << (k.pass ? "pass" : "fail") << " ";
    if (k.measured && !judged_only) {
      o << FormatWholeOrTenth(*k.measured) << " " << Units(k.unit);
    } else {
      o << "- -";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace rtagent
