#include "tune/ranks_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_text.h"
#include "inspect/threads.h"
#include "tune/rank_match.h"

namespace rtagent {
namespace {

constexpr const char* kWhyOrder =
    "Real-Time Linux, Chapter 4: threaded IRQs start at FIFO 50; raise the one that feeds the loop above it, "
    "the loop above the rest";
constexpr const char* kWhyRanks = "Real-Time Linux, Chapters 2 and 4 (ranks)";

int PolicyNumber(profile::Policy p) {
  switch (p) {
    case profile::Policy::kFifo: return kSchedFifo;
    case profile::Policy::kRr: return kSchedRr;
    case profile::Policy::kOther: return kSchedOther;
    case profile::Policy::kBatch: return kSchedBatch;
    case profile::Policy::kIdle: return kSchedIdle;
    case profile::Policy::kDeadline: return kSchedDeadline;
  }
  return kSchedOther;
}

/// What the rule asks of a thread whose class is now `cur`.
SchedAttr Wanted(const profile::RankRule& rule, const SchedAttr& cur) {
  SchedAttr a;
  a.policy = PolicyNumber(**rule.policy);
  switch (**rule.policy) {
    case profile::Policy::kFifo:
    case profile::Policy::kRr:
      a.priority = *rule.priority;
      break;
    case profile::Policy::kOther:
    case profile::Policy::kBatch: {
      bool was_normal = cur.policy == kSchedOther || cur.policy == kSchedBatch || cur.policy == kSchedIdle;
      // No nice in the rule: keep the thread's own (0 when it leaves a real-time class).
      a.nice = rule.nice->has_value() ? **rule.nice : (was_normal ? cur.nice : 0);
      break;
    }
    case profile::Policy::kIdle:
      break;
    case profile::Policy::kDeadline: {
      a.runtime_ns = rule.runtime->count();
      a.period_ns = rule.period->count();
      // The loader defaults the deadline to the period (sched_setattr(2): implicit deadline).
      a.deadline_ns = rule.deadline->count() > 0 ? rule.deadline->count() : a.period_ns;
      break;
    }
  }
  return a;
}

/// A rank as the scheduler orders classes: deadline before every fifo/rr priority, those
/// before every normal thread, idle last. "Outranks" is strictly greater.
struct Rank {
  int level = 0;
  std::string text;
};

Rank RankOf(int policy, int priority) {
  switch (policy) {
    case kSchedDeadline: return {1000, "deadline"};
    case kSchedFifo:
    case kSchedRr: return {priority, PolicyName(policy) + " " + std::to_string(priority)};
    case kSchedIdle: return {-1, "idle"};
    default: return {0, PolicyName(policy)};
  }
}

std::string Describe(const TaskView& t) {
  if (t.pid == t.tid) return t.comm + " (pid " + std::to_string(t.pid) + ")";
  return t.comm + " (tid " + std::to_string(t.tid) + " of " + t.process_comm + " " + std::to_string(t.pid) + ")";
}

std::string RuleWhy(const profile::RankRule& rule) {
  return "rank \"" + rule.name + "\" (" + rule.mark.ToString() + "); " + kWhyRanks;
}

std::string AffinityRefusal(const TaskView& t) {
  if (t.PerCpuKthread()) {
    return "a per-CPU kernel thread (PF_NO_SETAFFINITY): the kernel keeps it on its own CPU (EINVAL)";
  }
  return "the CPUs are outside the thread's cpuset or partition, or offline (EINVAL)";
}

const char* kDeadlineAffinity =
    "a SCHED_DEADLINE thread must be allowed on every CPU of its root domain (EBUSY): give its CPUs a partition "
    "of their own (Chapter 6)";
const char* kDeadlineAdmission =
    "deadline admission control refused the booking (EBUSY): the CPUs' bookings would pass the limit of "
    "sched_rt_runtime_us / sched_rt_period_us (Chapter 2)";

std::string JoinSome(const std::vector<std::string>& items, size_t most) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > most) out += " and " + std::to_string(items.size() - most) + " more";
  return out;
}

}  // namespace

