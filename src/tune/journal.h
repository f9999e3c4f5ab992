// The durable record of every value rtagent changed, written before each change, so that
// revert (or a rollback after a failure) can put the system back exactly as it was. Runtime
// values are journaled in /run (they and their record vanish at reboot); boot loader files in
// /var/lib/rtagent (they outlive the reboot they are written for, and so must their record).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/change.h"
#include "tune/command_runner.h"

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
  /// The commands writing it ran (a boot loader's update step), oldest first.
  std::vector<CommandRun> runs;
};

/// The journal at run/rtagent/journal.json under the root. /run is a tmpfs: the journal
/// lives exactly as long as the runtime state it describes (both vanish at reboot). Entries of
/// boot loader files (IsBootFileActuator) are kept in var/lib/rtagent/boot-journal.json
/// instead, so `rtagent revert` after the reboot still puts the files back. In memory they are
/// one list in the order they were recorded; loaded again, the boot entries come first.
class Journal {
 public:
  /// kAll: both files (apply, revert, commission). kRuntime: only the runtime journal (the hold
  /// daemon, which never writes boot files and whose sandbox keeps /var read-only).
  enum class Scope { kAll, kRuntime };
  explicit Journal(SysRoot& root, Scope scope = Scope::kAll) : root_(root), scope_(scope) {}

  /// Reads the journal left by earlier applies; an absent journal is an empty one.
  /// A journal that is corrupt or truncated, in another rtagent's format, from another machine
  /// (etc/machine-id) or, as root, writable by another user is an error naming the file and a
  /// way out; nothing of it is kept, and nothing is applied or reverted over it.
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
  /// The entries are moved in, not copied (a batch of the large tree holds 18,700 of them).
  Result<void> RecordAll(std::vector<JournalEntry> batch);
  /// Drops the last `n` entries (after they were rolled back) and stores the result.
  Result<void> DropLast(size_t n);
  /// Drops the entries at these positions (of entries(), any order; the kernel refused the
  /// write they were made for, so there is nothing to put back) and stores the result once.
  Result<void> Drop(std::vector<size_t> positions);
  /// Adds what writing the entry (actuator, key) ran to it and stores the journal; when the
  /// store fails the entry is left as it was.
  Result<void> AddRuns(const std::string& actuator, const std::string& key, const std::vector<CommandRun>& runs);
  /// Removes the journal files of its scope: everything in them has been put back.
  Result<void> Clear();

  /// Root-relative path of the journal file.
  static std::string Path();
  /// Root-relative path of the boot files' journal.
  static std::string BootPath();
  /// Root-relative path of the writers' lock: apply, revert, commission and hold each hold it
  /// while they run (SysRoot::TryLock), so that two of them never write the journal at once.
  /// Each keeps the journal in memory and stores it whole, so the second to store would drop
  /// the first one's entries, and a revert could not put those values back.
  static std::string LockPath();

 private:
  Result<void> LoadFile(const std::string& path, bool boot);
  /// This machine's etc/machine-id under the root ("" when it has none, as a fixture tree).
  std::string MachineId() const;
  Result<void> Store();
  static std::string Id(const std::string& actuator, const std::string& key) { return actuator + '\n' + key; }
  void Reindex();
  SysRoot& root_;
  Scope scope_;
  std::string stored_boot_;  ///< what the boot journal file holds (rewritten only when it changes)
  std::vector<JournalEntry> entries_;
  /// kRuntime: boot entries an older rtagent left in the runtime file, written back as found.
  std::vector<JournalEntry> kept_boot_;
  std::unordered_set<std::string> ids_;  ///< Id() of every entry: Has() in constant time
};

}  // namespace rtagent
