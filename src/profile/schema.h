// The profile language's keys: every mapping and the keys it takes. The loader rejects any
// other key (suggesting the nearest), and a test checks docs/profile.md documents every one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rtagent::profile {

/// One mapping of the profile language. `path` is dotted from the top ("" for the top level,
/// "cores.boot"); "<name>" stands for a user-chosen name ("ranks.rules.<name>").
struct SchemaSection {
  std::string path;
  std::vector<std::string> keys;
};

/// Every mapping with a fixed set of keys.
const std::vector<SchemaSection>& Schema();

/// The keys of the mapping at `path`; aborts on a path not in Schema() (a programming error).
const std::vector<std::string>& KeysOf(std::string_view path);

/// A sysctl that memory.sysctl accepts: RT guides set these, and nothing else is written.
struct SysctlSpec {
  std::string name;     ///< dotted, as sysctl(8) spells it
  long long min = 0;
  long long max = 0;
  bool cpu_list = false;  ///< the value is a CPU list (kernel.watchdog_cpumask), not a number
};

/// The documented set of sysctls (docs/profile.md, memory.sysctl).
const std::vector<SysctlSpec>& AllowedSysctls();

/// The CPU isolation flags, policies, ... that enumerated keys accept, in documentation order.
extern const std::vector<std::string> kBootloaderNames;
extern const std::vector<std::string> kIsolcpusFlagNames;
extern const std::vector<std::string> kPolicyNames;
extern const std::vector<std::string> kPartitionTypeNames;
extern const std::vector<std::string> kPreemptRtNames;
extern const std::vector<std::string> kSafetyNetNames;
extern const std::vector<std::string> kBuiltinLoadNames;
extern const std::vector<std::string> kOnStopNames;
extern const std::vector<std::string> kThpEnabledNames;
extern const std::vector<std::string> kThpDefragNames;
extern const std::vector<std::string> kGovernorNames;
extern const std::vector<std::string> kSuiteNames;

}  // namespace rtagent::profile
