// What every command that takes a PROFILE does first: resolve a profile name (cli/profile_names.h),
// open --root, read the system's CPUs, load and validate the profile, and on any problem print
// it and give the exit code.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/sysroot.h"
#include "cli/commands.h"
#include "cli/profile_names.h"
#include "profile/model.h"

namespace rtagent {

struct RevertReport;  // tune/executor.h

struct LoadedProfile {
  std::unique_ptr<SysRoot> root;
  profile::Profile profile;
  std::string path;  ///< the file read ("" for the built-in default): a name resolved to its file
};

/// The file a PROFILE argument means (ResolveProfileArg over DefaultProfileDirs()), or "" for
/// the built-in default. A name found nowhere prints why, prefixed by `command`, and sets
/// `*exit_code` to 2. validate and LoadForCommand both start here.
std::optional<std::string> ResolveForCommand(const std::string& command, const std::string& arg, int* exit_code);

/// Loads `path` (a profile name, a file, or the built-in default when empty) against --root.
/// On failure prints every diagnostic to stderr, prefixed by `command`, and sets `*exit_code`
/// (2 bad input, 3 cannot run).
std::optional<LoadedProfile> LoadForCommand(const std::string& command, const GlobalOptions& g, const std::string& path,
                                            int* exit_code);

/// True when writing to the system is allowed: a fixture root, or root privileges on the live
/// system. Otherwise prints why (exit 3).
bool CanWrite(const std::string& command, const SysRoot& root);

/// True unless a `rtagent hold` runs on this system (its state file says holding or starting
/// and its process, under the root's /proc, is an rtagent). A hold re-asserts its own profile
/// and rewrites the journal, so an apply or revert beside it would be undone and its journal
/// entries lost (seen in a QEMU guest: revert then left a file apply had changed). Otherwise
/// prints which hold and the way out (exit 3); nothing is changed.
bool NoHoldBeside(const std::string& command, const SysRoot& root);

/// Takes the writers' lock of `root` (Journal::LockPath) for `command`. nullptr, after saying on
/// stderr who holds it (or why it cannot be taken), when the command must not go on: exit 3.
std::unique_ptr<RootLock> ClaimWriting(const std::string& command, SysRoot& root);

/// After `command` put journaled values back: notes it in the state file a stopped hold left
/// (service::NoteRevertSince), so `rtagent status` stops calling those values held. Nothing when
/// nothing was put back or there is no state file; a state file that cannot be read or written is
/// said on stderr and changes nothing else (the values are back either way).
void NoteRevertInHoldState(const std::string& command, SysRoot& root, const RevertReport& report);

}  // namespace rtagent
