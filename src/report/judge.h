// The acceptance criteria and the trust warnings: pure functions of a verdict's data.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "report/verdict.h"

namespace rtagent {

/// An upper bound on one percentile, in whole µs.
struct PercentileLimit {
  double quantile = 0;  ///< 0.999 for p99.9
  int64_t limit_us = 0;
};

/// The profile's acceptance thresholds (the lead maps the profile's `acceptance` section here).
struct AcceptanceLimits {
  std::optional<int64_t> max_us;            ///< worst wake-up on every CPU at most this
  std::vector<PercentileLimit> percentiles;  ///< each percentile at most its limit
  bool zero_overflows = true;               ///< no wake-up past the histogram's last bin
  uint64_t min_samples = 0;                 ///< per CPU (0: no criterion)
  int64_t min_duration_ns = 0;              ///< the run's actual duration (0: no criterion)
  bool loads_stay_placed = true;            ///< every load ran only where it was put
};

/// One criterion per limit and measured CPU (max, each percentile, overflows, samples), then
/// the run-wide ones: duration, each pre-flight check, each load's placement. A percentile
/// that lies beyond the histogram's last bin fails: its value is unknown, never assumed.
/// Latencies pass when at most the limit (max compares the exact ns value; percentiles the
/// 1 µs bin), samples and duration when at least it.
std::vector<Criterion> EvaluateCriteria(const AcceptanceLimits& limits, const Verdict& v);

/// Everything that makes the figures untrustworthy, in a fixed order: read from another
/// tool (what its file does not say listed), boot arguments not in
/// effect yet (the CPUs are not isolated until the reboot), virtual machine,
/// coarse clock, too short for its samples (a quantile q needs 10 / (1 - q) samples on
/// every CPU), the sampler's own PM QoS note, a non-FIFO class, unlocked memory, interrupted.
std::vector<TrustWarning> TrustWarnings(const Verdict& v, const AcceptanceLimits& limits = {});

/// Fills v.criteria, v.warnings and v.pass: PASS only when there is at least one measured CPU,
/// every criterion holds and the run was not interrupted.
void Judge(Verdict& v, const AcceptanceLimits& limits);

}  // namespace rtagent
