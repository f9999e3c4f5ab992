#include "tune/refusals.h"

#include <algorithm>
#include <cerrno>
#include <tuple>
#include <nlohmann/json.hpp>

#include "base/file_trust.h"
#include "base/kernel_paths.h"

namespace rtagent {

using nlohmann::json;

namespace {

// The file's format; another one is not read (another rtagent wrote it).
constexpr int kFormat = 1;

bool Field(const json& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

}  // namespace

std::string RefusalRecord::Path() { return kpath::kRunDir + "/refused.json"; }

Result<std::vector<Refusal>> RefusalRecord::Load(const SysRoot& root) {
  const std::string file = root.HostPath(Path());
  if (auto bad = FindUntrusted(file, ProcessFileTrust())) {
    return InvalidInput(file + ": not read as root: " + bad->message + " (" + bad->hint + ")");
  }
  auto text = root.Read(Path());
  if (!text) {
    if (text.error().err == ENOENT || text.error().err == ENOTDIR) return std::vector<Refusal>{};
    return MakeError(file + ": " + text.error().message, text.error().err);
  }
  const json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  auto corrupt = [&](const std::string& why) {
    return InvalidInput(file + ": " + why + "; it is rewritten by the next `rtagent apply`, or remove it: rm " + file);
  };
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("refused") || !doc["refused"].is_array()) {
    return corrupt("not the record of refusals rtagent writes (corrupt or truncated)");
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != kFormat) {
    return corrupt("in format " + (doc.contains("version") ? doc["version"].dump() : std::string("none")) +
                   ", written by another rtagent version; this one reads format " + std::to_string(kFormat));
  }
  std::vector<Refusal> out;
  for (const json& j : doc["refused"]) {
    Refusal r;
    std::string compare;
    if (!j.is_object() || !Field(j, "section", &r.section) || !Field(j, "what", &r.what) ||
        !Field(j, "actuator", &r.actuator) || !Field(j, "key", &r.key) || !Field(j, "wanted", &r.wanted) ||
        !Field(j, "kept", &r.kept) || !Field(j, "compare", &compare) || !ParseCompare(compare, &r.compare) ||
        !Field(j, "reason", &r.reason) || r.key.empty()) {
      return corrupt("an entry lacks a field or has one of the wrong type: " +
                     j.dump(-1, ' ', false, json::error_handler_t::replace));
    }
    out.push_back(std::move(r));
  }
  SortRefusals(out);  // a file written by hand may hold them in any order
  return out;
}

Result<void> RefusalRecord::Store(SysRoot& root, const std::vector<Refusal>& refusals) {
  if (refusals.empty()) return root.Remove(Path());
  json list = json::array();
  for (const Refusal& r : refusals) {
    list.push_back({{"section", r.section},
                    {"what", r.what},
                    {"actuator", r.actuator},
                    {"key", r.key},
                    {"wanted", r.wanted},
                    {"kept", r.kept},
                    {"compare", std::string(CompareName(r.compare))},
                    {"reason", r.reason}});
  }
  const json doc = {{"refused", std::move(list)}, {"version", kFormat}};
  // A value that is not UTF-8 (a thread's name cut inside a character) becomes U+FFFD: the
  // entry then explains nothing (Explaining compares values), and verify says what it says
  // without the record.
  return root.WriteDurable(Path(), doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

void SortRefusals(std::vector<Refusal>& refusals) {
  std::stable_sort(refusals.begin(), refusals.end(), [](const Refusal& a, const Refusal& b) {
    return std::tie(a.actuator, a.key) < std::tie(b.actuator, b.key);
  });
}

const Refusal* RefusalRecord::Explaining(const std::vector<Refusal>& refusals, const Change& c) {
  // A binary search: verify and plan ask it for every differing item, and a server's managed
  // queue vectors can be thousands of refusals.
  auto it = std::lower_bound(refusals.begin(), refusals.end(), c, [](const Refusal& r, const Change& ch) {
    return std::tie(r.actuator, r.key) < std::tie(ch.actuator, ch.key);
  });
  for (; it != refusals.end() && it->actuator == c.actuator && it->key == c.key; ++it) {
    if (SameValue(c.compare, it->wanted, c.after) && SameValue(c.compare, c.before, it->kept)) return &*it;
  }
  return nullptr;
}

}  // namespace rtagent
