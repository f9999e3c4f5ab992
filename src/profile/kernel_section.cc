// kernel (Chapters 2 and 4): what the running kernel must be. Read by the kernel check and
// the lint; nothing here is tuned.
#include <charconv>
#include <regex>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

void ReadMinVersion(LoadContext& c, KernelConfig& k, const YamlNode* v, const std::string& what) {
  if (v == nullptr) return;
  auto s = c.reader().String(*v, what);
  static const std::regex kVersion("([0-9]+)\\.([0-9]+)(\\.([0-9]+))?");
  std::smatch m;
  // Each part as an int; nullopt when the digits do not fit one ("6.99999999999").
  auto part = [&](size_t i) -> std::optional<int> {
    if (!m[i].matched) return 0;
    int n = 0;
    if (std::from_chars(&*m[i].first, &*m[i].first + m[i].length(), n).ec != std::errc()) return std::nullopt;
    return n;
  };
  if (s && std::regex_match(*s, m, kVersion)) {
    const auto major = part(1), minor = part(2), patch = part(4);
    if (!major || !minor || !patch) {
      c.diags().Error(v->mark, "'" + what + "' is \"" + *s + "\": a part of it is too large to be a kernel version",
                      "write the version uname -r starts with, e.g. \"6.6\" or \"6.6.30\"");
      return;
    }
    KernelVersion kv{*major, *minor, *patch};
    Assign(&k.min_version, std::optional<KernelVersion>(kv), v->mark);
  } else if (s) {
    c.diags().Error(v->mark, "'" + what + "' must be a version like \"6.1\" or \"6.6.30\", got \"" + *s + "\"",
                    "quote it so YAML keeps it as text: min_version: \"6.10\"");
  }
}

}  // namespace

const Section<KernelConfig>& KernelSection() {
  static const Section<KernelConfig> kSection{
      "kernel",
      {
          Choice("preempt_rt", &KernelConfig::preempt_rt, PreemptRtNames(), PreemptRtRequirement::kPreferred,
                 "a kernel without PREEMPT_RT FAILs (`required`) or WARNs (`preferred`)"),
          Custom<KernelConfig>("min_version", "string `\"6.1\"` or `\"6.6.30\"`", "none", "oldest acceptable kernel",
                               ReadMinVersion),
          Choice("rt_safety_net", &KernelConfig::rt_safety_net, SafetyNetNames(), SafetyNetExpectation::kKeep,
                 "what `verify` expects of the RT safety net"),
      }};
  return kSection;
}

}  // namespace rtagent::profile
