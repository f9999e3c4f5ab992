// Applies a plan: journals each "before" durably, writes, records the kernel's known
// refusals as outcomes, and rolls back everything done in this run when a write fails.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/change.h"
#include "tune/command_runner.h"
#include "tune/journal.h"
#include "tune/refusals.h"

namespace rtagent {

/// A value the kernel changes by itself when another item is written: rtagent never writes
/// it, but journals it before that write so that revert can put it back (a task the kernel
/// re-places when a cpuset partition takes or returns CPUs).
struct SideEffect {
  std::string actuator;
  std::string key;
  std::string what;
  Compare compare = Compare::kExact;
};

/// Reads and writes one kind of setting. "file" is a kernel file under the root; later
/// tuners add "sched" (a thread's policy) and "cgroup" (a process's partition) behind the
/// same seam, with twins for fixtures that never touch live processes.
class Actuator {
 public:
  virtual ~Actuator() = default;
  virtual Result<std::string> Read(const std::string& key) = 0;
  virtual Result<void> Write(const std::string& key, const std::string& value) = 0;
  /// The values the kernel may change by itself when `value` is written to `key`. Asked
  /// just before the write; their current values are journaled with the item's own.
  virtual Result<std::vector<SideEffect>> SideEffects(const std::string& /*key*/, const std::string& /*value*/) {
    return std::vector<SideEffect>{};
  }
  /// True when reading one of its items gives the same answer before and after writing
  /// other items, so a batch can be read (and journaled) whole before any of it is written.
  /// False when an item only exists after an earlier write (a cgroup's files after its
  /// directory): each such item is then a batch of its own.
  virtual bool Batchable() const { return true; }
  /// True for a daemon that places other values by itself (irqbalance moves IRQs): revert puts
  /// its entries back before every other, so the daemon as apply left it cannot move again
  /// what revert has just put back.
  virtual bool RevertFirst() const { return false; }
  /// The commands the last Write ran (a boot loader's update step), handed over once; the
  /// executor reports them with the item and keeps them in its journal entry.
  virtual std::vector<CommandRun> TakeRuns() { return {}; }
};

/// Kernel files through the one door.
class FileActuator : public Actuator {
 public:
  explicit FileActuator(SysRoot& root) : root_(root) {}
  Result<std::string> Read(const std::string& key) override { return root_.ReadTrimmed(key); }
  Result<void> Write(const std::string& key, const std::string& value) override { return root_.Write(key, value); }

 private:
  SysRoot& root_;
};

/// What happened to one change.
enum class Outcome {
  kApplied,        ///< written and journaled
  kAlreadySet,     ///< the system already matched; nothing written
  kUnchangeable,   ///< the kernel refused with a known reason (EIO on a managed IRQ, ...)
  kRebootRequired, ///< boot-time setting: rendered for the bootloader, takes effect at reboot
  kFailed,         ///< an unexpected error: the run was rolled back
  kRolledBack,     ///< was applied in this run, then put back after a later failure
  kNotRun,         ///< not reached because an earlier change failed
};
std::string_view OutcomeName(Outcome o);

struct ChangeResult {
  Change change;
  Outcome outcome = Outcome::kNotRun;
  std::string detail;  ///< the refusal's reason, or the error
  std::vector<CommandRun> runs;  ///< commands its write (or its rollback) ran: what, exit status, output
  /// kUnchangeable at the write: the value found just before it, which the kernel kept
  /// (nullopt for a refusal met reading the item: a thread that exited since the plan).
  std::optional<std::string> found;
};

struct ApplyReport {
  std::vector<ChangeResult> results;
  bool rolled_back = false;      ///< a failure undid this run's changes (exit 4)
  bool stopped = false;          ///< the failure was a stop signal (Executor::StopWhen)
  std::string rollback_errors;   ///< values that could not be put back (named, never silent)
  /// Applied and journaled, but a record of it was lost: what a boot file's update command ran
  /// could not be added to its journal entry. The tuning stands and revert puts it back, so the
  /// exit stays 0 (PRODUCT.md: 1-4 each say something that is not so); the text and JSON
  /// outputs say it as WARN lines (docs/tuning.md, "The update command is a step").
  std::vector<std::string> warnings;
  int Count(Outcome o) const;
};

struct RevertReport {
  std::vector<ChangeResult> results;  ///< kApplied = put back, kAlreadySet = was already back
  bool complete = true;               ///< every journaled value is back; the journal is removed
};

class Executor {
 public:
  /// The "file" actuator is always there; others are added by the tuners that need them.
  Executor(SysRoot& root, Journal& journal);
  void AddActuator(const std::string& name, std::unique_ptr<Actuator> actuator);

