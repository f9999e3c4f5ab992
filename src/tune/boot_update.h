// A boot file and the step that makes the boot loader use it, as one write: the file is
// written, then its update command runs (update-grub, grub2-mkconfig, grubby, kernel-install);
// when the command fails the file is put back and the command runs again, so the boot loader
// is left as it was. Revert and rollback write the old file the same way, so the update runs
// again on them too. The commands run through a CommandRunner (command_runner.h): never under
// --root, faked in tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/command_runner.h"
#include "tune/executor.h"

namespace rtagent {

/// The command run after a boot file is written.
enum class BootUpdate {
  kNone,           ///< extlinux.conf, cmdline.txt, a BLS entry: read by the loader as they are
  kUpdateGrub,     ///< Debian, Ubuntu: update-grub (grub-mkconfig -o /boot/grub/grub.cfg)
  kGrub2Mkconfig,  ///< Fedora, RHEL, SUSE without BLS: grub2-mkconfig -o /boot/grub2/grub.cfg
  kGrubby,         ///< Fedora, RHEL with BLS: grubby carries what changed in GRUB_CMDLINE_LINUX to the default entry
  kKernelInstall,  ///< systemd-boot: kernel-install add for the running kernel
};

/// Every update step, kNone included.
const std::vector<BootUpdate>& BootUpdates();

/// The actuator that writes a boot file with this step: "bootfile", "bootfile+update-grub",
/// ... The journal keeps the name, so revert runs the same step.
std::string BootActuatorName(BootUpdate step);

/// The command line of the step after `path` changed from `old_text` to `new_text`, as it runs
/// on the system under `root`; empty when there is nothing to run (kNone, or grubby when the
/// kernel arguments did not change). An error when it cannot be made (kernel-install without
/// the running kernel's image).
Result<std::vector<std::string>> BootUpdateCommand(BootUpdate step, const SysRoot& root, const std::string& old_text,
                                                   const std::string& new_text);

/// Boot loader files: reads "" for a file that does not exist, and writing "" removes it (so
/// reverting a drop-in rtagent created deletes it). A write runs the step afterwards; when the
/// step fails the file is put back, the step runs again for the restored file, and the write
/// is an error naming both runs. The runs are handed to the executor (TakeRuns).
class BootFileActuator : public Actuator {
 public:
  BootFileActuator(SysRoot& root, BootUpdate step, std::shared_ptr<CommandRunner> runner)
      : root_(root), step_(step), runner_(std::move(runner)) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;
  std::vector<CommandRun> TakeRuns() override;

 private:
  Result<void> Put(const std::string& key, const std::string& value);
  SysRoot& root_;
  BootUpdate step_;
  std::shared_ptr<CommandRunner> runner_;
  std::vector<CommandRun> runs_;
};

/// Registers a BootFileActuator for every step (one runner made by `factory` for `root`).
void AddBootFileActuators(Executor& executor, SysRoot& root, const CommandRunnerFactory& factory);

}  // namespace rtagent
