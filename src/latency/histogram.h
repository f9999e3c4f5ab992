// The wake-up latency histogram: 1 µs bins up to a limit, overflows that never lose a sample.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/result.h"

namespace rtagent {

/// One wake-up that landed past the histogram's last bin: how late, and when.
struct OverflowEvent {
  uint64_t sample_index = 0;   ///< 0-based index of the wake-up in its thread's run (cyclictest's "cycle number")
  int64_t since_start_ns = 0;  ///< when it happened, from the start of the measuring loop
  int64_t latency_ns = 0;      ///< how late it woke

  bool operator==(const OverflowEvent&) const = default;
};

/// Everything a histogram holds, as plain data: what Histogram::Restore takes back from a
/// stored verdict (JSON) or a cyclictest report.
struct HistogramParts {
  uint32_t limit_us = 0;
  std::vector<uint64_t> bins;                ///< bins[i] counts wake-ups in [i µs, i+1 µs); size limit_us
  uint64_t overflows = 0;
  int64_t overflow_max_ns = 0;
  std::vector<OverflowEvent> first_overflows;  ///< in order of occurrence
  std::vector<OverflowEvent> worst_overflows;  ///< latest first
  uint64_t samples = 0;                      ///< every wake-up, in a bin or an overflow
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t sum_ns = 0;
  uint64_t skipped_periods = 0;
};

/// Wake-up latencies in 1 µs bins from 0 to limit_us (exclusive), as cyclictest -h does: a
/// wake-up of `limit_us` µs or later is an overflow, counted in the sample total, with the
/// largest overflow kept and a bounded list of overflow events (the first N and the worst N,
/// with sample index and time), so memory does not grow with the run's length. Minimum,
/// maximum and sum are kept exactly in nanoseconds.
///
/// Record() is the sampler's hot path: it never allocates, locks or prints. All memory is
/// allocated and written (pre-touched) by the constructor.
class Histogram {
 public:
  /// Default bin range: 0..999 µs, one default sampling period (1000 µs). Anything later is
  /// an overflow, and past one period the wake-up has missed a beat anyway (see docs/latency.md).
  static constexpr uint32_t kDefaultLimitUs = 1000;
  /// How many overflow events are kept in each list (first and worst) by default.
  static constexpr size_t kDefaultKeptEvents = 32;
  /// The largest limit anything hands over (the profile's histogram_limit_us takes up to this):
  /// 10 s in 1 µs bins, 80 MB. A reader refuses more rather than allocate what it is told.
  static constexpr uint32_t kMaxLimitUs = 10000000;
  /// The most overflow events kept that a reader accepts (their room is reserved up front).
  static constexpr size_t kMaxKeptEvents = 100000;

  /// An empty histogram of `limit_us` (>= 1) bins keeping `kept_events` first and worst overflow events.
  explicit Histogram(uint32_t limit_us = kDefaultLimitUs, size_t kept_events = kDefaultKeptEvents);

  /// A histogram from stored parts; refuses inconsistent parts (bin count != limit, counts
  /// that do not add up to `samples`, min > max).
  static Result<Histogram> Restore(HistogramParts parts, size_t kept_events = kDefaultKeptEvents);

  /// Counts one wake-up `latency_ns` late, observed `since_start_ns` after the loop began.
  /// A negative latency (impossible with TIMER_ABSTIME, but a broken clock may say so) is
  /// counted as 0. Never allocates.
  void Record(int64_t latency_ns, int64_t since_start_ns) {
    if (latency_ns < 0) latency_ns = 0;
    const uint64_t index = samples_;
    ++samples_;
    sum_ns_ += latency_ns;
    if (latency_ns < min_ns_ || index == 0) min_ns_ = latency_ns;
    if (latency_ns > max_ns_) max_ns_ = latency_ns;
    const uint64_t bin = static_cast<uint64_t>(latency_ns) / 1000;
    if (bin < limit_us_) {
      ++bins_[bin];
    } else {
      RecordOverflow({index, since_start_ns, latency_ns});
    }
  }

  /// Counts `n` periods the sampler missed entirely (it woke more than one whole period late).
  void AddSkippedPeriods(uint64_t n) { skipped_periods_ += n; }

  /// Adds `other` to this histogram (all CPUs together). Both must have the same limit.
  /// Overflow events keep the earliest (by time since start) and the worst of both.
  Result<void> Merge(const Histogram& other);

  /// Writes every bin once more, so its pages are resident before the loop (with mlockall
  /// they stay so). The constructor already did; the sampler calls it again on its own CPU.
  void Touch();

  uint32_t limit_us() const { return limit_us_; }
  const std::vector<uint64_t>& bins() const { return bins_; }
  /// Every wake-up recorded, overflows included.
  uint64_t samples() const { return samples_; }
  /// Wake-ups at or past limit_us.
  uint64_t overflows() const { return overflows_; }
  /// The latest overflow (0 when there was none).
  int64_t overflow_max_ns() const { return overflow_max_ns_; }
  /// Exact minimum, maximum and sum in ns (all 0 when empty).
  int64_t min_ns() const { return samples_ ? min_ns_ : 0; }
  int64_t max_ns() const { return max_ns_; }
  int64_t sum_ns() const { return sum_ns_; }
  uint64_t skipped_periods() const { return skipped_periods_; }
  /// The first overflow events, in order of occurrence (at most kept_events()).
  const std::vector<OverflowEvent>& first_overflows() const { return first_; }
  /// The worst overflow events, latest first (at most kept_events()).
  std::vector<OverflowEvent> worst_overflows() const;
  size_t kept_events() const { return kept_events_; }

  /// The histogram as plain data (for renderers and storage).
  HistogramParts Parts() const;

 private:
  void RecordOverflow(const OverflowEvent& e);

  uint32_t limit_us_;
  size_t kept_events_;
  std::vector<uint64_t> bins_;
  uint64_t samples_ = 0;
  uint64_t overflows_ = 0;
  int64_t overflow_max_ns_ = 0;
  int64_t min_ns_ = 0;
  int64_t max_ns_ = 0;
  int64_t sum_ns_ = 0;
  uint64_t skipped_periods_ = 0;
  std::vector<OverflowEvent> first_;  // capacity reserved: push_back never allocates
  std::vector<OverflowEvent> worst_;  // unordered, capacity reserved; sorted on read
};

}  // namespace rtagent
