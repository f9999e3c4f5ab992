#include "tune/ranks_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/count_text.h"
#include "base/kernel_text.h"
#include "inspect/threads.h"
#include "tune/rank_match.h"
#include "tune/rank_order.h"
#include "tune/sched_actuator.h"

namespace rtagent {
namespace {

constexpr char kSection[] = "ranks";
constexpr const char* kWhyOrder =
    "Real-Time Linux, Chapter 4: threaded IRQs start at FIFO 50; raise the one that feeds the loop above it, "
    "the loop above the rest";
constexpr const char* kWhyRanks = "Real-Time Linux, Chapters 2 and 4 (ranks)";

const char* kDeadlineAffinity =
    "a SCHED_DEADLINE thread must be allowed on every CPU of its root domain (EBUSY): give its CPUs a partition "
    "of their own (Chapter 6)";
const char* kDeadlineAdmission =
    "deadline admission control refused the booking (EBUSY): the CPUs' bookings would pass the limit of "
    "sched_rt_runtime_us / sched_rt_period_us (Chapter 2)";

/// What the rule asks of a thread whose class is now `cur`.
SchedAttr Wanted(const profile::RankRule& rule, const SchedAttr& cur) {
  SchedAttr a;
  a.policy = SchedPolicyOf(**rule.policy);
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

bool IsDeadline(const profile::RankRule& rule) {
  return rule.policy->has_value() && **rule.policy == profile::Policy::kDeadline;
}

/// Appends how a person knows the thread: "comm (pid N)", or "comm (tid N of pcomm P)" with
/// its process's name and id.
void AppendDescription(std::string& out, const TaskView& t) {
  out += t.comm;
  if (t.pid == t.tid) {
    out += " (pid ";
  } else {
    out += " (tid ";
    out += std::to_string(t.tid);
    out += " of ";
    out += t.process_comm;
    out += ' ';
  }
  out += std::to_string(t.pid);
  out += ')';
}

std::string Describe(const TaskView& t) {
  std::string out;
  AppendDescription(out, t);
  return out;
}

std::string RuleWhy(const profile::RankRule& rule) {
  return "rank \"" + rule.name + "\" (" + rule.mark.ToString() + "); " + kWhyRanks;
}

const char* AffinityRefusal(const TaskView& t) {
  if (t.PerCpuKthread()) {
    return "a per-CPU kernel thread (PF_NO_SETAFFINITY): the kernel keeps it on its own CPU (EINVAL)";
  }
  return "the CPUs are outside the thread's cpuset or partition, or offline (EINVAL)";
}

/// An item for one thread of `rule`, on the "affinity" or "sched" actuator.
Change ThreadItem(const std::string& why, const TaskView& t, const std::string& what, const std::string& actuator,
                  std::string before, std::string after, Compare compare) {
  Change c;
  c.section = kSection;
  // Built in place: tens of thousands of these on a large server, each made once.
  c.what.reserve(32 + t.comm.size() + t.process_comm.size() + what.size());
  c.what = "thread ";
  AppendDescription(c.what, t);
  c.what += ' ';
  c.what += what;
  c.actuator = actuator;
  c.key = TaskKey({t.pid, t.tid});
  c.before = std::move(before);
  c.after = std::move(after);
  c.compare = compare;
  c.why = why;
  c.refusals.reserve(3);  // the exit, and at most two of the kernel's refusals
  c.refusals.push_back({ESRCH, "the thread exited"});
  return c;
}

/// The items of one thread: affinity first, so a raised thread never runs where it must not.
/// Nothing more once the thread turns out to have exited since the walk. The class comes from
/// the walk's stat line, which has it for every class but deadline: on a large server that
/// saves a system call per thread, on a fixture tree a second read of each stat file. The
/// affinity is asked (sched_getaffinity reports the allowed CPUs that are active, which
/// status's Cpus_allowed_list does not).
void PlanThread(const profile::RankRule& rule, const std::string& why, const TaskView& t, const SchedSyscalls& sys,
                SectionPlan& plan) {
  const TaskId id{t.pid, t.tid};
  // A read that fails is a warning, unless the thread has exited (true: plan nothing more).
  auto exited = [&](const Error& e, const std::string& what) {
    if (e.err == ESRCH) return true;
    plan.findings.push_back(
        {Finding::Level::kWarning, what + " of " + Describe(t) + " cannot be read: " + e.message, rule.mark, kWhyRanks});
    return false;
  };
  if (rule.cpus->has_value()) {
    auto now = sys.GetAffinity(id);
    if (!now && exited(now.error(), "affinity")) return;
    if (now) {
      Change c = ThreadItem(why, t, "affinity", kAffinityActuator, now->ToList(), (*rule.cpus)->cpus.ToList(),
                            Compare::kCpuList);
      c.refusals.push_back({EINVAL, AffinityRefusal(t)});
      if (IsDeadline(rule) || t.policy == kSchedDeadline) c.refusals.push_back({EBUSY, kDeadlineAffinity});
      plan.items.push_back(std::move(c));
    }
  }
  if (rule.policy->has_value()) {
    const std::optional<SchedAttr> walked = SchedAttrOfStat(t);
    auto now = walked ? Result<SchedAttr>(*walked) : sys.GetAttr(id);
    if (!now) {
      exited(now.error(), "scheduling");
      return;
    }
    Change c = ThreadItem(why, t, "scheduling", kSchedActuator, FormatSched(*now), FormatSched(Wanted(rule, *now)),
                          Compare::kExact);
    if (IsDeadline(rule)) c.refusals.push_back({EBUSY, kDeadlineAdmission});
    plan.items.push_back(std::move(c));
  }
}

/// What the kernel will make of a rule before anything is written: a deadline rule narrower
/// than a partition of its own, a rule that pins IRQ threads.
void RuleFindings(const profile::Profile& profile, const profile::RankRule& rule, const std::vector<TaskView>& tasks,
                  const std::vector<size_t>& members, SectionPlan& plan) {
  if (!rule.cpus->has_value()) return;
  if (IsDeadline(rule)) {
    // A deadline thread may not be narrower than its root domain: only a partition of its
    // own (a v2 root/isolated partition, a v1 exclusive cpuset without balancing) allows it.
    const CpuSet& want = (*rule.cpus)->cpus;
    bool own_partition = std::any_of(profile.partitions.begin(), profile.partitions.end(),
                                     [&](const profile::Partition& p) { return p.cpus->cpus == want; });
    if (!own_partition) {
      plan.findings.push_back({Finding::Level::kWarning,
                               "rank \"" + rule.name + "\" is deadline with cpus " + want.ToList() +
                                   ", which are not a partition of their own: the kernel refuses to narrow a "
                                   "deadline thread's affinity below its root domain (EBUSY)",
                               rule.cpus.mark, "sched-deadline.rst, section 5; Real-Time Linux, chapters 2 and 6"});
    }
  }
  if (std::any_of(members.begin(), members.end(), [&](size_t i) { return tasks[i].IrqThread(); })) {
    // kernel/irq/manage.c (irq_thread_check_affinity): a threaded handler is moved to its
    // IRQ's affinity whenever that changes, so the IRQ must go to the same CPUs.
    plan.findings.push_back({Finding::Level::kInfo,
                             "rank \"" + rule.name + "\" pins IRQ threads; each follows its IRQ's affinity again "
                             "when that changes, so send those IRQs to the same CPUs in the irqs section",
                             rule.cpus.mark, "kernel/irq/manage.c, irq_thread_check_affinity; Real-Time Linux, Chapter 4"});
  }
}

/// The declared order on the ranks the rules will give: a thread whose rule sets a policy
/// takes that rule's rank, any other keeps its own.
void OrderFindings(const profile::RanksConfig& cfg, const std::vector<TaskView>& tasks, const RankMembers& m,
                   SectionPlan& plan) {
  std::vector<Rank> rank;
  rank.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::optional<Rank> ruled;
    if (m.rule_of[i] >= 0) ruled = RuleRank(cfg.rules[static_cast<size_t>(m.rule_of[i])]);
    rank.push_back(ruled ? *ruled : LiveRank(tasks[i]));
  }
  const ThreadOrder judged = JudgeThreadOrder(cfg, tasks, m, rank);
  const std::vector<std::string>& order = *cfg.order;
  for (const OrderPair& p : judged.pairs) {
    if (p.holds) continue;
    plan.findings.push_back({Finding::Level::kError,
                             "ranks.order puts \"" + order[p.pos] + "\" above \"" + order[p.pos + 1] + "\", but its thread " +
                                 Describe(tasks[p.weakest]) + " (" + rank[p.weakest].text + ") does not outrank " +
                                 Describe(tasks[p.strongest]) + " (" + rank[p.strongest].text + ")",
                             OrderMark(cfg, p.pos), kWhyOrder});
  }
  if (!judged.loop || judged.loop->offenders.empty()) return;
  const LoopVerdict& loop = *judged.loop;
  std::vector<std::string> offenders;
  for (size_t i : loop.offenders) offenders.push_back(tasks[i].comm + " (" + rank[i].text + ")");
  plan.findings.push_back({Finding::Level::kError,
                           "rank \"" + order[loop.pos] + "\" (" + rank[loop.weakest].text + ") does not outrank " +
                               CountOf(offenders.size(), "IRQ thread", "IRQ threads") +
                               " not declared above it in ranks.order: " + JoinSome(offenders, 5) +
                               "; only the IRQ thread that feeds the loop belongs above it",
                           OrderMark(cfg, loop.pos), kWhyOrder});
}

}  // namespace

Result<SectionPlan> RanksTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::RanksConfig& cfg = ctx.profile.ranks;
  if (cfg.rules.empty()) return plan;

