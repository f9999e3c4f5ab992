// The tuner registry: one row per tuner, in the order apply runs them. Boot-time and global
// settings first, then where things may run (partitions), then what runs there (IRQs, ranks).
#include <algorithm>

#include "tune/cores_tuner.h"
#include "tune/irqs_tuner.h"
#include "tune/memory_tuner.h"
#include "tune/network_tuner.h"
#include "tune/offline_tuner.h"
#include "tune/partitions_tuner.h"
#include "tune/power_tuner.h"
#include "tune/ranks_tuner.h"
#include "tune/sysctls_tuner.h"
#include "tune/systemd_tuner.h"
#include "tune/tuner.h"

namespace rtagent {

std::vector<std::unique_ptr<Tuner>> AllTuners() {
  std::vector<std::unique_ptr<Tuner>> t;
  t.push_back(std::make_unique<CoresTuner>());
  t.push_back(std::make_unique<MemoryTuner>());
  t.push_back(std::make_unique<SysctlsTuner>());
  t.push_back(std::make_unique<NetworkTuner>());
  t.push_back(std::make_unique<SystemdTuner>());
  t.push_back(std::make_unique<PowerTuner>());
  t.push_back(std::make_unique<PartitionsTuner>());
  t.push_back(std::make_unique<IrqsTuner>());
  t.push_back(std::make_unique<RanksTuner>());
  t.push_back(std::make_unique<OfflineTuner>());
  return t;
}

std::vector<Change> FullPlan::PendingChanges() const {
  std::vector<Change> out;
  for (const auto& s : sections) {
    for (const auto& c : s.items) {
      if (Pending(c)) out.push_back(c);
    }
  }
  return out;
}

std::vector<Change> FullPlan::RebootRequired() const {
  std::vector<Change> out;
  for (const auto& s : sections) {
    for (const auto& c : s.items) {
      if (c.reboot && Pending(c)) out.push_back(c);
    }
  }
  return out;
}

const std::vector<Section>& PlanSections() {
  static const std::vector<Section> kSections = [] {
    std::vector<Section> out;
    for (Section s : AllSections()) {
      for (const auto& tuner : AllTuners()) {
        auto reads = tuner->Reads();
        if (std::find(reads.begin(), reads.end(), s) != reads.end()) {
          out.push_back(s);
          break;
        }
      }
    }
    return out;
  }();
  return kSections;
}

std::vector<const profile::BlockBase*> TunerSections() {
  std::vector<const profile::BlockBase*> out;
  for (const auto& tuner : AllTuners()) {
    if (const profile::BlockBase* b = tuner->OwnSection()) out.push_back(b);
  }
  return out;
}

Result<FullPlan> PlanAll(const profile::Profile& profile, const SysRoot& root) {
  // Not every section: kernel, threads, memory, cgroups and clock were collected and thrown
  // away, at every `hold` tick too (every thread's stat read twice). The threads come only
  // when both the partitions tuner (its deadline test reads the real-time threads) and the
  // ranks tuner (its rules' threads) would walk proc/ each on its own: the state walks once
  // and keeps the list for both, as verify's does (TasksForRules, RefuseDeadlineCpus).
  std::vector<Section> sections = PlanSections();
  const bool both_walk = !profile.partitions.empty() && !profile.ranks.rules.empty();
  if (both_walk) sections.push_back(Section::kThreads);
  return PlanAll(profile, root, CollectSystemState(root, sections, nullptr, /*keep_tasks=*/both_walk));
}

Result<FullPlan> PlanAll(const profile::Profile& profile, const SysRoot& root, const SystemState& state) {
  PlanContext ctx{profile, root, state};
  FullPlan plan;
  for (const auto& tuner : AllTuners()) {
    auto s = tuner->Plan(ctx);
    if (!s) return Wrap(tuner->Section() + ": ", s.error());
    s->chapter = tuner->Chapter();
    plan.sections.push_back(std::move(*s));
  }
  return plan;
}

}  // namespace rtagent
