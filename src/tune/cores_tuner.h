// cores: the kernel command line the profile needs (reboot required until /proc/cmdline has
// it), rendered into the board's boot loader, and the runtime housekeeping knobs: the
// unbound workqueue cpumask, /proc/irq/default_smp_affinity and kernel.timer_migration
// (lesson chapter 6; Documentation/admin-guide/kernel-per-CPU-kthreads.rst).
#pragma once

#include "tune/tuner.h"

namespace rtagent {

class CoresTuner : public Tuner {
 public:
  std::string Section() const override { return "cores"; }
  int Chapter() const override { return 6; }
  std::vector<rtagent::Section> Reads() const override { return {rtagent::Section::kCmdline}; }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  void AddActuators(Executor& executor, SysRoot& root) const override;
};

/// The value of a boot argument in a form that compares by meaning: CPU lists canonical,
/// isolcpus flags sorted ("domain,managed_irq,nohz,2-3"), a bare flag "on". `value` is
/// nullopt for a bare argument. Used for both the profile's and /proc/cmdline's side.
std::string CanonicalBootValue(const std::string& key, const std::optional<std::string>& value, int nr_cpus);

/// Boot loader files: reads "" for a file that does not exist, and writing "" removes it,
/// so reverting a drop-in rtagent created deletes it.
class BootFileActuator : public Actuator {
 public:
  explicit BootFileActuator(SysRoot& root) : root_(root) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;

 private:
  SysRoot& root_;
};

}  // namespace rtagent
