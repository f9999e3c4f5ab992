#include "tune/journal.h"

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "base/kernel_paths.h"

namespace rtagent {

using nlohmann::json;

namespace {

// rtagent's state that must outlive a reboot (the FHS's /var/lib).
const std::string kStateDir = "var/lib/rtagent";

std::string Serialize(const std::vector<JournalEntry>& entries) {
  json doc;
  doc["version"] = 1;
  json list = json::array();
  for (const auto& e : entries) {
    json j = {{"section", e.section},
              {"what", e.what},
              {"actuator", e.actuator},
              {"key", e.key},
              {"before", e.before},
              {"after", e.after},
              {"compare", std::string(CompareName(e.compare))}};
    if (!e.side_effect_of.empty()) j["side_effect_of"] = e.side_effect_of;
    if (!e.runs.empty()) {
      json runs = json::array();
      for (const auto& r : e.runs) runs.push_back(CommandRunJson(r));
      j["runs"] = std::move(runs);
    }
    list.push_back(std::move(j));
  }
  doc["entries"] = std::move(list);
  return doc.dump(2) + "\n";
}

}  // namespace

std::string Journal::Path() { return kpath::kRunDir + "/journal.json"; }
std::string Journal::BootPath() { return kStateDir + "/boot-journal.json"; }

Result<void> Journal::LoadFile(const std::string& path, bool boot) {
  auto text = root_.Read(path);
  if (!text) {
    // No journal file (or no directory at all): nothing was changed before.
    if (text.error().err == ENOENT || text.error().err == ENOTDIR) return Ok();
    return text.error();
  }
  json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) {
    return MakeError(root_.Dir() + " " + path + ": the journal is corrupt; nothing was changed (inspect it, then remove it)",
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
    if (j.contains("runs") && j["runs"].is_array()) {
      for (const json& r : j["runs"]) e.runs.push_back(CommandRunFromJson(r));
    }
    if (!ParseCompare(j.value("compare", "exact"), &e.compare) || e.key.empty()) {
      return MakeError(root_.Dir() + " " + path + ": the journal has an entry without a key or with an unknown comparison",
                       EINVAL);
    }
    if (ids_.count(Id(e.actuator, e.key))) continue;  // the same file in both journals: the first one's before
    if (!boot && IsBootFileActuator(e.actuator) && scope_ == Scope::kRuntime) {
      kept_boot_.push_back(std::move(e));  // an older rtagent's entry: not the daemon's to revert
      continue;
    }
    ids_.insert(Id(e.actuator, e.key));
    entries_.push_back(std::move(e));
  }
  return Ok();
}

Result<void> Journal::Load() {
  entries_.clear();
  ids_.clear();
  kept_boot_.clear();
  stored_boot_.clear();
  if (scope_ == Scope::kAll) {
    if (auto r = LoadFile(BootPath(), true); !r) return r;
    stored_boot_ = entries_.empty() ? "" : Serialize(entries_);
  }
  return LoadFile(Path(), false);
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

Result<void> Journal::AddRuns(const std::string& actuator, const std::string& key, const std::vector<CommandRun>& runs) {
  for (auto& e : entries_) {
    if (e.actuator != actuator || e.key != key) continue;
    e.runs.insert(e.runs.end(), runs.begin(), runs.end());
    return Store();
  }
  return MakeError("no journal entry for " + key, ENOENT);
}

Result<void> Journal::Clear() {
  entries_.clear();
  ids_.clear();
  if (scope_ == Scope::kAll) {
    if (auto r = root_.Remove(BootPath()); !r) return r;
    stored_boot_.clear();
  }
  if (!kept_boot_.empty()) return root_.WriteDurable(Path(), Serialize(kept_boot_));
  return root_.Remove(Path());
}

Result<void> Journal::Store() {
  std::vector<JournalEntry> runtime = kept_boot_, boot;
  for (const auto& e : entries_) (IsBootFileActuator(e.actuator) && scope_ == Scope::kAll ? boot : runtime).push_back(e);
  if (scope_ == Scope::kAll) {
    // The boot journal first: a crash between the two writes leaves a boot file's "before"
    // recorded even if the runtime journal is older.
    const std::string text = boot.empty() ? "" : Serialize(boot);
    if (text != stored_boot_) {
      auto r = text.empty() ? root_.Remove(BootPath()) : root_.WriteDurable(BootPath(), text);
      if (!r) return r;
      stored_boot_ = text;
    }
  }
  if (runtime.empty()) return root_.Remove(Path());
  return root_.WriteDurable(Path(), Serialize(runtime));
}

}  // namespace rtagent
