#include "tune/journal.h"

#include <algorithm>
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
    e.side_effect_of = j.value("side_effect_of", "");
    if (!ParseCompare(j.value("compare", "exact"), &e.compare) || e.key.empty()) {
      return MakeError(root_.Dir() + " " + Path() + ": the journal has an entry without a key or with an unknown comparison",
                       EINVAL);
    }
    entries_.push_back(std::move(e));
  }
  Reindex();
  return Ok();
}

void Journal::Reindex() {
  ids_.clear();
  for (const auto& e : entries_) ids_.insert(Id(e.actuator, e.key));
}

bool Journal::Has(const std::string& actuator, const std::string& key) const {
  return ids_.count(Id(actuator, key)) != 0;
}

Result<void> Journal::Record(const JournalEntry& e) { return RecordAll({e}); }

Result<void> Journal::RecordAll(const std::vector<JournalEntry>& batch) {
  if (batch.empty()) return Ok();
  const size_t old = entries_.size();
  entries_.insert(entries_.end(), batch.begin(), batch.end());
  auto r = Store();
  if (!r) {
    entries_.resize(old);
    return r;
  }
  for (const auto& e : batch) ids_.insert(Id(e.actuator, e.key));
  return Ok();
}

Result<void> Journal::DropLast(size_t n) {
  entries_.resize(entries_.size() > n ? entries_.size() - n : 0);
  Reindex();
  return entries_.empty() ? Clear() : Store();
}

Result<void> Journal::Drop(std::vector<size_t> positions) {
  if (positions.empty()) return Ok();
  std::sort(positions.begin(), positions.end());
  std::vector<JournalEntry> kept;
  kept.reserve(entries_.size());
  size_t next = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    while (next < positions.size() && positions[next] < i) ++next;
    if (next < positions.size() && positions[next] == i) continue;
    kept.push_back(std::move(entries_[i]));
  }
  entries_ = std::move(kept);
  Reindex();
  return entries_.empty() ? Clear() : Store();
}

Result<void> Journal::Clear() {
  entries_.clear();
  ids_.clear();
  return root_.Remove(Path());
}

Result<void> Journal::Store() {
  json doc;
  doc["version"] = 1;
  json list = json::array();
  for (const auto& e : entries_) {
    json j = {{"section", e.section},
              {"what", e.what},
              {"actuator", e.actuator},
              {"key", e.key},
              {"before", e.before},
              {"after", e.after},
              {"compare", std::string(CompareName(e.compare))}};
    if (!e.side_effect_of.empty()) j["side_effect_of"] = e.side_effect_of;
    list.push_back(std::move(j));
  }
  doc["entries"] = std::move(list);
  return root_.WriteDurable(Path(), doc.dump(2) + "\n");
}

}  // namespace rtagent
