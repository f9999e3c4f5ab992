#include "profile/builtin_suites.h"

#include "profile/builtin_suites_text.h"

namespace rtagent::profile {

const std::vector<BuiltinSuite>& BuiltinSuites() {
  static const std::vector<BuiltinSuite> kSuites(std::begin(kBuiltinSuiteTexts), std::end(kBuiltinSuiteTexts));
  return kSuites;
}

std::vector<std::string> BuiltinSuiteNames() {
  std::vector<std::string> names;
  for (const BuiltinSuite& s : BuiltinSuites()) names.push_back(s.name);
  return names;
}

bool IsSuiteFile(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
}

}  // namespace rtagent::profile
