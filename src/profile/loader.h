// Loading a profile: the YAML file and its includes, merged, read into the model, resolved
// against the system's CPUs and validated. This is the door every command uses to get a Profile.
#pragma once

#include <string>

#include "base/result.h"
#include "base/sysroot.h"
#include "profile/diagnostics.h"
#include "profile/model.h"

namespace rtagent::profile {

/// The name diagnostics use for the built-in default profile.
inline constexpr char kDefaultProfileName[] = "<built-in>/default.yaml";

/// The possible and online CPUs of the system under `root`
/// (sys/devices/system/cpu/{possible,online}; present stands in for a missing possible), and
/// the names of its sysctls (proc/sys), which the `sysctls` section is validated against.
Result<SystemCpus> ReadSystemCpus(const SysRoot& root);

/// The huge page sizes (kB, ascending) of the "hugepages-<size>kB" directories in `dir`
/// (sys/kernel/mm/hugepages, or a NUMA node's hugepages directory); empty when unreadable.
std::vector<long long> ListHugepageSizes(const SysRoot& root, const std::string& dir);

/// Loads the profile at `path` with its includes, resolves its CPU lists against `cpus` and
/// validates it. Every problem found, errors and warnings, is added to `diags` (sorted by
/// position); the result is an Error counting the errors when there is any. `diags` may be null
/// (the Error then holds the formatted problems).
Result<Profile> LoadProfile(const std::string& path, const SystemCpus& cpus, Diagnostics* diags);
/// LoadProfile against the CPUs of the system under `root`.
Result<Profile> LoadProfile(const std::string& path, const SysRoot& root, Diagnostics* diags);

/// The built-in default profile (profiles/default.yaml, compiled in), for any machine.
Result<Profile> LoadDefaultProfile(const SystemCpus& cpus, Diagnostics* diags);
Result<Profile> LoadDefaultProfile(const SysRoot& root, Diagnostics* diags);

/// A profile given as text: `name` is used in diagnostics and includes are relative to `dir`.
Result<Profile> LoadProfileText(const std::string& text, const std::string& name, const std::string& dir,
                                const SystemCpus& cpus, Diagnostics* diags);

/// Whether `text` reads as a profile: a YAML mapping with `version` and another of the profile's
/// top-level keys. For the hint when a profile is given where a verdict belongs.
bool LooksLikeProfile(const std::string& text);

/// The text of the built-in default profile.
const std::string& DefaultProfileText();

}  // namespace rtagent::profile
