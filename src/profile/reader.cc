#include "profile/reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "profile/duration.h"

namespace rtagent::profile {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const char* kCpuHint =
    "write CPUs as a list \"0-3,8\", a number 3, a YAML list [1, 2], \"1-N\" (N is the last CPU) "
    "or a mask \"0xc\"";

}  // namespace

std::string JoinChoices(const std::vector<std::string>& allowed) {
  std::string out;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += (i + 1 == allowed.size()) ? " or " : ", ";
    out += allowed[i];
  }
  return out;
}

void FieldReader::WrongType(const YamlNode& node, const std::string& what, const std::string& expected,
                            const std::string& hint) {
  diags_->Error(node.mark, "wrong type for '" + what + "': expected " + expected + ", got " + node.Describe(), hint);
}

bool FieldReader::CheckKeys(const YamlNode& node, const std::vector<std::string>& keys, const std::string& what,
                            const std::string& kind_of_key) {
  for (size_t i = 0; i < node.keys.size(); ++i) {
    const std::string& k = node.keys[i];
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    std::string where = what.empty() ? "at the top level" : "in '" + what + "'";
    std::string nearest = NearestWord(k, keys);
    std::string takes = (what.empty() ? "the top level" : "'" + what + "'") + " takes: " + JoinChoices(keys);
    std::string hint = nearest.empty() ? takes : "did you mean '" + nearest + "'? (" + takes + ")";
    diags_->Error(node.key_marks[i], "unknown " + kind_of_key + " '" + k + "' " + where, hint);
  }
  return true;
}

bool FieldReader::Map(const YamlNode& node, const std::vector<std::string>& keys, const std::string& what) {
  if (!node.IsMap()) {
    WrongType(node, what.empty() ? "the top level" : what, "a mapping (key: value lines)",
              "write its keys indented on the lines under '" + what + ":', e.g. '  " + keys.front() + ": ...'");
    return false;
  }
  return CheckKeys(node, keys, what, "key");
}

bool FieldReader::MapWithKeys(const YamlNode& node, const std::vector<std::string>& keys, const std::string& what,
                              const std::string& kind_of_key) {
  if (!node.IsMap()) {
    WrongType(node, what, "a mapping (key: value lines)", "write one '" + kind_of_key + ": value' per line under '" + what + "'");
    return false;
  }
  return CheckKeys(node, keys, what, kind_of_key);
}

bool FieldReader::AnyMap(const YamlNode& node, const std::string& what) {
  if (node.IsMap()) return true;
  WrongType(node, what, "a mapping of names to settings",
            "give each entry a name, indented under '" + what + ":', with its settings indented under the name");
  return false;
}

std::optional<std::string> FieldReader::Scalar(const YamlNode& node, const std::string& what,
                                               const std::string& expected, const std::string& hint) {
  if (node.IsScalar()) return node.scalar;
  WrongType(node, what, expected, hint);
  return std::nullopt;
}

std::optional<std::string> FieldReader::String(const YamlNode& node, const std::string& what) {
  return Scalar(node, what, "a string", "write the value on the same line as its key");
}

std::optional<long long> FieldReader::Int(const YamlNode& node, const std::string& what, long long min, long long max) {
  std::string range = std::to_string(min) + ".." + std::to_string(max);
  auto s = Scalar(node, what, "an integer (" + range + ")", "write a whole number, e.g. '" + what + ": " + std::to_string(std::max(min, 0LL)) + "'");
  if (!s) return std::nullopt;
  long long v = 0;
  const char* b = s->data();
  const char* e = s->data() + s->size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e || s->empty()) {
    diags_->Error(node.mark, "'" + what + "' must be an integer, got \"" + *s + "\"",
                  "write a whole number in " + range + " without units");
    return std::nullopt;
  }
  if (v < min || v > max) {
    std::string why = (v < 0 && min >= 0) ? " (it cannot be negative)" : "";
    diags_->Error(node.mark, "'" + what + "' is " + std::to_string(v) + ", out of range " + range + why,
                  "use a value from " + std::to_string(min) + " to " + std::to_string(max));
    return std::nullopt;
  }
  return v;
}

