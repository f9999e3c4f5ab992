#include "tune/journal.h"

#include <cerrno>
#include <nlohmann/json.hpp>

#include "base/kernel_paths.h"

namespace rtagent {

using nlohmann::json;

std::string Journal::Path() { return kpath::kRunDir + "/journal.json"; }

Result<void> Journal::Load() {
  entries_.clear();
  auto text = root_.Read(Path());
  if (!text) {
    // No journal file (or no run directory at all): nothing was changed before.
    if (text.error().err == ENOENT || text.error().err == ENOTDIR) return Ok();
    return text.error();
  }
  json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) {
    return MakeError(root_.Dir() + " " + Path() + ": the journal is corrupt; nothing was changed (inspect it, then remove it)",
                     EINVAL);
  }
  for (const json& j : doc["entries"]) {
    JournalEntry e;
    e.section = j.value("section", "");
    e.what = j.value("what", "");
    e.actuator = j.value("actuator", "file");
    e.key = j.value("key", "");
    e.before = j.value("before", "");
    e.after = j.value("after", "");
    if (!ParseCompare(j.value("compare", "exact"), &e.compare) || e.key.empty()) {
      return MakeError(root_.Dir() + " " + Path() + ": the journal has an entry without a key or with an unknown comparison",
                       EINVAL);
    }
    entries_.push_back(std::move(e));
  }
  return Ok();
}

bool Journal::Has(const std::string& actuator, const std::string& key) const {
  for (const auto& e : entries_) {
    if (e.actuator == actuator && e.key == key) return true;
  }
  return false;
}

Result<void> Journal::Record(const JournalEntry& e) {
  entries_.push_back(e);
  auto r = Store();
  if (!r) entries_.pop_back();
  return r;
}

Result<void> Journal::DropLast(size_t n) {
  entries_.resize(entries_.size() > n ? entries_.size() - n : 0);
  return entries_.empty() ? Clear() : Store();
}

Result<void> Journal::Clear() {
  entries_.clear();
  return root_.Remove(Path());
}

Result<void> Journal::Store() {
  json doc;
  doc["version"] = 1;
  json list = json::array();
  for (const auto& e : entries_) {
    list.push_back({{"section", e.section},
                    {"what", e.what},
                    {"actuator", e.actuator},
                    {"key", e.key},
                    {"before", e.before},
                    {"after", e.after},
                    {"compare", std::string(CompareName(e.compare))}});
  }
  doc["entries"] = std::move(list);
  return root_.WriteDurable(Path(), doc.dump(2) + "\n");
}

}  // namespace rtagent
