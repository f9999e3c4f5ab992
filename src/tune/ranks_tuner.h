// ranks: scheduling policy, priority and CPU affinity of the threads the profile's rank rules
// match (kernel threads such as irq/*-eth0 and ktimers/*, named processes), and the declared
// rank order checked on the threads found (the lesson's chapters 2 and 4: the IRQ thread that
// feeds the loop above the loop, the loop above every other IRQ thread). Threads come from
// inspect (ListTasks), matching from rank_match.h, the order from rank_order.h.
#pragma once

#include <string>

#include "tune/sched_syscalls.h"
#include "tune/tuner.h"

namespace rtagent {

class RanksTuner : public Tuner {
 public:
  /// `factory` makes the syscall layer: live syscalls on the running system, the fixture twin
  /// under --root (DefaultSchedFactory); tests pass fakes that inject errors.
  explicit RanksTuner(SchedFactory factory = DefaultSchedFactory()) : factory_(std::move(factory)) {}
  std::string Section() const override { return "ranks"; }
  int Chapter() const override { return 4; }
  /// One "affinity" item (when the rule sets cpus) and one "sched" item (when it sets a
  /// policy) per matched thread, in rule order. A thread matched by several rules takes the
  /// first in file order. Findings: rules that match nothing (warning), rank order and
  /// Chapter 4 violations on the matched threads (error, at the line of ranks.order).
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  /// Registers "sched" and "affinity", sharing one syscall layer made by the factory.
  void AddActuators(Executor& executor, SysRoot& root) const override;

 private:
  SchedFactory factory_;
};

/// The registry's constructor for the ranks section.
std::unique_ptr<Tuner> MakeRanksTuner();

}  // namespace rtagent
