#include "tune/rank_order.h"

#include <algorithm>

namespace rtagent {
namespace {

// Above every rt priority (1..99, MAX_RT_PRIO - 1): the deadline class runs first.
constexpr int kDeadlineLevel = 1000;

int RuleIndex(const profile::RanksConfig& ranks, const std::string& name) {
  for (size_t r = 0; r < ranks.rules.size(); ++r) {
    if (ranks.rules[r].name == name) return static_cast<int>(r);
  }
  return -1;
}

const profile::RankRule* FindRule(const profile::RanksConfig& ranks, const std::string& name) {
  int r = RuleIndex(ranks, name);
  return r < 0 ? nullptr : &ranks.rules[static_cast<size_t>(r)];
}

bool IsKernelThreadPattern(const std::string& pattern) {
  static const std::vector<std::string> kPrefixes = {"irq/", "ktimers/", "rcu", "ksoftirqd/", "kworker/", "migration/",
                                                     "watchdog", "irq_work/", "cpuhp/", "kthreadd", "stalld"};
  for (const auto& k : kPrefixes) {
    if (pattern.rfind(k, 0) == 0) return true;
  }
  return false;
}

bool CpusOverlap(const profile::RankRule& a, const profile::RankRule& b) {
  if (!a.cpus->has_value() || !b.cpus->has_value()) return true;
  return (*a.cpus)->cpus.Intersects((*b.cpus)->cpus);
}

const Rank& IrqThreadDefault() {
  static const Rank kRank = RankOf(kSchedFifo, kIrqThreadPriority);
  return kRank;
}

// The first of `tasks` with the lowest rank, or with the highest when `strongest`.
size_t Extreme(const std::vector<size_t>& tasks, const std::vector<Rank>& rank, bool strongest) {
  size_t best = tasks.front();
  for (size_t i : tasks) {
    if (strongest ? rank[i].Outranks(rank[best]) : rank[best].Outranks(rank[i])) best = i;
  }
  return best;
}

// The tasks of the rule at ranks.order[pos]; null when the name is no rule (validate says so).
const std::vector<size_t>* MembersAt(const profile::RanksConfig& ranks, const RankMembers& m, size_t pos) {
  int r = RuleIndex(ranks, (*ranks.order)[pos]);
  return r < 0 ? nullptr : &m.members[static_cast<size_t>(r)];
}

}  // namespace

Rank RankOf(int policy, int priority) {
  switch (policy) {
    case kSchedDeadline: return {kDeadlineLevel, "deadline"};
    case kSchedFifo:
    case kSchedRr: return {priority, PolicyName(policy) + " " + std::to_string(priority)};
    default: return {0, PolicyName(policy)};  // the fair class: other, batch, idle
  }
}

Rank LiveRank(const TaskView& t) { return RankOf(t.policy, static_cast<int>(t.rt_priority)); }

int SchedPolicyOf(profile::Policy policy) {
  switch (policy) {
    case profile::Policy::kFifo: return kSchedFifo;
    case profile::Policy::kRr: return kSchedRr;
    case profile::Policy::kOther: return kSchedOther;
    case profile::Policy::kBatch: return kSchedBatch;
    case profile::Policy::kIdle: return kSchedIdle;
    case profile::Policy::kDeadline: return kSchedDeadline;
  }
  return kSchedOther;
}

std::optional<Rank> RuleRank(const profile::RankRule& rule) {
  if (!rule.policy->has_value()) return std::nullopt;
  return RankOf(SchedPolicyOf(**rule.policy), rule.priority.IsSet() ? *rule.priority : 0);
}

profile::SourceMark OrderMark(const profile::RanksConfig& ranks, size_t pos) {
  return pos < ranks.order_marks.size() ? ranks.order_marks[pos] : ranks.order.mark;
}

bool IsIrqRule(const profile::RankRule& rule) {
  return rule.threads->has_value() && (*rule.threads)->pattern.rfind("irq/", 0) == 0;
}

bool IsLoopRule(const profile::RankRule& rule) {
  if (!rule.policy->has_value() || (**rule.policy != profile::Policy::kFifo && **rule.policy != profile::Policy::kRr)) {
    return false;
  }
  if (rule.process->has_value() || rule.cmdline->has_value()) return true;
  return rule.threads->has_value() && !IsKernelThreadPattern((*rule.threads)->pattern);
}

std::vector<RulePair> BrokenRuleOrder(const profile::RanksConfig& ranks) {
  std::vector<RulePair> out;
  const auto& order = *ranks.order;
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    const auto* a = FindRule(ranks, order[i]);
    const auto* b = FindRule(ranks, order[i + 1]);
    if (!a || !b) continue;
    auto ra = RuleRank(*a), rb = RuleRank(*b);
    if (ra && rb && !ra->Outranks(*rb)) out.push_back({i, a, b});
  }
  return out;
}

