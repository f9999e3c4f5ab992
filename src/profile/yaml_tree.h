// A YAML document as a small tree whose every node and key remembers the file, line and column
// it came from. yaml-cpp's marks carry no file name, and a profile is merged from several files
// (include:), so the loader converts each file to this tree and merges trees.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "profile/diagnostics.h"

namespace rtagent::profile {

/// One node of a parsed profile file.
struct YamlNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };

  Kind kind = Kind::kNull;
  SourceMark mark;               ///< where the value starts (the key's position for a null value)
  std::string scalar;            ///< kScalar: the text as written, without quotes
  bool quoted = false;           ///< kScalar: written in quotes (so "yes" is a string, not a bool)
  std::vector<YamlNode> items;   ///< kSequence: the items; kMap: the values, parallel to `keys`
  std::vector<std::string> keys;        ///< kMap: the keys in file order
  std::vector<SourceMark> key_marks;    ///< kMap: where each key is written

  bool IsNull() const { return kind == Kind::kNull; }
  bool IsScalar() const { return kind == Kind::kScalar; }
  bool IsSequence() const { return kind == Kind::kSequence; }
  bool IsMap() const { return kind == Kind::kMap; }
  /// The value of `key` in a map, or nullptr when absent (or this is not a map).
  const YamlNode* Find(std::string_view key) const;
  /// The position of `key` in a map, or -1.
  int IndexOf(std::string_view key) const;
  /// "a mapping", "a list", "a number (2)", "a string (\"abc\")", "nothing": for "expected X,
  /// got Y" messages. A quoted "2" is a string.
  std::string Describe() const;
};

/// Parses YAML text into a tree, reporting syntax errors (with yaml-cpp's mark), duplicate keys
/// and keys that are not scalars to `diags` under the name `file`. Returns a kNull node when the
/// text holds no document (empty or comments only) or could not be parsed; `*parsed` tells the
/// two apart.
YamlNode ParseYaml(const std::string& text, const std::string& file, Diagnostics* diags, bool* parsed);

/// Deep-merges `over` onto `base`: maps merge key by key (recursively), any other value in
/// `over` replaces the one in `base`, including lists and null (null resets a value to its
/// default). Keys new in `over` are appended in their order.
void MergeYaml(YamlNode* base, const YamlNode& over);

/// The document's content as compact JSON, the same for the same values however they were
/// written: mapping keys sorted, every scalar as its text, comments, quoting, layout and the
/// files it came from gone. What a profile's digest covers.
std::string CanonicalJson(const YamlNode& node);

}  // namespace rtagent::profile
