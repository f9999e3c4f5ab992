// What the hwlat check reads from tracefs: the gaps the hwlat tracer recorded. tracefs itself
// (where it is mounted, the tracers, the lease on its files) is base/tracefs.h.
#pragma once

#include <string_view>
#include <vector>

#include "base/tracefs.h"

namespace rtagent::check {

/// One gap the hwlat tracer recorded (kernel/trace/trace_hwlat.c, trace_output.c
/// trace_hwlat_print: "#1 inner/outer(us): 12/14 ts:... count:9").
struct HwlatGap {
  int cpu = -1;            ///< the CPU the sampling thread ran on, from "[003]"
  long long inner_us = 0;  ///< the largest gap between two clock reads inside a loop
  long long outer_us = 0;  ///< the largest gap between two loops
  long long Worst() const { return inner_us > outer_us ? inner_us : outer_us; }
};

/// Every hwlat record in the text of tracefs' trace file; comment lines and other events are skipped.
std::vector<HwlatGap> ParseHwlatTrace(std::string_view text);

}  // namespace rtagent::check
