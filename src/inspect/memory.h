// Transparent hugepages and the sysctls real-time guides set (vm.stat_interval, watchdogs).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/sysroot.h"

namespace rtagent {

/// A sysfs choice file such as transparent_hugepage/enabled ("always [madvise] never").
struct ChoiceFile {
  std::optional<std::string> selected;  ///< nullopt when absent or nothing is marked
  std::vector<std::string> choices;     ///< every choice offered
  bool present = false;
};

/// The sysctls inspect reports, dotted (kernel.watchdog), in display order.
const std::vector<std::string>& InspectedSysctls();

/// What inspect's "memory" section shows.
struct MemoryState {
  ChoiceFile thp_enabled;
  ChoiceFile thp_defrag;
  /// InspectedSysctls() with their values (trimmed text), nullopt when absent.
  std::vector<std::pair<std::string, std::optional<std::string>>> sysctls;
};

/// Reads THP and the sysctls.
MemoryState CollectMemory(const SysRoot& root);

}  // namespace rtagent
