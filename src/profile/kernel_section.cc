// kernel (Chapters 2 and 4): what the running kernel must be. Read by the kernel check and
// the lint; nothing here is tuned.
#include <regex>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

void ReadMinVersion(LoadContext& c, KernelConfig& k, const YamlNode* v, const std::string& what) {
  if (v == nullptr) return;
  auto s = c.reader().String(*v, what);
  static const std::regex kVersion("([0-9]+)\\.([0-9]+)(\\.([0-9]+))?");
  std::smatch m;
  if (s && std::regex_match(*s, m, kVersion)) {
    KernelVersion kv{std::stoi(m[1]), std::stoi(m[2]), m[4].matched ? std::stoi(m[4]) : 0};
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
