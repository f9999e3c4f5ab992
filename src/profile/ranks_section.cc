// ranks (Chapters 2 and 4): policy, priority and affinity for the threads and processes each
// rule matches, and the declared order they must keep.
#include <algorithm>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

// Microseconds read best for deadline parameters.
std::string Micros(Duration v) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(v).count();
  if (Duration(std::chrono::microseconds(us)) == v) return std::to_string(us) + "us";
  return std::to_string(v.count()) + "ns";
}

void CheckMatchesSomething(LoadContext& c, RankRule& rule, const YamlNode* node, const std::string&) {
  if (!Field(node, "threads") && !Field(node, "process") && !Field(node, "cmdline")) {
    c.diags().Error(rule.mark, "rank '" + rule.name + "' matches nothing",
                    "give it 'threads' (a thread name regex such as \"irq/[0-9]+-eth0\"), 'process' or 'cmdline'");
  }
}

// The deadline booking the kernel admits (kernel/sched/deadline.c, __checkparam_dl): runtime at
// least 1024 ns (1 << DL_SCALE) and runtime <= deadline <= period.
void CheckDeadline(Diagnostics& d, RankRule& rule) {
  if (*rule.runtime < Duration(1024)) {
    d.Error(rule.runtime.mark, "deadline runtime of rank '" + rule.name + "' is below the kernel's 1024 ns minimum",
            "use a runtime of at least 2us");
  }
  if (*rule.runtime > *rule.deadline) {
    d.Error(rule.runtime.mark,
            "deadline parameters of rank '" + rule.name + "' break runtime <= deadline <= period: runtime " +
                Micros(*rule.runtime) + " > deadline " + Micros(*rule.deadline),
            "the kernel refuses such a booking (EINVAL); shorten the runtime or lengthen the deadline");
  }
  if (*rule.deadline > *rule.period) {
    d.Error(rule.deadline.IsSet() ? rule.deadline.mark : rule.period.mark,
            "deadline parameters of rank '" + rule.name + "' break runtime <= deadline <= period: deadline " +
                Micros(*rule.deadline) + " > period " + Micros(*rule.period),
            "the kernel refuses such a booking (EINVAL); make the deadline at most the period");
  }
  // kernel.sched_deadline_period_{min,max}_us default to 100 us and ~4.2 s.
  if (*rule.period < std::chrono::microseconds(100) || *rule.period > std::chrono::microseconds(4194304)) {
    d.Warning(rule.period.mark, "deadline period of rank '" + rule.name + "' is outside the kernel's default limits (100us..4.19s)",
              "the kernel refuses it unless kernel.sched_deadline_period_min_us/max_us are changed");
  }
}

