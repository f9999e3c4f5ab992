#include "profile/builtin_suites.h"

#include "profile/builtin_suites_text.h"
#include "profile/diagnostics.h"
#include "profile/reader.h"

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

std::string BuiltinSuiteHelp(const std::string& default_name) {
  std::string text = default_name.empty() ? "" : default_name + " (default)";
  for (const std::string& name : BuiltinSuiteNames()) {
    if (name != default_name) text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

std::string UnknownSuiteHint(const std::string& name) {
  const std::vector<std::string> names = BuiltinSuiteNames();
  const std::string near = NearestWord(name, names);
  return (near.empty() ? std::string() : "did you mean \"" + near + "\"? ") + "the built-in suites are " +
         JoinChoices(names) + ", or give a suite file's path (checks/README.md)";
}

bool IsSuiteFile(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
}

}  // namespace rtagent::profile