  // 1. The threads, each given to the first rule that matches it.
  const auto walked = TasksForRules(ctx.root, ctx.state, cfg.rules);
  const std::vector<TaskView>& tasks = *walked;
  if (tasks.empty()) {
    plan.findings.push_back({Finding::Level::kWarning, "no thread can be read under " + ctx.root.Dir() + "; ranks left alone",
                             {}, kWhyRanks});
    return plan;
  }
  const RankMembers m = MatchRanks(cfg.rules, tasks);

  // 2. Rule by rule: what the kernel will say, then each thread's items.
  auto sys = factory_(ctx.root, nullptr);
  // At most two items per thread taken (affinity, scheduling): room made once, not by
  // doubling through tens of thousands of items on a big server.
  size_t taken = 0;
  for (const auto& members : m.members) taken += members.size();
  plan.items.reserve(2 * taken);
  for (size_t r = 0; r < cfg.rules.size(); ++r) {
    const profile::RankRule& rule = cfg.rules[r];
    if (m.members[r].empty()) {
      plan.findings.push_back({Finding::Level::kWarning, "rank \"" + rule.name + "\" matches no thread on this system",
                               rule.mark, kWhyRanks});
      continue;
    }
    RuleFindings(ctx.profile, rule, tasks, m.members[r], plan);
    const std::string why = RuleWhy(rule);  // the same for each of the rule's threads
    for (size_t i : m.members[r]) PlanThread(rule, why, tasks[i], *sys, plan);
  }

  // 3. The declared order, on the threads found (Chapter 4).
  OrderFindings(cfg, tasks, m, plan);
  return plan;
}

void RanksTuner::AddActuators(Executor& executor, SysRoot& root) const {
  std::shared_ptr<SchedSyscalls> sys = factory_(root, &root);
  executor.AddActuator(kSchedActuator, std::make_unique<SchedActuator>(sys, SchedActuator::Kind::kPolicy));
  executor.AddActuator(kAffinityActuator, std::make_unique<SchedActuator>(sys, SchedActuator::Kind::kAffinity));
}

std::unique_ptr<Tuner> MakeRanksTuner() { return std::make_unique<RanksTuner>(); }

}  // namespace rtagent