std::optional<double> FieldReader::Number(const YamlNode& node, const std::string& what, double min, double max) {
  auto s = Scalar(node, what, "a number", "write a number, e.g. '" + what + ": 10'");
  if (!s) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s->c_str(), &end);
  if (s->empty() || end != s->c_str() + s->size() || !std::isfinite(v)) {
    diags_->Error(node.mark, "'" + what + "' must be a number, got \"" + *s + "\"", "write a plain number without units");
    return std::nullopt;
  }
  if (v < min || v > max) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g..%g", min, max);
    std::string why = v < 0 ? " (it cannot be negative)" : "";
    diags_->Error(node.mark, "'" + what + "' is " + *s + ", out of range " + buf + why, std::string("use a value in ") + buf);
    return std::nullopt;
  }
  return v;
}

std::optional<bool> FieldReader::Bool(const YamlNode& node, const std::string& what) {
  auto s = Scalar(node, what, "true or false", "write 'true' or 'false'");
  if (!s) return std::nullopt;
  std::string l = Lower(*s);
  if (l == "true" || l == "yes" || l == "on" || l == "1") return true;
  if (l == "false" || l == "no" || l == "off" || l == "0") return false;
  diags_->Error(node.mark, "'" + what + "' must be true or false, got \"" + *s + "\"", "write 'true' or 'false'");
  return std::nullopt;
}

std::optional<Duration> FieldReader::DurationValue(const YamlNode& node, const std::string& what, Duration min) {
  auto s = Scalar(node, what, "a duration", "write a number with a unit: 500ms, 10s, 2h");
  if (!s) return std::nullopt;
  auto d = ParseDuration(*s);
  if (!d) {
    diags_->Error(node.mark, "'" + what + "': " + d.error().message,
                  "write a number with a unit: 250us, 500ms, 10s, 5m, 2h (units: ns, us, ms, s, m, h, d)");
    return std::nullopt;
  }
  if (*d < min) {
    diags_->Error(node.mark, "'" + what + "' is " + *s + ", shorter than the minimum " + FormatDuration(min),
                  "use at least " + FormatDuration(min));
    return std::nullopt;
  }
  return *d;
}

std::optional<int> FieldReader::Choice(const YamlNode& node, const std::string& what,
                                       const std::vector<std::string>& allowed) {
  auto s = Scalar(node, what, "one of " + JoinChoices(allowed), "write one of: " + JoinChoices(allowed));
  if (!s) return std::nullopt;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == *s) return static_cast<int>(i);
  }
  std::string nearest = NearestWord(*s, allowed);
  std::string hint = "allowed: " + JoinChoices(allowed);
  if (!nearest.empty()) hint = "did you mean '" + nearest + "'? (" + hint + ")";
  diags_->Error(node.mark, "bad value \"" + *s + "\" for '" + what + "'", hint);
  return std::nullopt;
}

std::optional<Regex> FieldReader::RegexValue(const YamlNode& node, const std::string& what) {
  auto s = Scalar(node, what, "a regular expression", "quote the expression: \"irq/[0-9]+-eth0\"");
  if (!s) return std::nullopt;
  if (s->empty()) {
    diags_->Error(node.mark, "'" + what + "' is an empty regular expression", "write the name to match, e.g. \"irq/.*-eth0\"");
    return std::nullopt;
  }
  try {
    Regex r;
    r.pattern = *s;
    r.compiled = std::make_shared<const std::regex>(*s, std::regex::ECMAScript);
    return r;
  } catch (const std::regex_error& e) {
    diags_->Error(node.mark, "'" + what + "' is not a valid regular expression \"" + *s + "\": " + e.what(),
                  "use ECMAScript syntax and escape special characters (\\., \\[); the whole name must match");
    return std::nullopt;
  }
}

