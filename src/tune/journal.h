// The durable record of every value rtagent changed, written before each change, so that
// revert (or a rollback after a failure) can put the system back exactly as it was.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/change.h"

namespace rtagent {

/// One changed value: where, what it was before rtagent first touched it, what was written.
struct JournalEntry {
  std::string section;
  std::string what;
  std::string actuator;
  std::string key;
  std::string before;
  std::string after;
  Compare compare = Compare::kExact;
  /// Set on a value rtagent never writes but the kernel changes by itself when the item with
  /// this key is written (a task's affinity when a cpuset partition comes or goes): its
  /// "before" is kept so that revert can put it back after undoing that item.
  std::string side_effect_of;
};

/// The journal at run/rtagent/journal.json under the root. /run is a tmpfs: the journal
/// lives exactly as long as the runtime state it describes (both vanish at reboot).
class Journal {
 public:
  explicit Journal(SysRoot& root) : root_(root) {}

  /// Reads the journal left by earlier applies; an absent journal is an empty one.
  /// A corrupt journal is an error naming the file: nothing is applied or reverted over it.
  Result<void> Load();
  const std::vector<JournalEntry>& entries() const { return entries_; }
  bool Empty() const { return entries_.empty(); }
  /// True when `key` of `actuator` is already journaled (its first "before" is kept).
  bool Has(const std::string& actuator, const std::string& key) const;

  /// Appends an entry and makes it durable (write, fsync, rename) before returning.
  /// The caller skips keys already journaled (Has), so the older "before" is kept.
  Result<void> Record(const JournalEntry& e);
  /// Appends a batch of entries and makes them durable in one rewrite: the executor records
  /// every "before" of a batch this way, then writes the batch. On failure nothing is added.
  Result<void> RecordAll(const std::vector<JournalEntry>& batch);
  /// Drops the last `n` entries (after they were rolled back) and stores the result.
  Result<void> DropLast(size_t n);
  /// Drops the entries at these positions (of entries(), any order; the kernel refused the
  /// write they were made for, so there is nothing to put back) and stores the result once.
  Result<void> Drop(std::vector<size_t> positions);
  /// Removes the journal file: everything in it has been put back.
  Result<void> Clear();

  /// Root-relative path of the journal file.
  static std::string Path();

 private:
  Result<void> Store();
  static std::string Id(const std::string& actuator, const std::string& key) { return actuator + '\n' + key; }
  void Reindex();
  SysRoot& root_;
  std::vector<JournalEntry> entries_;
  std::unordered_set<std::string> ids_;  ///< Id() of every entry: Has() in constant time
};

}  // namespace rtagent
