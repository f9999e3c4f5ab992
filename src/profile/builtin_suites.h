// The check suites compiled into the binary (checks/*.yaml; CMakeLists.txt's
// RTAGENT_BUILTIN_SUITES is the one list of their names). checks.suite accepts their names;
// the check runner parses their text.
#pragma once

#include <string>
#include <vector>

namespace rtagent::profile {

/// One built-in suite: its name and the YAML text of checks/<name>.yaml.
struct BuiltinSuite {
  std::string name;
  std::string yaml;
};

/// Every built-in suite, in CMakeLists.txt's order (commission, boot, ci).
const std::vector<BuiltinSuite>& BuiltinSuites();
/// Their names, in the same order.
std::vector<std::string> BuiltinSuiteNames();
/// The names for a help line, in that order, or with `default_name` first and marked:
/// "commission, boot, ci"; "boot (default), commission, ci".
std::string BuiltinSuiteHelp(const std::string& default_name = "");

/// The suite verify and commission run when the profile names none (checks.suite's default).
inline constexpr char kDefaultSuite[] = "commission";
/// The fast suite: accept's pre-flight by default, and the checks hold runs at every boot.
inline constexpr char kBootSuite[] = "boot";
/// What to say about a suite name that is neither built in nor a file: the nearest built-in
/// name when one is close, the built-in names, and that a suite file's path works too.
std::string UnknownSuiteHint(const std::string& name);
/// True when `name` names a suite file rather than a built-in suite: it has a '/' or ends in
/// .yaml or .yml.
bool IsSuiteFile(const std::string& name);

}  // namespace rtagent::profile