  /// Applies `changes` in order, a batch at a time: a batch is a run of consecutive changes
  /// of one section whose actuators are Batchable (a change of another actuator is a batch
  /// of its own). Every change of the batch is re-read (skipped when it already matches),
  /// the values found and the side effects of the writes are journaled durably in one
  /// rewrite, then the batch is written in order. So every value is journaled before it is
  /// written, with one journal rewrite per batch rather than per change. On an unexpected
  /// failure every value changed in this run (side effects included) is put back, newest
  /// first, and dropped from the journal.
  /// `changes` are moved into the report's results, not copied.
  ApplyReport Apply(std::vector<Change> changes);
  /// Makes Apply look at `flag` before each batch: once it is set (a stop signal, cli's
  /// StopFlag), the change the run stopped at is failed as "stopped" and the run is rolled back
  /// as on a failure, so a Ctrl-C or a dropped SSH session never leaves it half-applied.
  void StopWhen(const std::atomic<bool>* flag) { stop_ = flag; }
  /// Puts back every journaled value, newest first (the entries of an actuator that reverts
  /// first before all others), then removes the journal and the record of refusals.
  RevertReport Revert();
  /// The kernel's refusals as the last Apply left their record (tune/refusals.h): read once,
  /// at the first Apply, and kept in step after it. Empty before the first Apply. `rtagent hold`
  /// asks it on every tick, so that a value the kernel keeps is not a drift to re-assert.
  const std::vector<Refusal>& Refusals() const;

 private:
  struct ApplyRun;
  struct Batch;
  struct Found;
  struct ToWrite;
  struct Undo;

  Actuator* Find(const std::string& name);
  /// The first change after `begin` that is not in the batch starting at `begin`.
  size_t BatchEnd(const std::vector<ChangeResult>& items, size_t begin);
  /// Apply's steps, each false when a change failed (the run is then rolled back): reads the
  /// batch's items and their side effects, journals them in one rewrite, writes them.
  bool ReadBatch(ApplyRun& run, size_t begin, size_t end, Batch& batch);
  bool ReadSideEffects(ApplyRun& run, const Change& c, Actuator& a, Batch& batch, ToWrite& w);
  bool JournalBatch(ApplyRun& run, Batch& batch);
  bool WriteBatch(ApplyRun& run, Batch& batch);
  /// Brings the record of the kernel's refusals (tune/refusals.h) up to date with a run that
  /// was not rolled back: each item the kernel refused at its write goes in (replacing an older
  /// refusal of its key), each item written or found in place comes out; the file is rewritten
  /// only when that changed it. A record that cannot be read or stored costs only verify's
  /// explanation: a warning in the report, never a failure.
  void RecordRefusals(ApplyReport& report);
  /// Stores the record as it is in memory; a failure is a warning in `report`.
  void StoreRefusals(ApplyReport& report);
  /// Marks result `index` failed with `detail`, rolls the run back; returns false.
  bool Fail(ApplyRun& run, size_t index, std::string detail);
  /// Puts back everything this run changed, newest first, and drops its journal entries.
  void Rollback(ApplyRun& run);
  SysRoot& root_;
  Journal& journal_;
  std::map<std::string, std::unique_ptr<Actuator>> actuators_;
  std::optional<std::vector<Refusal>> refusals_;
  const std::atomic<bool>* stop_ = nullptr;  ///< StopWhen's flag  ///< the record, once read (RecordRefusals)
};

}  // namespace rtagent
