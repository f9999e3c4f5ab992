// Applying a profile and putting it back, shared by `rtagent apply`, `revert`, `commission`
// and `hold`: the one place an executor is built (every tuner's actuators, the journal in
// /run/rtagent), and the reports.
#pragma once

#include <atomic>
#include <memory>

#include "base/result.h"
#include "base/sysroot.h"
#include "profile/model.h"
#include "tune/executor.h"
#include "tune/journal.h"
#include "tune/tuner.h"

namespace rtagent {

/// An Executor with every tuner's actuators registered (twins under a fixture root), writing
/// through `journal`. `journal` must outlive it.
std::unique_ptr<Executor> MakeTuningExecutor(SysRoot& root, Journal& journal);

/// What one apply did: the plan it applied and what happened to each change.
struct ApplyOutcome {
  /// The plan's findings, boot summary and boot-time items (RebootRequired()): what the reports
  /// read. Its changes are in `report`; the items that already matched are not kept.
  FullPlan plan;
  ApplyReport report;
  size_t journaled_before = 0;  ///< journal entries that were there before this apply
};

/// Plans `profile` against `root` and applies every pending change through the journal.
/// An error means nothing was changed (the plan or the journal could not be read); a failed
/// write is not an error but a report with `rolled_back` set (exit 4).
/// `stop` (cli's StopFlag, or nullptr), once set, stops the run before its next batch and rolls
/// it back (Executor::StopWhen).
Result<ApplyOutcome> ApplyProfile(const profile::Profile& profile, SysRoot& root,
                                  const std::atomic<bool>* stop = nullptr);

/// Puts back every value the journal under `root` holds, newest first.
Result<RevertReport> RevertJournal(SysRoot& root);

/// True when a journal of an earlier apply is on the system, of runtime values or of boot loader
/// files (so a revert would undo it too).
bool JournalPresent(const SysRoot& root);

}  // namespace rtagent
