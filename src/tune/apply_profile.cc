#include "tune/apply_profile.h"

namespace rtagent {

std::unique_ptr<Executor> MakeTuningExecutor(SysRoot& root, Journal& journal) {
  auto ex = std::make_unique<Executor>(root, journal);
  for (const auto& t : AllTuners()) t->AddActuators(*ex, root);
  return ex;
}

Result<ApplyOutcome> ApplyProfile(const profile::Profile& profile, SysRoot& root) {
  auto plan = PlanAll(profile, root);
  if (!plan) return plan.error();
  Journal journal(root);
  if (auto r = journal.Load(); !r) return r.error();
  ApplyOutcome out;
  out.journaled_before = journal.entries().size();
  auto ex = MakeTuningExecutor(root, journal);
  out.report = ex->Apply(plan->PendingChanges());
  out.plan = std::move(*plan);
  return out;
}

Result<RevertReport> RevertJournal(SysRoot& root) {
  Journal journal(root);
  if (auto r = journal.Load(); !r) return r.error();
  auto ex = MakeTuningExecutor(root, journal);
  return ex->Revert();
}

bool JournalPresent(const SysRoot& root) { return root.Exists(Journal::Path()); }

}  // namespace rtagent
