#include "tune/journal.h"

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/file_trust.h"
#include "base/kernel_paths.h"
#include "base/utf8.h"
#include "base/stale_temps.h"
#include "base/sysroot_pieces.h"

namespace rtagent {

using nlohmann::json;

namespace {

// rtagent's state that must outlive a reboot (the FHS's /var/lib).
constexpr char kStateDir[] = "var/lib/rtagent";
// The machine's identity (machine-id(5)): the journal records it and refuses another machine's.
constexpr char kMachineId[] = "etc/machine-id";

// The journal's format; a journal in another one is refused (another rtagent wrote it).
constexpr int kFormat = 1;

// A value as the journal keeps it: a JSON string when it is UTF-8, else {"hex": "..."} with
// every byte. What revert writes back must be the bytes that were there (a boot file with a
// Latin-1 comment, a thread name the kernel cut inside a character), and JSON strings hold
// only UTF-8: nlohmann's dump() throws on anything else (found by fuzz/bootfile_fuzz.cc).
json Bytes(const std::string& s) {
  if (IsValidUtf8(s)) return s;
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  hex.reserve(s.size() * 2);
  for (unsigned char c : s) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  return json{{"hex", hex}};
}

// Bytes() read back; false when `j` is neither form.
bool FromBytes(const json& j, std::string* out) {
  if (j.is_string()) {
    *out = j.get<std::string>();
    return true;
  }
  if (!j.is_object() || j.size() != 1 || !j.contains("hex") || !j["hex"].is_string()) return false;
  const std::string& hex = j["hex"].get_ref<const std::string&>();
  if (hex.size() % 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

json EntryJson(const JournalEntry& e) {
  json j = {{"section", Bytes(e.section)},
            {"what", Bytes(e.what)},
            {"actuator", Bytes(e.actuator)},
            {"key", Bytes(e.key)},
            {"before", Bytes(e.before)},
            {"after", Bytes(e.after)},
            {"compare", std::string(CompareName(e.compare))}};
  if (!e.side_effect_of.empty()) j["side_effect_of"] = Bytes(e.side_effect_of);
  if (!e.runs.empty()) {
    json runs = json::array();
    for (const auto& r : e.runs) runs.push_back(CommandRunJson(r));
    j["runs"] = std::move(runs);
  }
  return j;
}

// `j` as dump(2) prints it `levels` levels deep in a document: every line after the first
// indented by two spaces a level (a JSON string never holds a raw line break, so each '\n' of
// the dump is one of its own). Every value is UTF-8 or hex; what a command printed (runs) is
// only shown to people, so a byte that is not UTF-8 there becomes U+FFFD rather than stopping
// the write.
void AppendNested(std::string& out, const json& j, int levels) {
  const std::string text = j.dump(2, ' ', false, json::error_handler_t::replace);
  const std::string indent(2 * levels, ' ');
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
    out.append(text, from, nl + 1 - from);
    out += indent;
  }
  out.append(text, from, std::string::npos);
}

// `s` as a JSON string, escaped as nlohmann's dump() escapes a valid UTF-8 string (ensure_ascii
// off): the quote, the backslash and the control characters, the short forms where JSON has
// them, "\u00xx" (lower-case hex) for the others; every other byte as it is.
void AppendString(std::string& out, std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// One entry as dump(2) prints it as an element of "entries" (two levels deep), without making
// it a JSON value first: the entries of the large tree are written three times per apply.
void AppendEntry(std::string& out, const JournalEntry& e) {
  if (!e.runs.empty()) return AppendNested(out, EntryJson(e), 2);  // a boot file's: a few per journal
  auto field = [&](const char* name, const std::string& value, bool last) {
    out += "      \"";
    out += name;
    out += "\": ";
    if (IsValidUtf8(value)) {
      AppendString(out, value);
    } else {
      AppendNested(out, Bytes(value), 3);
    }
    out += last ? "\n" : ",\n";
  };
  out += "{\n";
  field("actuator", e.actuator, false);
  field("after", e.after, false);
  field("before", e.before, false);
  field("compare", std::string(CompareName(e.compare)), false);
  field("key", e.key, false);
  field("section", e.section, false);
  if (!e.side_effect_of.empty()) field("side_effect_of", e.side_effect_of, false);
  field("what", e.what, true);
  out += "    }";
}

// The journal document, byte for byte what nlohmann's dump(2) prints for {"entries": [...],
// "machine": ..., "version": 1} (its keys sorted), made an entry at a time and handed to `put`
// in pieces of about kPiece bytes: building the whole document as one JSON value first took
// several times the size of the text, and the text itself is 10.6 MB on the large tree (issue
// 19: 33,000 entries), so it goes to the file as it is made and never exists whole.
// `each(emit)` calls emit(entry) for every entry, in order.
constexpr size_t kPiece = 64 * 1024;

template <typename EachEntry>
void Serialize(const EachEntry& each, const std::string& machine, const PutPiece& put) {
  std::string out;
  out.reserve(2 * kPiece);
  out += "{\n  \"entries\": [";
  bool first = true;
  each([&](const JournalEntry& e) {
    out += first ? "\n    " : ",\n    ";
    first = false;
    AppendEntry(out, e);
    if (out.size() >= kPiece) {
      put(out);
      out.clear();
    }
  });
  out += first ? "],\n" : "\n  ],\n";
  if (!machine.empty()) {
    out += "  \"machine\": ";
    AppendNested(out, Bytes(machine), 1);
    out += ",\n";
  }
  out += "  \"version\": " + std::to_string(kFormat) + "\n}\n";
  put(out);
}

// The entries' journal as one text (the boot journal: a few entries, compared with the file).
std::string SerializeText(const std::vector<JournalEntry>& entries, const std::string& machine) {
  std::string text;
  Serialize([&](const auto& emit) { for (const auto& e : entries) emit(e); }, machine,
            [&](std::string_view piece) { text.append(piece); });
  return text;
}

// The entries' journal stored durably at `path`, made while it is written.
template <typename EachEntry>
Result<void> StoreFile(SysRoot& root, const std::string& path, const EachEntry& each, const std::string& machine) {
  return WriteDurableFrom(root, path, [&](const PutPiece& put) { Serialize(each, machine, put); });
}

// The string at `key` of entry `j`, or `fallback` when absent; false when it is not a string.
bool ReadString(const json& j, const char* key, const char* fallback, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) {
    *out = fallback;
    return true;
  }
  return FromBytes(*it, out);
}

// One entry as Serialize wrote it; nullopt when any field has another type.
std::optional<JournalEntry> ParseEntry(const json& j) {
  if (!j.is_object()) return std::nullopt;
  JournalEntry e;
  std::string compare;
  if (!ReadString(j, "section", "", &e.section) || !ReadString(j, "what", "", &e.what) ||
      !ReadString(j, "actuator", "file", &e.actuator) || !ReadString(j, "key", "", &e.key) ||
      !ReadString(j, "before", "", &e.before) || !ReadString(j, "after", "", &e.after) ||
      !ReadString(j, "side_effect_of", "", &e.side_effect_of) || !ReadString(j, "compare", "exact", &compare) ||
      !ParseCompare(compare, &e.compare) || e.key.empty()) {
    return std::nullopt;
  }
  if (j.contains("runs")) {
    if (!j["runs"].is_array()) return std::nullopt;
    for (const json& r : j["runs"]) {
      auto run = CommandRunFromJson(r);
      if (!run) return std::nullopt;
      e.runs.push_back(std::move(*run));
    }
  }
  return e;
}

// Turns each element of the top-level "entries" array into a JournalEntry as the parser
// finishes it and drops its JSON value, so a journal is never held whole as a JSON document
// (issue 19: the large tree's 33,000 entries took several times the file's size that way).
// The first entry that does not parse is kept as text for the error; the checks of the whole
// document (its format, its machine) come first, as they would for a document parsed whole.
struct EntryReader {
  std::vector<JournalEntry> entries;
  std::string bad;  // the first entry that is not one, as JSON text
  bool in_entries = false;
  std::string key;  // the last top-level key

  json::parser_callback_t Callback() {
    return [this](int depth, json::parse_event_t event, json& parsed) {
      using E = json::parse_event_t;
      if (depth == 1 && event == E::key) {
        key = parsed.get<std::string>();
        if (key == "entries") entries.clear(), bad.clear();  // a repeated key: the last one counts
      }
      if (depth == 1 && event == E::array_start) in_entries = key == "entries";
      if (depth == 1 && event == E::array_end) in_entries = false;
      const bool element = event == E::object_end || event == E::array_end || event == E::value;
      if (!in_entries || depth != 2 || !element) return true;
      if (!bad.empty()) return false;
      if (auto e = ParseEntry(parsed)) {
        entries.push_back(std::move(*e));
      } else {
        bad = parsed.dump(-1, ' ', false, json::error_handler_t::replace);
      }
      return false;
    };
  }
};

}  // namespace

std::string Journal::Path() { return kpath::kRunDir + "/journal.json"; }
std::string Journal::LockPath() { return kpath::kRunDir + "/lock"; }
std::string Journal::BootPath() { return std::string(kStateDir) + "/boot-journal.json"; }

std::string Journal::MachineId() const {
  auto id = root_.ReadTrimmed(kMachineId);
  return id ? *id : "";
}

Result<void> Journal::LoadFile(const std::string& path, bool boot) {
  const std::string file = root_.HostPath(path);
  // Nothing of a journal that fails any test below is used: revert would write what it says
  // into the kernel and the boot loader's files (issue 17).
  auto refuse = [&](const std::string& why, const std::string& way_out) {
    return InvalidInput(file + ": " + why + "; nothing was changed (" + way_out + ")");
  };
  const std::string by_hand = "look at what it lists, put back by hand what needs it, then remove it: rm " + file;
  if (auto bad = FindUntrusted(file, ProcessFileTrust())) {
    return refuse("refusing the journal as root: " + bad->message, bad->hint + ", if you trust what it holds");
  }
  auto text = root_.Read(path);
  if (!text) {
    // No journal file (or no directory at all): nothing was changed before.
    if (text.error().err == ENOENT || text.error().err == ENOTDIR) return Ok();
    return text.error();
  }
  EntryReader reader;
  json doc = json::parse(*text, reader.Callback(), /*allow_exceptions=*/false);
  text->clear();
  text->shrink_to_fit();
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) {
    return refuse("the journal is corrupt or truncated (not the JSON rtagent writes)", by_hand);
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != kFormat) {
    const std::string v = doc.contains("version") ? doc["version"].dump() : "none";
    return refuse("the journal is in format " + v + ", written by another rtagent version; this one reads format " +
                      std::to_string(kFormat),
                  "revert with the rtagent that wrote it, or " + by_hand);
  }
  const std::string here = MachineId();
  if (doc.contains("machine")) {
    std::string there;
    if (!FromBytes(doc["machine"], &there)) there = doc["machine"].dump(-1, ' ', false, json::error_handler_t::replace);
    if (!here.empty() && there != here) {
      return refuse("the journal was written on another machine (machine-id " + there + "; this one is " + here +
                        "), so its values are not this machine's to put back",
                    "a copied disk image carries it: if this machine's files are as they should be, rm " + file);
    }
  }
  if (!reader.bad.empty()) {
    return refuse("the journal has an entry without a key, with an unknown comparison or with a field of the "
                  "wrong type: " + reader.bad,
                  by_hand);
  }
  entries_.reserve(entries_.size() + reader.entries.size());
  for (JournalEntry& e : reader.entries) {
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
  auto reset = [this] {
    entries_.clear();
    ids_.clear();
    kept_boot_.clear();
    stored_boot_.clear();
  };
  reset();
  Result<void> r = Ok();
  if (scope_ == Scope::kAll) {
    r = LoadFile(BootPath(), true);
    if (r) stored_boot_ = entries_.empty() ? "" : SerializeText(entries_, MachineId());
  }
  if (r) r = LoadFile(Path(), false);
  if (!r) reset();  // never half-used: a refused file leaves the journal empty, and the caller stops
  // Held in the order Store writes and the next Load reads: every boot-file entry (the boot
  // journal, read first) before the others, each group in its files' order. An entry in the
  // other file than its actuator's (an older rtagent kept boot-file entries in the runtime
  // journal; a damaged file may hold anything) would otherwise move when stored, and the
  // journal loaded again would list its entries in another order (fuzz/journal_fuzz.cc).
  if (r && scope_ == Scope::kAll) {
    std::stable_partition(entries_.begin(), entries_.end(), [](const JournalEntry& e) { return IsBootFileActuator(e.actuator); });
  }
  return r;
}

void Journal::Reindex() {
  ids_.clear();
  for (const auto& e : entries_) ids_.insert(Id(e.actuator, e.key));
}

bool Journal::Has(const std::string& actuator, const std::string& key) const {
  return ids_.count(Id(actuator, key)) != 0;
}

Result<void> Journal::Record(const JournalEntry& e) { return RecordAll({e}); }

Result<void> Journal::RecordAll(std::vector<JournalEntry> batch) {
  if (batch.empty()) return Ok();
  const size_t old = entries_.size();
  // Room for exactly this batch: grown by doubling, the array of the large tree's 33,000 entries
  // (256 bytes each) held up to twice that, next to its old copy while it moved (issue 19).
  entries_.reserve(old + batch.size());
  entries_.insert(entries_.end(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
  // The emptied entries' array goes before the store, not after it (7.6 MB for the partition
  // batch of the large tree, issue 19).
  std::vector<JournalEntry>().swap(batch);
  auto r = Store();
  if (!r) {
    entries_.resize(old);
    return r;
  }
  for (size_t i = old; i < entries_.size(); ++i) ids_.insert(Id(entries_[i].actuator, entries_[i].key));
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
    // All or nothing, as RecordAll: a failed rewrite leaves the entry as stored, so a later
    // rewrite (the next batch's) does not carry in runs the caller was told were not recorded.
    const size_t had = e.runs.size();
    e.runs.insert(e.runs.end(), runs.begin(), runs.end());
    auto r = Store();
    if (!r) e.runs.resize(had);
    return r;
  }
  return MakeError("no journal entry for " + key, ENOENT);
}

Result<void> Journal::Clear() {
  entries_.clear();
  ids_.clear();
  // An apply killed (or a power cut) inside a journal's WriteDurable leaves its temporary
  // file; its contents were never committed, and with the journal gone nothing may be left
  // behind (the kill sweep, kill_test.cc, found journal.json.tmp.PID after a revert).
  for (const std::string& p : {Path(), BootPath()}) {
    if (p == BootPath() && scope_ != Scope::kAll) continue;
    if (auto r = RemoveStaleTemps(root_, p); !r) return r;
  }
  if (scope_ == Scope::kAll) {
    if (auto r = root_.Remove(BootPath()); !r) return r;
    stored_boot_.clear();
  }
  if (!kept_boot_.empty()) {
    return StoreFile(root_, Path(), [&](const auto& emit) { for (const auto& e : kept_boot_) emit(e); }, MachineId());
  }
  return root_.Remove(Path());
}

Result<void> Journal::Store() {
  // Each file's entries are visited where they are, never copied: the runtime journal is
  // every entry of the large tree (issue 19).
  auto in_boot_file = [&](const JournalEntry& e) { return scope_ == Scope::kAll && IsBootFileActuator(e.actuator); };
  size_t boot_entries = 0;
  for (const auto& e : entries_) boot_entries += in_boot_file(e);
  if (scope_ == Scope::kAll) {
    // The boot journal first: a crash between the two writes leaves a boot file's "before"
    // recorded even if the runtime journal is older.
    auto boot = [&](const auto& emit) {
      for (const auto& e : entries_) {
        if (in_boot_file(e)) emit(e);
      }
    };
    std::string text;
    if (boot_entries != 0) Serialize(boot, MachineId(), [&](std::string_view piece) { text.append(piece); });
    if (text != stored_boot_) {
      auto r = text.empty() ? root_.Remove(BootPath()) : root_.WriteDurable(BootPath(), text);
      if (!r) return r;
      stored_boot_ = text;
      // A temporary twin a killed earlier apply left next to it is no journal (see Clear).
      if (auto t = RemoveStaleTemps(root_, BootPath()); !t) return t;
    }
  }
  auto runtime = [&](const auto& emit) {
    for (const auto& e : kept_boot_) emit(e);
    for (const auto& e : entries_) {
      if (!in_boot_file(e)) emit(e);
    }
  };
  const bool none = kept_boot_.empty() && boot_entries == entries_.size();
  auto r = none ? root_.Remove(Path()) : StoreFile(root_, Path(), runtime, MachineId());
  if (!r) return r;
  return RemoveStaleTemps(root_, Path());
}

}  // namespace rtagent
