// The priority-inversion experiment's report: text for people, JSON for programs.
#pragma once

#include <string>

#include "bench/pi_experiment.h"

namespace rtagent::bench {

/// The verdict line first, then what was run (CPU, ranks, the period's timing), each run's
/// misses, worst response, worst wait and inversions, and the tracefs evidence or why there
/// is none; a virtual-machine run says its timings are virtual-machine timings.
std::string RenderPiText(const PiResult& r, const PiJudgement& j, bool virtual_machine);

/// The same as one JSON object (schema rtagent.bench-pi/1), pretty-printed, ending in '\n'.
std::string RenderPiJson(const PiResult& r, const PiJudgement& j, bool virtual_machine);

}  // namespace rtagent::bench