std::vector<std::pair<const profile::RankRule*, const profile::RankRule*>> LoopsAtOrAboveFeeder(
    const profile::RanksConfig& ranks) {
  std::vector<std::pair<const profile::RankRule*, const profile::RankRule*>> out;
  for (const auto& irq : ranks.rules) {
    auto li = RuleRank(irq);
    if (!IsIrqRule(irq) || !li || !li->Outranks(IrqThreadDefault())) continue;
    for (const auto& loop : ranks.rules) {
      auto ll = RuleRank(loop);
      if (!IsLoopRule(loop) || !ll || !CpusOverlap(irq, loop)) continue;
      if (!li->Outranks(*ll)) out.emplace_back(&loop, &irq);
    }
  }
  return out;
}

std::vector<const profile::RankRule*> LoopsAtOrBelowIrqThreads(const profile::RanksConfig& ranks) {
  std::vector<const profile::RankRule*> out;
  for (const auto& loop : ranks.rules) {
    auto l = RuleRank(loop);
    if (IsLoopRule(loop) && l && !l->Outranks(IrqThreadDefault())) out.push_back(&loop);
  }
  return out;
}

ThreadOrder JudgeThreadOrder(const profile::RanksConfig& ranks, const std::vector<TaskView>& tasks,
                             const RankMembers& m, const std::vector<Rank>& rank) {
  ThreadOrder out;
  const std::vector<std::string>& order = *ranks.order;
  // Every thread of a rank must outrank every thread of the next rank in the order.
  for (size_t pos = 0; pos + 1 < order.size(); ++pos) {
    const auto* hi = MembersAt(ranks, m, pos);
    const auto* lo = MembersAt(ranks, m, pos + 1);
    if (!hi || !lo || hi->empty() || lo->empty()) continue;
    size_t weakest = Extreme(*hi, rank, false);
    size_t strongest = Extreme(*lo, rank, true);
    out.pairs.push_back({pos, weakest, strongest, rank[weakest].Outranks(rank[strongest])});
  }
  // The loop against every IRQ thread not declared above it.
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const auto* loop = MembersAt(ranks, m, pos);
    if (!loop || loop->empty()) continue;
    // A loop is the application's: a rank of kernel threads (ktimers/*, rcuc/*) is not one.
    if (std::any_of(loop->begin(), loop->end(), [&](size_t i) { return tasks[i].Kthread(); })) continue;
    LoopVerdict v;
    v.pos = pos;
    v.weakest = Extreme(*loop, rank, false);
    const Rank fair = RankOf(kSchedOther, 0);
    if (!rank[v.weakest].Outranks(fair)) continue;  // not real-time: every IRQ thread is above it by design
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!tasks[i].IrqThread()) continue;
      bool declared_above = false;
      for (size_t above = 0; above < pos; ++above) {
        declared_above |= m.rule_of[i] >= 0 && RuleIndex(ranks, order[above]) == m.rule_of[i];
      }
      if (!declared_above && !rank[v.weakest].Outranks(rank[i])) v.offenders.push_back(i);
    }
    out.loop = std::move(v);
    break;
  }
  return out;
}

}  // namespace rtagent
