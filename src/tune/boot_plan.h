// The boot loader part of the cores plan: which boot loader (the profile's, or what `auto`
// finds), which files carry the kernel command line, what apply writes into them and the
// command that makes the loader use them, and the command line the next boot gets before and
// after. A missing boot file is a finding that says what would be written and where, never
// an error: every other section is still planned.
#pragma once

#include <string>
#include <vector>

#include "tune/boot_update.h"
#include "tune/tuner.h"

namespace rtagent {

/// What the cores tuner adds to its plan for the boot loader.
struct BootPlan {
  BootSummary summary;
  std::vector<Change> items;      ///< the boot files to write (actuator BootActuatorName(step))
  std::vector<Finding> findings;  ///< a missing file, an entry that cannot be found, a missing program
};

/// Plans the boot files for `args` (profile::BootArguments, not empty). With `write` false (the
/// running kernel already has every argument) the summary is made but no file is planned. An
/// error only when a boot file exists and cannot be read (the system cannot be planned).
Result<BootPlan> PlanBoot(const PlanContext& ctx, const std::vector<std::string>& args, bool write);

/// For `validate`: why the boot loader the profile names has no file to write under `root`
/// (what the plan would report as missing, or why it cannot be read), or "" (auto and print
/// never miss one).
std::string MissingBootFile(const profile::Profile& profile, const SysRoot& root);

}  // namespace rtagent
