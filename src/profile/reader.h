// Typed reading of profile values out of a YamlNode tree: every wrong type, bad value and
// unknown key becomes a diagnostic at the value's file:line:column, with a hint.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/model.h"
#include "profile/yaml_tree.h"

namespace rtagent::profile {

/// Which keywords a CPU list field accepts besides plain lists.
struct CpuKeywords {
  bool auto_ = false;
  bool housekeeping = true;
  bool isolated = true;
  bool keep = false;
};

/// Reads values of one profile, reporting to `diags`. Each reader returns nullopt (after
/// reporting) when the value is unusable, so a caller keeps its default and reads on: one run
/// reports every problem.
class FieldReader {
 public:
  FieldReader(Diagnostics* diags, const SystemCpus* system) : diags_(diags), system_(system) {}

  Diagnostics* diags() const { return diags_; }

  /// Checks that `node` is a mapping whose keys are among `keys` (a section's declaration,
  /// keys.h); reports each unknown key with the nearest known one. `what` names the mapping in
  /// messages ("cores.boot"). False when the node is not a mapping.
  bool Map(const YamlNode& node, const std::vector<std::string>& keys, const std::string& what);
  /// The same against an explicit key list (memory.sysctl).
  bool MapWithKeys(const YamlNode& node, const std::vector<std::string>& keys, const std::string& what,
                   const std::string& kind_of_key);
  /// Checks that `node` is a mapping (of user-chosen names); false otherwise.
  bool AnyMap(const YamlNode& node, const std::string& what);

  std::optional<std::string> String(const YamlNode& node, const std::string& what);
  std::optional<long long> Int(const YamlNode& node, const std::string& what, long long min, long long max);
  /// A number of microseconds, a count, a rate: any real number in [min, max].
  std::optional<double> Number(const YamlNode& node, const std::string& what, double min, double max);
  /// true/false, yes/no, on/off, 1/0.
  std::optional<bool> Bool(const YamlNode& node, const std::string& what);
  std::optional<Duration> DurationValue(const YamlNode& node, const std::string& what, Duration min);
  /// One of `allowed`, returned as its index (the enum's value).
  std::optional<int> Choice(const YamlNode& node, const std::string& what, const std::vector<std::string>& allowed);
  /// A regex, compiled to check it (std::regex, ECMAScript).
  std::optional<Regex> RegexValue(const YamlNode& node, const std::string& what);
  /// A list of strings; a single string is a list of one when `scalar_ok`.
  std::optional<std::vector<std::string>> StringList(const YamlNode& node, const std::string& what, bool scalar_ok);
  /// A CPU list: "0-3,8", 3, [1, 2, "4-5"], "1-N", "0xc", "all", "none", or an allowed keyword.
  /// Keywords resolve against SetCoreSets(); CPUs the system lacks are errors, offline ones warnings.
  std::optional<CpuSpec> Cpus(const YamlNode& node, const std::string& what, CpuKeywords keywords);

  /// The profile's housekeeping and isolated CPUs, once known, for the keywords.
  void SetCoreSets(const CpuSet& housekeeping, const CpuSet& isolated) {
    housekeeping_ = housekeeping;
    isolated_ = isolated;
  }
  const SystemCpus& system() const { return *system_; }

  /// Reports "wrong type for 'what': expected `expected`, got <node>".
  void WrongType(const YamlNode& node, const std::string& what, const std::string& expected, const std::string& hint);

 private:
  std::optional<std::string> Scalar(const YamlNode& node, const std::string& what, const std::string& expected,
                                    const std::string& hint);
  bool CheckKeys(const YamlNode& node, const std::vector<std::string>& keys, const std::string& what,
                 const std::string& kind_of_key);

  Diagnostics* diags_;
  const SystemCpus* system_;
  CpuSet housekeeping_;
  CpuSet isolated_;
};

/// Sets a Marked value and its mark in one step.
template <typename T, typename U>
void Assign(Marked<T>* field, U&& value, const SourceMark& mark) {
  field->value = std::forward<U>(value);
  field->mark = mark;
}

/// Human list "a, b or c" of the allowed values for hints.
std::string JoinChoices(const std::vector<std::string>& allowed);

}  // namespace rtagent::profile