std::optional<std::vector<std::string>> FieldReader::StringList(const YamlNode& node, const std::string& what,
                                                                bool scalar_ok) {
  if (node.IsScalar() && scalar_ok) return std::vector<std::string>{node.scalar};
  if (!node.IsSequence()) {
    WrongType(node, what, "a list", "write a YAML list: [a, b] or one '- item' per line");
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (const YamlNode& item : node.items) {
    if (!item.IsScalar()) {
      WrongType(item, what + "[]", "a string", "each item of '" + what + "' is one string");
      ok = false;
      continue;
    }
    out.push_back(item.scalar);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<CpuSpec> FieldReader::Cpus(const YamlNode& node, const std::string& what, CpuKeywords kw) {
  CpuSpec spec;
  std::vector<const YamlNode*> parts;
  if (node.IsScalar()) {
    spec.text = node.scalar;
    std::string l = Lower(node.scalar);
    auto keyword = [&](CpuKeyword k, bool allowed, const CpuSet& set) -> std::optional<CpuSpec> {
      if (!allowed) {
        diags_->Error(node.mark, "'" + what + "' cannot be \"" + node.scalar + "\"",
                      std::string(kCpuHint) + (kw.housekeeping ? ", or housekeeping/isolated" : ""));
        return std::nullopt;
      }
      spec.keyword = k;
      spec.cpus = set;
      return spec;
    };
    if (l == "auto") return keyword(CpuKeyword::kAuto, kw.auto_, CpuSet());
    if (l == "housekeeping") return keyword(CpuKeyword::kHousekeeping, kw.housekeeping, housekeeping_);
    if (l == "isolated") return keyword(CpuKeyword::kIsolated, kw.isolated, isolated_);
    if (l == "keep") return keyword(CpuKeyword::kKeep, kw.keep, CpuSet());
    if (l == "none") return spec;  // the empty set
    if (l == "all") {
      spec.cpus = system_->possible;
      return spec;
    }
    parts.push_back(&node);
  } else if (node.IsSequence()) {
    for (const YamlNode& item : node.items) {
      if (!spec.text.empty()) spec.text += ",";
      spec.text += item.scalar;
      parts.push_back(&item);
    }
  } else {
    WrongType(node, what, "a CPU list (\"0-3\", 3 or [1, 2])", kCpuHint);
    return std::nullopt;
  }
  bool ok = true;
  for (const YamlNode* p : parts) {
    if (!p->IsScalar()) {
      WrongType(*p, what + "[]", "a CPU number or range", kCpuHint);
      ok = false;
      continue;
    }
    auto set = CpuSet::Parse(p->scalar, system_->NrIds());
    if (!set) {
      diags_->Error(p->mark, "'" + what + "': " + set.error().message, kCpuHint);
      ok = false;
      continue;
    }
    CpuSet missing = set->Minus(system_->possible);
    if (!missing.Empty()) {
      diags_->Error(p->mark,
                    "'" + what + "' names CPU " + missing.ToList() + ", which this system does not have (CPUs " +
                        system_->possible.ToList() + ")",
                    "use CPUs within " + system_->possible.ToList() + ", or \"N\" for the last one; --root DIR checks "
                    "against another system's tree");
      ok = false;
      continue;
    }
    CpuSet offline = set->Minus(system_->online);
    if (!offline.Empty()) {
      diags_->Warning(p->mark, "'" + what + "' names CPU " + offline.ToList() + ", which is offline (online: " +
                                   system_->online.ToList() + ")",
                      "bring the CPU online (sys/devices/system/cpu/cpuN/online) or leave it out");
    }
    spec.cpus = spec.cpus.Union(*set);
  }
  if (!ok) return std::nullopt;
  return spec;
}

}  // namespace rtagent::profile
