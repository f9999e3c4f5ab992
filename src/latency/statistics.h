// Statistics of a latency histogram, computed from the histogram with overflows counted in.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "latency/histogram.h"

namespace rtagent {

/// One percentile of a run. The value is the lower edge of the 1 µs bin that holds it (the
/// smallest bin whose cumulative count reaches quantile × samples, as the lesson's report
/// reader computes it). When that point lies past the histogram's last bin, among the
/// overflows, its value is unknown and `beyond_limit` says so: it is never made up.
struct Percentile {
  double quantile = 0;          ///< 0.99 for p99
  std::optional<uint32_t> us;   ///< the value in whole µs; nullopt when beyond_limit or no samples
  bool beyond_limit = false;    ///< true: it lies at or past the histogram limit

  bool operator==(const Percentile&) const = default;
};

/// The quantiles every verdict reports: p50, p90, p99, p99.9, p99.99.
inline constexpr std::array<double, 5> kReportedQuantiles = {0.5, 0.9, 0.99, 0.999, 0.9999};

/// What a reader wants from one CPU's run.
struct LatencyStats {
  uint64_t samples = 0;          ///< every wake-up, overflows included
  uint64_t overflows = 0;
  uint64_t skipped_periods = 0;
  std::optional<int64_t> min_ns;  ///< exact; nullopt when there are no samples
  std::optional<int64_t> max_ns;  ///< exact; nullopt when there are no samples
  std::optional<double> mean_ns;  ///< exact sum / samples
  std::vector<Percentile> percentiles;  ///< for kReportedQuantiles, in that order

  /// The percentile for `quantile` (compared to 1e-9), or nullptr when not computed.
  const Percentile* Find(double quantile) const;
};

/// The percentile `quantile` (0 < q <= 1) of `h`, overflows counted in the total.
Percentile ComputePercentile(const Histogram& h, double quantile);
/// Samples, extremes, mean and the reported percentiles (plus `extra_quantiles`) of `h`.
LatencyStats ComputeStats(const Histogram& h, const std::vector<double>& extra_quantiles = {});

/// "p50", "p99", "p99.9", "p99.99" for 0.5, 0.99, 0.999, 0.9999.
std::string PercentileLabel(double quantile);
/// The fewest samples for which `quantile` means anything: 10 / (1 - q), so that at least ten
/// wake-ups lie beyond it (p99.99 needs 100,000). 0 for q >= 1.
uint64_t MinSamplesFor(double quantile);

}  // namespace rtagent
