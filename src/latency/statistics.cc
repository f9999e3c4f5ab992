#include "latency/statistics.h"

#include <cmath>
#include <cstdio>

namespace rtagent {
namespace {

// Quantiles are handled as parts per billion so the threshold test is exact integer
// arithmetic: cumulative × 1e9 >= ppb × samples (128-bit, so a year of samples cannot overflow).
uint64_t ToPpb(double q) { return static_cast<uint64_t>(std::llround(q * 1e9)); }

}  // namespace

const Percentile* LatencyStats::Find(double quantile) const {
  for (const Percentile& p : percentiles) {
    if (std::fabs(p.quantile - quantile) < 1e-9) return &p;
  }
  return nullptr;
}

Percentile ComputePercentile(const Histogram& h, double quantile) {
  Percentile p;
  p.quantile = quantile;
  const uint64_t n = h.samples();
  if (n == 0) return p;
  using u128 = unsigned __int128;
  const u128 need = static_cast<u128>(ToPpb(quantile)) * n;  // cumulative × 1e9 must reach this
  u128 cumulative = 0;
  const auto& bins = h.bins();
  for (size_t b = 0; b < bins.size(); ++b) {
    cumulative += bins[b];
    if (bins[b] != 0 && cumulative * 1000000000u >= need) {
      p.us = static_cast<uint32_t>(b);
      return p;
    }
  }
  // The bins hold fewer than q × n wake-ups: the point lies among the overflows.
  p.beyond_limit = true;
  return p;
}

LatencyStats ComputeStats(const Histogram& h, const std::vector<double>& extra_quantiles) {
  LatencyStats s;
  s.samples = h.samples();
  s.overflows = h.overflows();
  s.skipped_periods = h.skipped_periods();
  if (s.samples > 0) {
    s.min_ns = h.min_ns();
    s.max_ns = h.max_ns();
    s.mean_ns = static_cast<double>(h.sum_ns()) / static_cast<double>(s.samples);
  }
  for (double q : kReportedQuantiles) s.percentiles.push_back(ComputePercentile(h, q));
  for (double q : extra_quantiles) {
    if (!s.Find(q)) s.percentiles.push_back(ComputePercentile(h, q));
  }
  return s;
}

std::string PercentileLabel(double quantile) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", quantile * 100.0);
  return std::string("p") + buf;
}

uint64_t MinSamplesFor(double quantile) {
  if (quantile >= 1.0 || quantile <= 0.0) return 0;
  return static_cast<uint64_t>(std::ceil(10.0 / (1.0 - quantile) - 1e-6));
}

}  // namespace rtagent