// Which parameters go with which policy (sched(7), sched_setattr(2)).
void CheckPolicyParams(LoadContext& c, RankRule& rule, const YamlNode* node, const std::string& what) {
  Diagnostics& d = c.diags();
  std::optional<Policy> pol = *rule.policy;
  bool rt = pol && (*pol == Policy::kFifo || *pol == Policy::kRr);
  bool normal = pol && (*pol == Policy::kOther || *pol == Policy::kBatch);
  bool dl = pol && *pol == Policy::kDeadline;
  std::string pname = pol ? ToString(*pol) : "none";
  const SourceMark& pmark = rule.policy.IsSet() ? rule.policy.mark : rule.mark;
  // A policy written but not understood is reported once, as a bad value; which parameters
  // would go with it cannot be judged.
  if (!pol && Field(node, "policy") != nullptr) return;
  if (const YamlNode* v = Field(node, "priority"); v && !pol) {
    d.Error(v->mark, "'" + what + ".priority' needs a policy: rank '" + rule.name + "' has none",
            "add 'policy: fifo' (or rr) beside the priority");
    return;
  }
  if (rt && !Field(node, "priority")) {
    d.Error(pmark, "rank '" + rule.name + "' uses policy " + pname + " but has no priority",
            "add 'priority: 1..99' (IRQ threads start at 50; Chapter 4)");
  }
  if (const YamlNode* v = Field(node, "priority"); v && !rt) {
    d.Error(v->mark, "'" + what + ".priority' applies to policies fifo and rr, not " + pname,
            dl ? "a deadline rank takes runtime, deadline and period" : "use 'nice' for other and batch, or policy fifo");
  }
  if (const YamlNode* v = Field(node, "nice"); v && !normal) {
    d.Error(v->mark, "'" + what + ".nice' applies to policies other and batch, not " + pname,
            "remove 'nice', or use 'priority' with fifo and rr");
  }
  for (const char* k : {"runtime", "deadline", "period"}) {
    if (const YamlNode* v = Field(node, k); v && !dl) {
      d.Error(v->mark, "'" + what + "." + k + "' applies to policy deadline, not " + pname,
              "set 'policy: deadline', or remove runtime/deadline/period");
    }
  }
  if (!dl) return;
  if (!Field(node, "runtime") || !Field(node, "period")) {
    d.Error(pmark, "deadline rank '" + rule.name + "' needs runtime and period",
            "book the budget: 'runtime: 300us', 'period: 1ms' (deadline defaults to the period)");
    return;
  }
  if (!rule.runtime.IsSet() || !rule.period.IsSet()) return;  // already reported
  if (!rule.deadline.IsSet()) rule.deadline.value = *rule.period;
  CheckDeadline(d, rule);
}

void CheckRuleCpus(const CrossCheck& cc, const RankRule& r) {
  if (r.cpus.IsSet() && r.cpus->has_value() && (*r.cpus)->cpus.Empty() && !cc.Cascade(**r.cpus)) {
    cc.diags().Error(r.cpus.mark, "rank '" + r.name + "' allows no CPU", "give it at least one CPU");
  }
}

const Section<RankRule>& RuleSection() {
  static const Section<RankRule> kSection{
      "ranks.rules.<name>",
      {
          OptRegex("threads", &RankRule::threads, "thread names (`comm`) of any process"),
          OptRegex("process", &RankRule::process, "process names"),
          OptRegex("cmdline", &RankRule::cmdline, "command line, arguments joined by spaces").AndThen(CheckMatchesSomething),
          OptChoice("policy", &RankRule::policy, PolicyNames(), "leave", "scheduling policy"),
          Int("priority", &RankRule::priority, {1, 99}, std::nullopt, "real-time priority")
              .Fallback("required for fifo/rr"),
          OptInt("nice", &RankRule::nice, {-20, 19}, "leave", "nice value for other/batch"),
          Dur("runtime", &RankRule::runtime, Duration(1), std::nullopt, "budget per period")
              .Fallback("required for deadline"),
          Dur("deadline", &RankRule::deadline, Duration(1), std::nullopt, "relative deadline").Fallback("the period"),
          Dur("period", &RankRule::period, Duration(1), std::nullopt, "period").Fallback("required for deadline"),
          Custom<RankRule>("cpus", "CPU list", "leave", "affinity",
                           [](LoadContext& c, RankRule& rule, const YamlNode* v, const std::string& what) {
                             if (v == nullptr) return;
                             if (auto cpus = c.reader().Cpus(*v, what, CpuKeywords{})) {
                               Assign(&rule.cpus, std::optional<CpuSpec>(*cpus), v->mark);
                             }
                           })
              .AndThen(CheckPolicyParams)
              .Checked(CheckRuleCpus),
      }};
  return kSection;
}

// ---- the declared order (Chapter 4: the IRQ thread that feeds the loop above it, the loop
// above the rest)

int Level(const RankRule& r) {
  switch (**r.policy) {
    case Policy::kDeadline: return 1000;  // the deadline class runs before every fifo/rr rank
    case Policy::kFifo:
    case Policy::kRr: return *r.priority;
    default: return 0;
  }
}

std::string Describe(const RankRule& r) {
  Policy pol = **r.policy;
  if (pol == Policy::kFifo || pol == Policy::kRr) return ToString(pol) + " " + std::to_string(*r.priority);
  return ToString(pol);
}

