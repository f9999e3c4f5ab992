// A logarithmic axis for the SVG charts (the verdict's histogram, the bench chart): values
// spanning decades stay readable, one late wake-up beside millions of early ones.
#pragma once

#include <algorithm>
#include <cmath>

namespace rtagent {

/// Maps [lo, hi] (both > 0) onto the pixels [a, b], logarithmically; values outside are clamped.
struct LogAxis {
  double lo, hi, a, b;
  double operator()(double v) const {
    v = std::clamp(v, lo, hi);
    return a + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (b - a);
  }
};

/// The power of ten at or above `v` (at least 1): the end of a log axis.
inline double DecadeAbove(double v) { return std::pow(10.0, std::ceil(std::log10(std::max(v, 1.0)) + 1e-9)); }

}  // namespace rtagent
