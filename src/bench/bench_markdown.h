// A bench run as Markdown: the paper's tables on Linux, one per group, a column per phase,
// with what qualifies the figures (virtual machine, COARSE CLOCK, class, clock) before any
// figure, and the timer-health verdict with its evidence.
#pragma once

#include <string>

#include "bench/bench_run.h"

namespace rtagent::bench {

/// The report: title, warnings, how it measured, the timer-health verdict and table, then one
/// table per group ("test | calls | idle | lower | equal"), each cell "p50 / p99 / max (n)".
std::string RenderBenchMarkdown(const BenchRun& run);

/// One cell: "1.23 µs / 4.56 µs / 12.3 µs (500)", "skipped", "error", or "–" when not run.
std::string FigureCell(const TestResult* r);

}  // namespace rtagent::bench