Result<SectionPlan> RanksTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::RanksConfig& cfg = ctx.profile.ranks;
  if (cfg.rules.empty()) return plan;

  const std::vector<TaskView> tasks = ListTasksForRules(ctx.root, cfg.rules);
  if (tasks.empty()) {
    plan.findings.push_back({Finding::Level::kWarning, "no thread can be read under " + ctx.root.Dir() + "; ranks left alone",
                             {}, kWhyRanks});
    return plan;
  }

  // Each thread takes the first rule (in file order) that matches it.
  const RankMembers matched = MatchRanks(cfg.rules, tasks);
  const std::vector<int>& rule_of = matched.rule_of;
  const std::vector<std::vector<size_t>>& members = matched.members;

  auto sys = factory_(ctx.root, nullptr);
  for (size_t r = 0; r < cfg.rules.size(); ++r) {
    const profile::RankRule& rule = cfg.rules[r];
    if (members[r].empty()) {
      plan.findings.push_back({Finding::Level::kWarning, "rank \"" + rule.name + "\" matches no thread on this system",
                               rule.mark, kWhyRanks});
      continue;
    }
    bool sets_cpus = rule.cpus->has_value();
    bool sets_policy = rule.policy->has_value();
    bool deadline = sets_policy && **rule.policy == profile::Policy::kDeadline;
    if (deadline && sets_cpus) {
      // A deadline thread may not be narrower than its root domain: only a partition of its
      // own (a v2 root/isolated partition, a v1 exclusive cpuset without balancing) allows it.
      const CpuSet& want = (*rule.cpus)->cpus;
      bool own_partition = std::any_of(ctx.profile.partitions.begin(), ctx.profile.partitions.end(),
                                       [&](const profile::Partition& p) { return p.cpus->cpus == want; });
      if (!own_partition) {
        plan.findings.push_back({Finding::Level::kWarning,
                                 "rank \"" + rule.name + "\" is deadline with cpus " + want.ToList() +
                                     ", which are not a partition of their own: the kernel refuses to narrow a "
                                     "deadline thread's affinity below its root domain (EBUSY)",
                                 rule.cpus.mark, "sched-deadline.rst, section 5; Real-Time Linux, chapters 2 and 6"});
      }
    }
    if (sets_cpus && std::any_of(members[r].begin(), members[r].end(), [&](size_t i) { return tasks[i].IrqThread(); })) {
      // kernel/irq/manage.c (irq_thread_check_affinity): a threaded handler is moved to its
      // IRQ's affinity whenever that changes, so the IRQ must go to the same CPUs.
      plan.findings.push_back({Finding::Level::kInfo,
                               "rank \"" + rule.name + "\" pins IRQ threads; each follows its IRQ's affinity again "
                               "when that changes, so send those IRQs to the same CPUs in the irqs section",
                               rule.cpus.mark, "kernel/irq/manage.c, irq_thread_check_affinity; Real-Time Linux, Chapter 4"});
    }
    for (size_t i : members[r]) {
      const TaskView& t = tasks[i];
      TaskId id{t.pid, t.tid};
      if (sets_cpus) {
        auto now = sys->GetAffinity(id);
        if (!now) {
          if (now.error().err == ESRCH) continue;  // exited since the walk
          plan.findings.push_back({Finding::Level::kWarning, "affinity of " + Describe(t) + " cannot be read: " +
                                                                 now.error().message,
                                   rule.mark, kWhyRanks});
        } else {
          Change c;
          c.section = Section();
          c.what = "thread " + Describe(t) + " affinity";
          c.actuator = kAffinityActuator;
          c.key = TaskKey(id);
          c.before = now->ToList();
          c.after = (*rule.cpus)->cpus.ToList();
          c.compare = Compare::kCpuList;
          c.why = RuleWhy(rule);
          c.refusals.push_back({ESRCH, "the thread exited"});
          c.refusals.push_back({EINVAL, AffinityRefusal(t)});
          if (deadline || t.policy == kSchedDeadline) c.refusals.push_back({EBUSY, kDeadlineAffinity});
          plan.items.push_back(std::move(c));
        }
      }
      if (sets_policy) {
        auto now = sys->GetAttr(id);
        if (!now) {
          if (now.error().err == ESRCH) continue;
          plan.findings.push_back({Finding::Level::kWarning, "scheduling of " + Describe(t) + " cannot be read: " +
                                                                 now.error().message,
                                   rule.mark, kWhyRanks});
          continue;
        }
        Change c;
        c.section = Section();
        c.what = "thread " + Describe(t) + " scheduling";
        c.actuator = kSchedActuator;
        c.key = TaskKey(id);
        c.before = FormatSched(*now);
        c.after = FormatSched(Wanted(rule, *now));
        c.compare = Compare::kExact;
        c.why = RuleWhy(rule);
        c.refusals.push_back({ESRCH, "the thread exited"});
        if (deadline) c.refusals.push_back({EBUSY, kDeadlineAdmission});
        plan.items.push_back(std::move(c));
      }
    }
  }

  // ---- the declared order, on the threads found (Chapter 4)
  auto effective = [&](size_t i) {
    int r = rule_of[i];
    if (r >= 0 && cfg.rules[static_cast<size_t>(r)].policy->has_value()) {
      const auto& rule = cfg.rules[static_cast<size_t>(r)];
      return RankOf(PolicyNumber(**rule.policy), rule.priority.IsSet() ? *rule.priority : 0);
    }
    return RankOf(tasks[i].policy, static_cast<int>(tasks[i].rt_priority));
  };
  auto index_of = [&](const std::string& name) -> int {
    for (size_t r = 0; r < cfg.rules.size(); ++r) {
      if (cfg.rules[r].name == name) return static_cast<int>(r);
    }
    return -1;
  };
  auto order_mark = [&](size_t pos) {
    return pos < cfg.order_marks.size() ? cfg.order_marks[pos] : cfg.order.mark;
  };
  const std::vector<std::string>& order = *cfg.order;
  // Every matched thread of rank i must outrank every matched thread of rank i+1.
  for (size_t pos = 0; pos + 1 < order.size(); ++pos) {
    int hi = index_of(order[pos]);
    int lo = index_of(order[pos + 1]);
    if (hi < 0 || lo < 0 || members[static_cast<size_t>(hi)].empty() || members[static_cast<size_t>(lo)].empty()) continue;
    size_t weakest = members[static_cast<size_t>(hi)].front();
    for (size_t i : members[static_cast<size_t>(hi)]) {
      if (effective(i).level < effective(weakest).level) weakest = i;
    }
    size_t strongest = members[static_cast<size_t>(lo)].front();
    for (size_t i : members[static_cast<size_t>(lo)]) {
      if (effective(i).level > effective(strongest).level) strongest = i;
    }
    if (effective(weakest).level > effective(strongest).level) continue;
    plan.findings.push_back(
        {Finding::Level::kError,
         "ranks.order puts \"" + order[pos] + "\" above \"" + order[pos + 1] + "\", but its thread " +
             Describe(tasks[weakest]) + " (" + effective(weakest).text + ") does not outrank " +
             Describe(tasks[strongest]) + " (" + effective(strongest).text + ")",
         order_mark(pos), kWhyOrder});
  }
  // A loop (a rank of application threads) must outrank every IRQ thread not declared above
  // it: only the IRQ thread that feeds it belongs higher.
  for (size_t pos = 0; pos < order.size(); ++pos) {
    int r = index_of(order[pos]);
    if (r < 0 || members[static_cast<size_t>(r)].empty()) continue;
    const auto& loop = members[static_cast<size_t>(r)];
    // A loop is the application's: a rank of kernel threads (ktimers/*, rcuc/*) is not one.
    if (std::any_of(loop.begin(), loop.end(), [&](size_t i) { return tasks[i].Kthread(); })) continue;
    size_t weakest = loop.front();
    for (size_t i : loop) {
      if (effective(i).level < effective(weakest).level) weakest = i;
    }
    Rank loop_rank = effective(weakest);
    if (loop_rank.level <= 0) continue;  // not a real-time loop: every IRQ thread is above it by design
    std::vector<std::string> offenders;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!tasks[i].IrqThread()) continue;
      int owner = rule_of[i];
      bool declared_above = false;
      for (size_t above = 0; above < pos; ++above) declared_above |= owner >= 0 && index_of(order[above]) == owner;
      if (declared_above) continue;
      Rank rank = effective(i);
      if (rank.level >= loop_rank.level) offenders.push_back(tasks[i].comm + " (" + rank.text + ")");
    }
    if (offenders.empty()) continue;
    plan.findings.push_back({Finding::Level::kError,
                             "rank \"" + order[pos] + "\" (" + loop_rank.text + ") does not outrank " +
                                 std::to_string(offenders.size()) + " IRQ thread" + (offenders.size() == 1 ? "" : "s") +
                                 " not declared above it in ranks.order: " + JoinSome(offenders, 5) +
                                 "; only the IRQ thread that feeds the loop belongs above it",
                             order_mark(pos), kWhyOrder});
  }
  return plan;
}

void RanksTuner::AddActuators(Executor& executor, SysRoot& root) const {
  std::shared_ptr<SchedSyscalls> sys = factory_(root, &root);
  executor.AddActuator(kSchedActuator, std::make_unique<SchedActuator>(sys, SchedActuator::Kind::kPolicy));
  executor.AddActuator(kAffinityActuator, std::make_unique<SchedActuator>(sys, SchedActuator::Kind::kAffinity));
}

std::unique_ptr<Tuner> MakeRanksTuner() { return std::make_unique<RanksTuner>(); }

}  // namespace rtagent