// The rules ranks.order names, each once and each with a policy; nullopt when one is not.
std::optional<std::vector<const RankRule*>> OrderedRules(const CrossCheck& cc, const RanksConfig& ranks) {
  const Profile& p = cc.profile();
  const auto& order = *ranks.order;
  std::vector<std::string> names;
  for (const RankRule& r : ranks.rules) names.push_back(r.name);
  std::vector<const RankRule*> ranked;
  bool ok = true;
  for (size_t i = 0; i < order.size(); ++i) {
    SourceMark m = cc.At({i < ranks.order_marks.size() ? ranks.order_marks[i] : SourceMark{}, ranks.order.mark});
    const RankRule* r = p.FindRank(order[i]);
    if (r == nullptr) {
      std::string nearest = NearestWord(order[i], names);
      cc.diags().Error(m, "ranks.order names '" + order[i] + "', which is not a rank rule",
                       nearest.empty() ? "name rules defined under ranks.rules" : "did you mean '" + nearest + "'?");
      ok = false;
      continue;
    }
    if (std::count(order.begin(), order.begin() + static_cast<long>(i), order[i]) > 0) {
      cc.diags().Error(m, "ranks.order lists '" + order[i] + "' twice", "list each rank once, highest first");
      ok = false;
      continue;
    }
    bool rt = r->policy->has_value() && (**r->policy == Policy::kFifo || **r->policy == Policy::kRr);
    if (rt && !r->priority.IsSet()) {
      ok = false;  // already reported: "uses policy fifo but has no priority"
      continue;
    }
    if (!r->policy->has_value()) {
      cc.diags().Error(m, "rank '" + order[i] + "' has no policy, so its place in ranks.order cannot hold",
                       "give it a policy and priority, or leave it out of the order");
      ok = false;
      continue;
    }
    ranked.push_back(r);
  }
  if (!ok) return std::nullopt;
  return ranked;
}

void CheckOrder(const CrossCheck& cc, const RanksConfig& ranks) {
  auto ranked = OrderedRules(cc, ranks);
  if (!ranked) return;
  for (size_t i = 0; i + 1 < ranked->size(); ++i) {
    const RankRule& hi = *(*ranked)[i];
    const RankRule& lo = *(*ranked)[i + 1];
    if (Level(hi) > Level(lo)) continue;
    SourceMark m = cc.At({ranks.order_marks.size() > i ? ranks.order_marks[i] : SourceMark{}});
    cc.diags().Error(m,
                     "ranks.order puts '" + hi.name + "' (" + Describe(hi) + ") above '" + lo.name + "' (" + Describe(lo) +
                         "), but it does not outrank it",
                     (hi.priority.mark.Known()
                          ? "raise '" + hi.name + "' above '" + lo.name + "' (" + hi.priority.mark.ToString() + ")"
                          : "'" + hi.name + "' (" + Describe(hi) + ") has no priority to raise: give it policy fifo above '" +
                                lo.name + "'") +
                         " or change the order; the IRQ thread that feeds a loop must rank above the loop (Chapter 4)");
  }
}

}  // namespace

const Section<RanksConfig>& RanksSection() {
  static const Section<RanksConfig> kSection{
      "ranks",
      {
          Named("rules", &RanksConfig::rules, RuleSection(), "mapping of names to rules",
                "policy, priority and affinity for what each rule matches"),
          Custom<RanksConfig>("order", "list of rule names", "none", "the declared order, highest first",
                              [](LoadContext& c, RanksConfig& ranks, const YamlNode* v, const std::string& what) {
                                if (v == nullptr) return;
                                if (auto names = c.reader().StringList(*v, what, false)) {
                                  Assign(&ranks.order, *names, v->mark);
                                  for (const YamlNode& item : v->items) ranks.order_marks.push_back(item.mark);
                                }
                              })
              .Checked(CheckOrder),
      }};
  return kSection;
}

}  // namespace rtagent::profile
