// checks (issue 4: verify): the suite verify runs by default. Each check declares its own block
// under checks.<name> (its toggle and settings) in its file; they join this section at start-up
// (language.cc).
#include <algorithm>
#include <filesystem>

#include "profile/builtin_suites.h"
#include "profile/sections.h"

namespace rtagent::profile {
namespace {

namespace fs = std::filesystem;

// A built-in suite (checks/*.yaml compiled in) or a suite file, relative to the profile that
// names it. The file's contents are checked when verify loads it.
void ReadSuite(LoadContext& c, ChecksConfig& checks, const YamlNode* v, const std::string& what) {
  checks.suite.value = kDefaultSuite;
  if (v == nullptr) return;
  auto s = c.reader().String(*v, what);
  if (!s) return;
  const std::vector<std::string> names = BuiltinSuiteNames();
  if (std::find(names.begin(), names.end(), *s) != names.end()) {
    Assign(&checks.suite, *s, v->mark);
    return;
  }
  if (!IsSuiteFile(*s)) {
    c.diags().Error(v->mark, "unknown suite \"" + *s + "\" in '" + what + "'", UnknownSuiteHint(*s));
    return;
  }
  fs::path file(*s);
  if (file.is_relative()) file = fs::path(v->mark.file).parent_path() / file;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    c.diags().Error(v->mark, "the suite file '" + *s + "' in '" + what + "' does not exist (looked for " +
                                 file.lexically_normal().string() + ")",
                    "give the path relative to this profile, or a built-in suite: " + JoinChoices(names));
    return;
  }
  Assign(&checks.suite, file.lexically_normal().string(), v->mark);
}

std::string SuiteType() {
  std::string out;
  for (const std::string& n : BuiltinSuiteNames()) out += Code(n) + ", ";
  return out + "or a suite file's path (relative to the profile)";
}

}  // namespace

Key<ChecksConfig> SuiteKey() {
  return Custom<ChecksConfig>("suite", SuiteType(), Code(kDefaultSuite), "the suite `verify` runs by default", ReadSuite);
}

}  // namespace rtagent::profile
