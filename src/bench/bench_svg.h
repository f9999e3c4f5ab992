// A bench run as a standalone SVG chart: every test a row, a bar per phase on a log time axis.
#pragma once

#include <string>

#include "bench/bench_run.h"

namespace rtagent::bench {

/// A standalone SVG (no scripts, no external fonts): one row per test, grouped as the tables
/// are; per phase a bar to the p50, a line on to the p99 and a tick at the max, on a log axis
/// of time; the warnings (virtual machine, COARSE CLOCK, not real-time) under the title.
std::string RenderBenchSvg(const BenchRun& run);

}  // namespace rtagent::bench
