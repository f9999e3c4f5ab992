// Profiles by name: `rtagent validate rpi5` finds rpi5.yaml in the profile directories, and
// `rtagent profiles` lists every name there with its description and where it comes from.
//
// Search order (first match wins; docs/profile.md, "Profiles by name"):
//   1. <sysconfdir>/profiles        (/etc/rtagent/profiles: the administrator's own)
//   2. each directory of $RTAGENT_PROFILE_DIR (colon-separated: a user's or a test's)
//   3. <datadir>/rtagent/profiles   (/usr/share/rtagent/profiles: the shipped examples)
// The directories are values (ProfileDir), so tests point the functions at fixture trees;
// only DefaultProfileDirs() reads the environment and the compiled-in paths.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace rtagent {

/// One directory profiles are looked up in, and how it came to be searched.
struct ProfileDir {
  std::string path;    ///< e.g. /etc/rtagent/profiles
  std::string origin;  ///< "local", "RTAGENT_PROFILE_DIR" or "installed"
};

/// The search path of this build: sysconfdir/profiles, then $RTAGENT_PROFILE_DIR's
/// directories (`env_value`, colon-separated; empty parts dropped), then datadir's profiles.
std::vector<ProfileDir> ProfileDirs(const std::string& sysconf_dir, const std::string& env_value,
                                    const std::string& data_dir);
/// ProfileDirs() with the compiled-in directories and the live environment.
std::vector<ProfileDir> DefaultProfileDirs();

/// True for a profile name rather than a path: not empty, no '/', not ending in .yaml or .yml,
/// not "." or "..". A path (./board, board.yaml, /etc/x.yaml) is read as it is written.
bool IsProfileName(const std::string& arg);

/// One profile a name resolves to.
struct ProfileEntry {
  std::string name;         ///< the file name without .yaml
  std::string path;         ///< the file
  std::string description;  ///< its `description:` key, else its first comment line, else ""
  ProfileDir dir;           ///< where it was found
};

/// Every NAME.yaml directly in `dirs` (not in subdirectories: those are include fragments),
/// sorted by name, each name once: the first directory that has it wins.
std::vector<ProfileEntry> ListProfiles(const std::vector<ProfileDir>& dirs);

/// The file `name` names: the first `dirs` entry holding NAME.yaml. An Error when none does:
/// it names every directory searched and the nearest existing name.
Result<std::string> ResolveProfileName(const std::string& name, const std::vector<ProfileDir>& dirs);

/// What a command's PROFILE argument means: "" (the built-in default) and paths stay as
/// written, a name is resolved in `dirs`.
Result<std::string> ResolveProfileArg(const std::string& arg, const std::vector<ProfileDir>& dirs);

/// Where a source tree keeps the shipped profiles, relative to its top (the README runs
/// build/rtagent from there): ResolveProfileName and `rtagent profiles` point at it when the
/// search path has nothing, without ever searching it.
inline constexpr char kSourceTreeProfiles[] = "profiles";
/// "a source tree's profiles; RTAGENT_PROFILE_DIR=profiles makes every name there usable".
std::string SourceTreeNote();

/// The description ListProfiles shows for the file at `path` (see ProfileEntry).
std::string ProfileDescription(const std::string& path);

}  // namespace rtagent
