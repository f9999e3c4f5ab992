// The verdict's histograms as a standalone SVG chart.
#pragma once

#include <string>

#include "report/verdict.h"

namespace rtagent {

/// A standalone SVG (no scripts, no external fonts or styles): wake-up latency on a log axis
/// (µs), wake-ups per 1 µs bin on a log axis (so one late wake-up stays visible beside
/// millions), one step series per CPU, overflow events as dots past the histogram's limit,
/// the worst case as a solid line with its label, the profile's max limit (the "max"
/// criterion) as a dashed line, the histogram's own limit dotted, and the trust warnings
/// under the title.
std::string RenderSvg(const Verdict& v);

}  // namespace rtagent
