// Rank order: which thread the scheduler runs first, and whether the profile's declared order
// holds (Real-Time Linux, Chapters 2 and 4). The one owner of what outranks what, of
// ranks.order, and of the loop against the IRQ threads: the ranks tuner asks it about the
// ranks its rules will give, the ranks check about the threads' live ranks, the lint about the
// rules alone.
//
// The kernel picks the next thread class by class (kernel/sched/sched.h, the sched_class list:
// stop, deadline, rt, fair, idle task): every SCHED_DEADLINE thread before every FIFO/RR one,
// FIFO/RR by rt priority (1..99), then the fair class. SCHED_OTHER, SCHED_BATCH and SCHED_IDLE
// all run in the fair class and share it by weight, so none of them outranks another.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inspect/threads.h"
#include "profile/model.h"
#include "tune/rank_match.h"

namespace rtagent {

/// A place in the scheduler's order.
struct Rank {
  int level = 0;     ///< only for comparing: deadline above every rt priority, fifo/rr 1..99, fair 0
  std::string text;  ///< "deadline", "fifo 80", "rr 20", "other", "idle"
  /// Strictly ahead: whenever both are ready the scheduler runs this one. Equal is not ahead.
  bool Outranks(const Rank& other) const { return level > other.level; }
};

/// The rank of a thread in `policy` (a SCHED_* number) at rt priority `priority`.
Rank RankOf(int policy, int priority);
/// A thread's rank now, from its stat line's policy and rt priority.
Rank LiveRank(const TaskView& t);
/// The SCHED_* number of a profile policy.
int SchedPolicyOf(profile::Policy policy);
/// The rank a rule gives its threads; nullopt when the rule leaves their policy alone.
std::optional<Rank> RuleRank(const profile::RankRule& rule);

/// The FIFO priority the kernel starts every threaded IRQ handler at (kernel/irq/manage.c,
/// setup_irq_thread: MAX_RT_PRIO / 2).
inline constexpr int kIrqThreadPriority = 50;

/// The profile line of entry `pos` of ranks.order (the list's own line when unknown).
profile::SourceMark OrderMark(const profile::RanksConfig& ranks, size_t pos);

// ---- on the rules alone: what the profile will make

/// A rule for threaded IRQ handlers: its thread pattern starts with "irq/".
bool IsIrqRule(const profile::RankRule& rule);
/// A rule for a real-time loop: FIFO or RR, on a process, a command line, or threads that are
/// not the kernel's own (irq/, ktimers/, rcu*, ksoftirqd/, kworker/, ...).
bool IsLoopRule(const profile::RankRule& rule);

/// Two neighbours of ranks.order, as rules.
struct RulePair {
  size_t pos = 0;  ///< the higher rule's index in ranks.order
  const profile::RankRule* higher = nullptr;
  const profile::RankRule* lower = nullptr;
};
/// Neighbours in ranks.order whose rules both set a policy and the higher does not outrank
/// the lower.
std::vector<RulePair> BrokenRuleOrder(const profile::RanksConfig& ranks);
/// (loop, IRQ rule) pairs where an IRQ rule raised above kIrqThreadPriority, so feeding a loop,
/// shares CPUs with a loop rule ranked at or above it: the loop waits for its own data
/// (Chapter 4). Rules without cpus share every CPU.
std::vector<std::pair<const profile::RankRule*, const profile::RankRule*>> LoopsAtOrAboveFeeder(
    const profile::RanksConfig& ranks);
/// Loop rules ranked at or below kIrqThreadPriority: any busy device's IRQ thread delays them.
std::vector<const profile::RankRule*> LoopsAtOrBelowIrqThreads(const profile::RanksConfig& ranks);

// ---- on the threads: the ranks the rules will give (tuner) or the live ones (check)

/// Two neighbours of ranks.order that both matched threads: the weakest thread of the higher
/// rank against the strongest of the lower. Indexes are into the task list.
struct OrderPair {
  size_t pos = 0;  ///< the higher rank's index in ranks.order
  size_t weakest = 0;
  size_t strongest = 0;
  bool holds = false;
};

/// The loop: the first rank in ranks.order whose threads are all user threads in a real-time
/// class. Chapter 4: it must outrank every IRQ thread not declared above it, since only the
/// one that feeds it belongs higher. User ranks declared below it (a logger, a comms thread)
/// are placed by the order alone and may sit below the IRQ threads.
struct LoopVerdict {
  size_t pos = 0;                 ///< the loop's index in ranks.order
  size_t weakest = 0;             ///< its weakest thread
  std::vector<size_t> offenders;  ///< IRQ threads not declared above it, at or above it; empty: it holds
};

/// ranks.order judged on threads.
struct ThreadOrder {
  std::vector<OrderPair> pairs;
  std::optional<LoopVerdict> loop;  ///< nullopt when no rank is a loop
};

/// Judges ranks.order on `tasks`, matched to the rules by `m`, task i ranked `rank[i]`.
ThreadOrder JudgeThreadOrder(const profile::RanksConfig& ranks, const std::vector<TaskView>& tasks,
                             const RankMembers& m, const std::vector<Rank>& rank);

}  // namespace rtagent
