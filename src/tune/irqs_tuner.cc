#include "tune/irqs_tuner.h"

#include <cerrno>
#include <set>

#include "base/kernel_paths.h"
#include "tune/irqbalance.h"

namespace rtagent {

namespace {

constexpr const char* kWhy = "Real-Time Linux, chapters 3 and 6 (device taps, irqaffinity)";

// Why the kernel refuses to move `irq`, for the errno it answers: kernel/irq/proc.c's
// write_irq_affinity() refuses an IRQ whose affinity user space may not set
// (irq_can_set_affinity_usr(): a managed IRQ, one whose chip cannot move it) with EIO in older
// kernels and EPERM in newer ones: seen on this project's 6.18 guest for virtio-blk's managed
// queue line (virtio1-req.0), which rejects even its current value. apply runs only as root
// (CanWrite), so EPERM on this file is the kernel's refusal, not ours. Literals: the plan keeps
// a pointer to one (KnownRefusal).
const char* RefusalReason(const IrqInfo& irq, bool eperm) {
  if (irq.irq == 0) {
    return eperm ? "IRQ 0 is the system timer; the kernel keeps it where it is (EPERM)"
                 : "IRQ 0 is the system timer; the kernel keeps it where it is (EIO)";
  }
  if (irq.managed_hint) {
    return eperm ? "a managed IRQ: the driver spread its queues over the CPUs and the kernel refuses to move them "
                   "(EPERM, as root); isolcpus=managed_irq (cores.boot) keeps them off isolated CPUs once booted, "
                   "and the interrupts check says whether one fires there"
                 : "a managed IRQ: the driver spread its queues over the CPUs and the kernel refuses to move them "
                   "(EIO); isolcpus=managed_irq (cores.boot) keeps them off isolated CPUs once booted, "
                   "and the interrupts check says whether one fires there";
  }
  return eperm ? "the kernel refused to move this IRQ (EPERM, as root): a managed or per-CPU interrupt, or an "
                 "interrupt domain that does not accept a new affinity (a hypervisor's MSI-X queue line, for one)"
               : "the kernel refused to move this IRQ (EIO): a per-CPU or managed interrupt";
}

}  // namespace

const profile::IrqRule* MatchIrqRule(const profile::IrqsConfig& config, const IrqInfo& irq) {
  for (const auto& rule : config.rules) {
    bool ok = true;
    if (rule.action->has_value()) {
      bool any = false;
      for (const auto& a : irq.actions) any = any || (*rule.action)->Matches(a);
      ok = ok && any;
    }
    if (rule.chip->has_value()) ok = ok && (*rule.chip)->Matches(irq.chip);
    if (!rule.numbers->empty()) {
      bool any = false;
      for (int n : *rule.numbers) any = any || n == irq.irq;
      ok = ok && any;
    }
    if (ok) return &rule;
  }
  return nullptr;
}

Result<SectionPlan> IrqsTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const profile::IrqsConfig& cfg = ctx.profile.irqs;
  // irqbalance first: banned (or stopped) before the IRQs move, so it does not move them back.
  PlanIrqbalance(ctx, plan);
  if (!ctx.state.irqs || !ctx.state.irqs->readable) {
    plan.findings.push_back({Finding::Level::kWarning, "the interrupt table cannot be read; IRQs left alone", {}, kWhy});
    return plan;
  }
  std::set<const profile::IrqRule*> used;
  for (const IrqInfo& irq : ctx.state.irqs->irqs) {
    const profile::IrqRule* rule = MatchIrqRule(cfg, irq);
    const profile::CpuSpec* target = nullptr;
    std::string why = kWhy;
    if (rule) {
      used.insert(rule);
      target = &*rule->cpus;
      why = "irqs rule \"" + rule->name + "\" (" + rule->mark.ToString() + ")";
    } else if (cfg.default_cpus->keyword != profile::CpuKeyword::kKeep) {
      target = &*cfg.default_cpus;
    }
    if (!target || target->cpus.Empty()) continue;
    std::string name = irq.Name().empty() ? "" : " (" + irq.Name() + ")";
    if (irq.per_cpu) {
      plan.findings.push_back({Finding::Level::kInfo,
                               "IRQ " + std::to_string(irq.irq) + name + " is per-CPU: it fires on every CPU and cannot move",
                               {}, kWhy});
      continue;
    }
    if (!irq.affinity) continue;  // no smp_affinity_list: nothing the kernel lets us set
    Change c;
    c.section = Section();
    c.what = "IRQ " + std::to_string(irq.irq) + name + " affinity";
    c.key = kpath::ProcIrq(irq.irq) + "/smp_affinity_list";
    c.before = irq.affinity->ToList();
    c.after = target->cpus.ToList();
    c.compare = Compare::kCpuList;
    c.why = why;
    c.refusals.push_back({EIO, RefusalReason(irq, false)});
    c.refusals.push_back({EPERM, RefusalReason(irq, true)});
    plan.items.push_back(std::move(c));
  }
  for (const auto& rule : cfg.rules) {
    if (!used.count(&rule)) {
      plan.findings.push_back({Finding::Level::kWarning, "irqs rule \"" + rule.name + "\" matches no IRQ on this system",
                               rule.mark, kWhy});
    }
  }
  // New IRQs (a USB device, a driver reload) start on default_smp_affinity: the cores
  // section sets it to housekeeping so they are born in the right place.
  return plan;
}

void IrqsTuner::AddActuators(Executor& executor, SysRoot& root) const {
  AddIrqbalanceActuators(executor, root, runners_);
}

}  // namespace rtagent
