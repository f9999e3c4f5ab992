// inspect's tables for a person.
#pragma once

#include <cstddef>
#include <string>

#include "inspect/system_state.h"

namespace rtagent {

/// How the tables are drawn.
struct TextOptions {
  bool color = false;  ///< bold section titles (a terminal without NO_COLOR)
  /// Above this many IRQs or real-time threads, rows are grouped by kind instead of listed
  /// one by one, so a 256-CPU board still fits on a screen.
  size_t max_rows = 60;
};

/// The collected sections as aligned tables. Per-CPU figures are shown compactly (totals,
/// counts on isolated CPUs, CPU lists) so the line width does not grow with the CPU count.
std::string InspectText(const SystemState& state, const TextOptions& options = {});

}  // namespace rtagent
