// What every command that takes a PROFILE does first: open --root, read the system's CPUs,
// load and validate the profile, and on any problem print it and give the exit code.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/sysroot.h"
#include "cli/commands.h"
#include "profile/model.h"

namespace rtagent {

struct LoadedProfile {
  std::unique_ptr<SysRoot> root;
  profile::Profile profile;
};

/// Loads `path` (the built-in default when empty) against --root. On failure prints every
/// diagnostic to stderr, prefixed by `command`, and sets `*exit_code` (2 bad input, 3 cannot run).
std::optional<LoadedProfile> LoadForCommand(const std::string& command, const GlobalOptions& g, const std::string& path,
                                            int* exit_code);

/// True when writing to the system is allowed: a fixture root, or root privileges on the live
/// system. Otherwise prints why (exit 3).
bool CanWrite(const std::string& command, const SysRoot& root);

}  // namespace rtagent
