#include "tune/apply_profile.h"

namespace rtagent {
namespace {

// The plan's pending changes, moved out in apply order (PendingChanges() copies them). The plan
// keeps what is read of it after apply: its findings, its boot summary and its boot-time items
// (RebootRequired()); the items that already match are dropped. On the large tree (issue 19)
// the plan held 27,556 items and the changes were a copy of 14,271 of them, both kept to the end.
std::vector<Change> TakePendingChanges(FullPlan& plan) {
  std::vector<Change> out;
  for (SectionPlan& s : plan.sections) {
    std::vector<Change> kept;
    for (Change& c : s.items) {
      if (!Pending(c)) continue;
      if (c.reboot) kept.push_back(c);
      out.push_back(std::move(c));
    }
    s.items = std::move(kept);
  }
  return out;
}

}  // namespace

std::unique_ptr<Executor> MakeTuningExecutor(SysRoot& root, Journal& journal) {
  auto ex = std::make_unique<Executor>(root, journal);
  for (const auto& t : AllTuners()) t->AddActuators(*ex, root);
  return ex;
}

Result<ApplyOutcome> ApplyProfile(const profile::Profile& profile, SysRoot& root, const std::atomic<bool>* stop) {
  auto plan = PlanAll(profile, root);
  if (!plan) return plan.error();
  Journal journal(root);
  if (auto r = journal.Load(); !r) return r.error();
  ApplyOutcome out;
  out.journaled_before = journal.entries().size();
  auto ex = MakeTuningExecutor(root, journal);
  ex->StopWhen(stop);
  out.report = ex->Apply(TakePendingChanges(*plan));
  out.plan = std::move(*plan);
  return out;
}

Result<RevertReport> RevertJournal(SysRoot& root) {
  Journal journal(root);
  if (auto r = journal.Load(); !r) return r.error();
  auto ex = MakeTuningExecutor(root, journal);
  return ex->Revert();
}

bool JournalPresent(const SysRoot& root) { return root.Exists(Journal::Path()) || root.Exists(Journal::BootPath()); }

}  // namespace rtagent
