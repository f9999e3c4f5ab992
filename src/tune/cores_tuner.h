// cores: the kernel command line the profile needs (reboot required until /proc/cmdline has
// it), rendered into the board's boot loader, and the runtime housekeeping knobs: the
// unbound workqueue cpumask, /proc/irq/default_smp_affinity, kernel.timer_migration and the
// x86 machine-check polling of corrected errors (lesson chapter 6;
// Documentation/admin-guide/kernel-per-CPU-kthreads.rst, Documentation/ABI/testing/sysfs-mce).
#pragma once

#include "tune/command_runner.h"
#include "tune/tuner.h"

namespace rtagent {

class CoresTuner : public Tuner {
 public:
  /// `runners` makes what runs the boot loader's update step: the live runner on the running
  /// system, the twin that runs nothing under --root (DefaultCommandRunnerFactory); tests
  /// pass fakes that succeed, fail or record.
  explicit CoresTuner(CommandRunnerFactory runners = DefaultCommandRunnerFactory()) : runners_(std::move(runners)) {}
  std::string Section() const override { return "cores"; }
  int Chapter() const override { return 6; }
  std::vector<rtagent::Section> Reads() const override { return {rtagent::Section::kCmdline}; }
  /// The boot arguments (compared with /proc/cmdline, reboot required until they are there),
  /// the boot loader's files (boot_plan.h; SectionPlan::boot says which loader, why, and the
  /// next boot's command line) and the runtime knobs.
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  /// Registers a "bootfile" actuator per update step (boot_update.h).
  void AddActuators(Executor& executor, SysRoot& root) const override;

 private:
  CommandRunnerFactory runners_;
};

/// The value of a boot argument in a form that compares by meaning: CPU lists canonical,
/// isolcpus flags sorted ("domain,managed_irq,nohz,2-3"), a bare flag "on". `value` is
/// nullopt for a bare argument. Used for both the profile's and /proc/cmdline's side.
std::string CanonicalBootValue(const std::string& key, const std::optional<std::string>& value, int nr_cpus);

/// The profile's boot arguments (as written for the boot loader) that the running kernel's
/// command line lacks, from the plan's reboot items.
std::vector<std::string> BootArgsNotBooted(const FullPlan& plan, const profile::Profile& profile);

}  // namespace rtagent
