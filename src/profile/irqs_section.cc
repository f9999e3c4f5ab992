// irqs (Chapters 3 and 6): where every movable IRQ goes, the rules that send chosen ones
// elsewhere, and the interrupts allowed to fire on isolated CPUs during the interrupts check.
#include "profile/sections.h"

namespace rtagent::profile {
namespace {

// "irq: 57" or "irq: [57, 58]".
void ReadIrqNumbers(LoadContext& c, IrqRule& rule, const YamlNode& v, const std::string& what) {
  std::vector<const YamlNode*> items;
  if (v.IsSequence()) {
    for (const YamlNode& i : v.items) items.push_back(&i);
  } else {
    items.push_back(&v);
  }
  std::vector<int> numbers;
  for (const YamlNode* i : items) {
    if (auto n = c.reader().Int(*i, what, 0, 1 << 20)) numbers.push_back(static_cast<int>(*n));
  }
  Assign(&rule.numbers, numbers, v.mark);
}

// A rule needs something to match and somewhere to send what it matches.
void CheckRuleComplete(LoadContext& c, IrqRule& rule, const YamlNode* node, const std::string&) {
  if (!rule.action.IsSet() && !rule.chip.IsSet() && !rule.numbers.IsSet()) {
    c.diags().Error(rule.mark, "IRQ rule '" + rule.name + "' matches nothing", "give it 'action', 'chip' or 'irq' to match");
  }
  if (!Field(node, "cpus")) {
    c.diags().Error(rule.mark, "IRQ rule '" + rule.name + "' has no 'cpus'",
                    "say where its IRQs go: 'cpus: housekeeping' or 'cpus: 3'");
  }
}

void CheckRuleCpus(const CrossCheck& cc, const IrqRule& r) {
  if (r.cpus.IsSet() && r.cpus->cpus.Empty() && r.cpus->keyword != CpuKeyword::kKeep && !cc.Cascade(*r.cpus)) {
    cc.diags().Error(r.cpus.mark, "IRQ rule '" + r.name + "' sends its IRQs to no CPU (" + r.cpus->text + " is empty here)",
                     "give it at least one CPU");
  }
}

const Section<IrqRule>& RuleSection() {
  static const Section<IrqRule> kSection{
      "irqs.rules.<name>",
      {
          OptRegex("action", &IrqRule::action, "an action (device) name, the last column of /proc/interrupts"),
          OptRegex("chip", &IrqRule::chip, "the chip name"),
          Custom<IrqRule>("irq", "integer or list", "", "IRQ numbers",
                          [](LoadContext& c, IrqRule& rule, const YamlNode* v, const std::string& what) {
                            if (v != nullptr) ReadIrqNumbers(c, rule, *v, what);
                          }),
          Cpus("cpus", &IrqRule::cpus, CpuKeywords{}, std::nullopt, "where the matched IRQs go (required)")
              .AndThen(CheckRuleComplete)
              .Checked(CheckRuleCpus),
      }};
  return kSection;
}

IrqAllowance Allow(const char* re, std::optional<double> limit) {
  IrqAllowance a;
  a.match.pattern = re;
  a.match.compiled = std::make_shared<const std::regex>(re);
  a.per_second = limit;
  return a;
}

// An allow-list: a mapping of regular expressions (the keys) to a rate per CPU per second or
// `any`. The defaults are the per-CPU interrupts that still fire on an isolated CPU: the
// residual tick (LOC, arch_timer; at most HZ a second), the IPIs, the timer softirqs.
Key<IrqsConfig> Allowances(std::string name, Marked<std::vector<IrqAllowance>> IrqsConfig::*m,
                           std::vector<IrqAllowance> defaults, std::string meaning) {
  Key<IrqsConfig> k{{std::move(name), "mapping of regex to rate", "see below", std::move(meaning)}};
  k.load = [m, defaults](LoadContext& c, IrqsConfig& q, const YamlNode* node, const std::string& what) {
    (q.*m).value = defaults;
    if (node == nullptr || !c.reader().AnyMap(*node, what)) return;
    std::vector<IrqAllowance> out;
    for (size_t i = 0; i < node->keys.size(); ++i) {
      YamlNode key;
      key.kind = YamlNode::Kind::kScalar;
      key.scalar = node->keys[i];
      key.mark = node->key_marks[i];
      auto re = c.reader().RegexValue(key, what + " key");
      const YamlNode& v = node->items[i];
      if (v.IsNull()) continue;  // null resets: an including file drops an included allowance this way
      IrqAllowance a;
      a.mark = node->key_marks[i];
      if (v.IsScalar() && v.scalar == "any") {
        a.per_second = std::nullopt;
      } else if (auto n = c.reader().Number(v, what + "." + node->keys[i], 0, 1e9)) {
        a.per_second = *n;
      } else {
        continue;
      }
      if (!re) continue;
      a.match = *re;
      out.push_back(std::move(a));
    }
    Assign(&(q.*m), out, node->mark);
  };
  return k;
}

void CheckDefault(const CrossCheck& cc, const IrqsConfig& q) {
  if (q.default_cpus->keyword != CpuKeyword::kKeep && q.default_cpus->cpus.Empty() && !cc.Cascade(*q.default_cpus)) {
    cc.diags().Error(cc.At({q.default_cpus.mark}), "irqs.default names no CPU", "use housekeeping, a CPU list, or keep");
  }
  if (q.default_cpus->keyword == CpuKeyword::kKeep) return;
  // Every movable IRQ onto the CPUs the loop has to itself: the opposite of isolation.
  const CpuSet on = q.default_cpus->cpus.Intersect(cc.Isolated());
  if (!on.Empty()) {
    cc.diags().Warning(cc.At({q.default_cpus.mark}), "irqs.default sends every movable IRQ to isolated CPU " + on.ToList(),
                       "use housekeeping, and a rule under irqs.rules for the IRQ that feeds the loop (Chapter 6)");
  }
}

}  // namespace

const Section<IrqsConfig>& IrqsSection() {
  static const Section<IrqsConfig> kSection{
      "irqs",
      {
          Cpus("default", &IrqsConfig::default_cpus, CpuKeywords{false, true, true, true}, HousekeepingCpus(),
               "affinity of every movable IRQ no rule matches"),
          Named("rules", &IrqsConfig::rules, RuleSection(), "mapping of names to rules",
                "send chosen IRQs elsewhere; the first matching rule, in file order, wins"),
          Choice("irqbalance", &IrqsConfig::irqbalance, IrqbalanceModeNames(), IrqbalanceMode::kBan,
                 "what to do about a running irqbalance"),
          Allowances("allowed", &IrqsConfig::allowed,
                     {Allow("LOC", 1000), Allow("arch_timer", 1000), Allow("RES", 10), Allow("CAL", 10), Allow("TLB", 10),
                      Allow("IPI[0-9]+", 10)},
                     "interrupts allowed to fire on isolated CPUs during the interrupt-delta check"),
          Allowances("allowed_softirqs", &IrqsConfig::allowed_softirqs,
                     {Allow("TIMER", 1000), Allow("HRTIMER", 1000), Allow("SCHED", 1000), Allow("RCU", 1000)},
                     "the same for softirqs"),
      },
      {CheckDefault}};
  return kSection;
}

}  // namespace rtagent::profile
