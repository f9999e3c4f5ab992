// irqs.irqbalance: keeping irqbalance from moving IRQs back onto the isolated CPUs, instead of
// fighting it at every `hold` tick. `ban` writes the isolated CPUs to its banned list in its
// environment file and restarts it (irqbalance reads the file only at start); `stop` stops and
// masks its systemd unit; `leave` does nothing. Both are items like any other: journaled,
// verified, put back by revert (which restarts or unmasks it again). The commands run through
// a CommandRunner, so under --root nothing runs and tests record what would have.
#pragma once

#include <memory>

#include "tune/command_runner.h"
#include "tune/tuner.h"

namespace rtagent {

/// The actuators' names in plan items and the journal.
inline constexpr char kIrqbalanceConfigActuator[] = "irqbalance-config";
inline constexpr char kIrqbalanceUnitActuator[] = "irqbalance-unit";

/// What irqs.irqbalance asks for on this system (nothing when irqbalance does not run, when
/// the mode is `leave`, or when no CPU is isolated).
void PlanIrqbalance(const PlanContext& ctx, SectionPlan& plan);

/// The banned-CPU variable of irqbalance's environment file. Key: "PATH#VAR". Reads the
/// variable's value, "absent" when the file does not assign it, "no-file" when there is no
/// file; writing puts the value in place (or removes the line, or the file), then runs
/// `systemctl try-restart irqbalance.service`, which restarts it only if it runs.
class IrqbalanceConfigActuator : public Actuator {
 public:
  IrqbalanceConfigActuator(SysRoot& root, std::shared_ptr<CommandRunner> runner) : root_(root), runner_(std::move(runner)) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;
  std::vector<CommandRun> TakeRuns() override;
  bool RevertFirst() const override { return true; }

 private:
  SysRoot& root_;
  std::shared_ptr<CommandRunner> runner_;
  std::vector<CommandRun> runs_;
};

/// irqbalance's systemd unit. Key: the unit's name. Reads "masked" (its unit file is a link to
/// /dev/null), "running" or "stopped"; writing "masked" runs `systemctl mask --now`, "running"
/// `systemctl unmask` then `start`, "stopped" `systemctl unmask` then `stop`.
class IrqbalanceUnitActuator : public Actuator {
 public:
  IrqbalanceUnitActuator(SysRoot& root, std::shared_ptr<CommandRunner> runner) : root_(root), runner_(std::move(runner)) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;
  std::vector<CommandRun> TakeRuns() override;
  bool RevertFirst() const override { return true; }

 private:
  Result<void> Run(std::vector<std::string> argv);
  SysRoot& root_;
  std::shared_ptr<CommandRunner> runner_;
  std::vector<CommandRun> runs_;
};

/// Registers both actuators with runners from `factory`.
void AddIrqbalanceActuators(Executor& executor, SysRoot& root, const CommandRunnerFactory& factory);

}  // namespace rtagent
