// cyclictest's -h histogram report: written for tools that read it, and read from cyclictest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "latency/histogram.h"
#include "report/verdict.h"

namespace rtagent {

/// The verdict's histograms in cyclictest's -h report format (rt-tests src/cyclictest,
/// print_hist), one thread column per measured CPU in CPU order: "# Histogram", a row
/// "%06d" per bin with each thread's "%06lu" count (tab-separated), rows where every thread
/// is 0 skipped as newer cyclictest does, then the footer: "# Total:" (wake-ups in bins),
/// "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:" (µs, rounded down),
/// "# Histogram Overflows:" and "# Histogram Overflow at cycle number:" with one
/// "# Thread N:" line of the kept first overflow sample indices ("# 00005 others" for the
/// rest). A first line names the CPU of each thread; the PM QoS line cyclictest prints
/// appears only when the sampler held its own note.
std::string RenderCyclictestHistogram(const Verdict& v);

/// cyclictest's name of a scheduling policy (its --policy option, and the "policy:" line it
/// prints) as the kernel's: "fifo" -> "SCHED_FIFO", "other" or "normal" -> "SCHED_OTHER";
/// nullopt for a name cyclictest does not use. Both cyclictest readers ask it.
std::optional<std::string> CyclictestPolicy(std::string_view name);

/// A cyclictest -h report read back: one histogram per thread.
struct CyclictestReport {
  std::vector<Histogram> threads;
  std::optional<int32_t> pm_qos_us;  ///< from "# /dev/cpu_dma_latency set to Nus"
  /// From the summary lines "T: 0 ( 1234) P:80 I:1000 C:   3000 Min: ..." (printed without -q
  /// and at the end with -q), when the file has them.
  std::optional<int64_t> interval_us;
  std::optional<int> priority;
  std::optional<std::string> policy;  ///< from "policy: fifo: loadavg: ..." (without -q): "SCHED_FIFO"
};

/// Reads a cyclictest -h report (any version): missing rows are zero (newer versions skip
/// empty bins), the histogram limit is the last row + 1 (older versions print every bin, so
/// that is -h; for newer ones a lower bound), the worst comes from "# Max Latencies" (in the
/// footer only), the sum from "# Avg Latencies" × samples (cyclictest rounds it to a µs).
/// Overflows keep the cycle numbers of "# Thread N:" as their sample numbers (their time and
/// latency are not in the file: -1); "# NNNNN others" are counted, not listed.
/// Errors name the line ("line 12: ...").
Result<CyclictestReport> ParseCyclictestHistogram(std::string_view text);

}  // namespace rtagent
