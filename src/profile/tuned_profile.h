// Reading a TuneD profile as TuneD itself does (tuned/profiles/{loader,locator,merger,
// variables}.py, TuneD 2.20): the INI file, its `include=` chain merged parent first,
// [variables] with ${name} and the ${f:function:...} built-ins evaluated, and the
// variable files `include=` pulls into [variables]. `rtagent import tuned` maps the result onto
// an rtagent profile (tune/tuned_import.h); this layer knows nothing of rtagent's keys.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "profile/diagnostics.h"

namespace rtagent::profile {

/// One option of a TuneD unit after the merge: its value with every variable and function
/// expanded, and where it was written.
struct TunedOption {
  std::string key;
  std::string value;  ///< expanded
  SourceMark mark;
};

/// One unit (a [section]) of the merged profile.
struct TunedUnit {
  std::string name;          ///< the section name: "sysctl", "my_sysctl"
  std::string type;          ///< the plugin: `type=` or the name
  bool enabled = true;       ///< `enabled=false` switches a unit off
  std::string devices = "*"; ///< `devices=`, expanded
  SourceMark mark;           ///< the section line that last defined the unit
  std::vector<TunedOption> options;  ///< in TuneD's merged order
};

/// A TuneD profile with its includes merged and its variables evaluated.
struct TunedProfile {
  std::string name;                 ///< as given: "realtime" or a directory
  std::vector<std::string> files;   ///< every file read, tuned.conf and variable files, in order
  std::vector<std::string> chain;   ///< the profiles merged, parents first ("latency-performance", ...)
  std::vector<TunedOption> main;    ///< [main] (summary, ...) without include
  std::vector<TunedUnit> units;     ///< every other section but [variables]
  std::map<std::string, std::string> variables;  ///< the evaluated variables
  std::vector<std::string> notes;   ///< things the reader had to assume, for the summary
};

/// What TuneD's functions read of the machine: online and present CPUs, and each CPU's
/// socket (topology/physical_package_id) for ${f:calc_isolated_cores}.
struct TunedSystem {
  CpuSet online;
  CpuSet present;
  std::map<int, int> package_of;  ///< CPU -> socket; CPUs without the file are absent
};

/// Reads the TuneD functions' view of the CPUs under `root` (cpu/online, cpu/present and
/// each online CPU's topology/physical_package_id).
Result<TunedSystem> ReadTunedSystem(const SysRoot& root);

/// Where profile names and absolute variable-file paths are looked up.
struct TunedSearch {
  std::vector<std::string> dirs;  ///< profile directories, first wins
  std::string root;               ///< prefix of absolute paths (`include=/etc/tuned/x.conf`); "" or "/" for none
};

/// TuneD's profile directories under `root`, in TuneD's order: etc/tuned (the administrator's),
/// then usr/lib/tuned (the package's), each followed by its `profiles/` subdirectory (TuneD 2.23+).
TunedSearch TunedSearchUnder(const std::string& root);

/// Reads the profile `name_or_dir`: a directory holding tuned.conf (its includes are looked
/// up beside it first, then in `search.dirs`) or a profile name looked up in `search.dirs`.
/// Every problem (a missing profile or variable file, an include loop, a line that is not INI,
/// an unknown variable in a setting, a failed TuneD assertion) goes to `diags` with its file,
/// line and a hint; the result is an Error when there is any.
Result<TunedProfile> ReadTunedProfile(const std::string& name_or_dir, const TunedSearch& search,
                                      const TunedSystem& system, Diagnostics* diags);

/// TuneD's CPU list syntax (tuned/utils/commands.py cpulist_unpack): "1-3,5", hex masks
/// "0x1f" (with comma groups, ended by ",,"), "^2" to take CPUs out. nullopt when malformed.
std::optional<CpuSet> UnpackTunedCpus(const std::string& text);

/// A CPU set as TuneD's cpulist2hex writes it: 8-digit groups joined by commas ("0000000e").
std::string TunedHexMask(const CpuSet& cpus);

}  // namespace rtagent::profile
