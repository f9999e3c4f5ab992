// Clock honesty: is this machine's clock fine enough for 1 µs bins, and is it a real board?
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace rtagent {

/// What the clock under the sampler looks like, measured on this machine.
struct ClockFacts {
  int64_t resolution_ns = 0;  ///< clock_getres(CLOCK_MONOTONIC)
  int64_t read_cost_ns = 0;   ///< median cost of one clock_gettime(CLOCK_MONOTONIC)
  std::string clocksource;    ///< current_clocksource ("tsc", "hpet", ...): read by src/inspect, set by the caller
};

/// A resolution above this is too coarse for 1 µs bins.
inline constexpr int64_t kCoarseResolutionNs = 1000;
/// A clock read costing more than this (half a bin) blurs every sample: typically a
/// clocksource without a vDSO fast path (hpet, acpi_pm) or one a hypervisor traps.
inline constexpr int64_t kCoarseReadCostNs = 500;
/// A run whose median wake-up is this late (or half its period) is dominated by the timer's
/// granularity, not by the system: the ipcbench seed's "COARSE CLOCK" (a 2 ms timer with a
/// 13.1 ms median error under an emulator).
inline constexpr int64_t kCoarseMedianWakeupNs = 1000 * 1000;

/// Measures the resolution and the median read cost (`batches` batches of `reads_per_batch`
/// back-to-back reads, median of the per-read cost of each batch).
Result<ClockFacts> MeasureClock(int batches = 101, int reads_per_batch = 100);

/// Inputs of the clock-honesty verdict. Hypervisor detection lives in src/inspect: this only
/// takes its answer.
struct ClockVerdictInput {
  ClockFacts clock;
  bool virtual_machine = false;
  /// The run's median wake-up latency and period, when a run exists.
  std::optional<int64_t> median_wakeup_ns;
  std::optional<int64_t> interval_ns;
};

/// Whether the figures of a run can be presented as this board's real-time figures.
struct ClockVerdict {
  bool coarse = false;           ///< the clock or timer is too coarse for the histogram's bins
  bool virtual_machine = false;  ///< figures are virtual-machine figures
  std::vector<std::string> reasons;  ///< one sentence per finding, with the measured value
};

/// Judges the clock: coarse when the resolution is above 1 µs, a read costs more than half a
/// bin, or the median wake-up is at least a millisecond or half the period late.
ClockVerdict JudgeClock(const ClockVerdictInput& input);

}  // namespace rtagent
