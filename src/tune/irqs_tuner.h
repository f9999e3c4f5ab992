// irqs: every movable IRQ to the housekeeping CPUs unless a rule sends it elsewhere
// (Documentation/core-api/irq/irq-affinity.rst; lesson chapters 3 and 6). The kernel refuses
// some moves with EIO: per-CPU interrupts, managed queue vectors a driver spread over the
// CPUs, IRQ 0 on x86. Those are recorded as unchangeable with the reason, not as failures.
#pragma once

#include "tune/command_runner.h"
#include "tune/tuner.h"

namespace rtagent {

class IrqsTuner : public Tuner {
 public:
  /// `runners` makes the runner of irqbalance's systemctl commands (irqs.irqbalance); tests
  /// hand in one that records them.
  explicit IrqsTuner(CommandRunnerFactory runners = DefaultCommandRunnerFactory()) : runners_(std::move(runners)) {}
  std::string Section() const override { return "irqs"; }
  int Chapter() const override { return 6; }
  std::vector<rtagent::Section> Reads() const override { return {rtagent::Section::kIrqs}; }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  void AddActuators(Executor& executor, SysRoot& root) const override;

 private:
  CommandRunnerFactory runners_;
};

/// The rule that decides where `irq` goes: the first rule of the profile whose every matcher
/// matches, or nullptr for the default. Pure.
const profile::IrqRule* MatchIrqRule(const profile::IrqsConfig& config, const IrqInfo& irq);

}  // namespace rtagent
