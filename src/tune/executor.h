// Applies a plan: journals each "before" durably, writes, records the kernel's known
// refusals as outcomes, and rolls back everything done in this run when a write fails.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/change.h"
#include "tune/journal.h"

namespace rtagent {

/// Reads and writes one kind of setting. "file" is a kernel file under the root; later
/// tuners add "sched" (a thread's policy) and "cgroup" (a process's partition) behind the
/// same seam, with twins for fixtures that never touch live processes.
class Actuator {
 public:
  virtual ~Actuator() = default;
  virtual Result<std::string> Read(const std::string& key) = 0;
  virtual Result<void> Write(const std::string& key, const std::string& value) = 0;
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
};

struct ApplyReport {
  std::vector<ChangeResult> results;
  bool rolled_back = false;      ///< a failure undid this run's changes (exit 4)
  std::string rollback_errors;   ///< values that could not be put back (named, never silent)
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

  /// Applies `changes` in order. Each change is re-read first (skipped when it already
  /// matches), journaled durably, then written. On an unexpected failure every change
  /// applied in this run is reverted in reverse order and dropped from the journal.
  ApplyReport Apply(const std::vector<Change>& changes);
  /// Puts back every journaled value, newest first, then removes the journal.
  RevertReport Revert();

 private:
  Actuator* Find(const std::string& name);
  SysRoot& root_;
  Journal& journal_;
  std::map<std::string, std::unique_ptr<Actuator>> actuators_;
};

}  // namespace rtagent
