// The samples of one benchmark test: a buffer the measuring loop fills without allocating,
// the loop itself (warm-up, budget, stop flag) and the statistics a reader wants from it.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace rtagent::bench {

/// CLOCK_MONOTONIC in ns (the vDSO read every sample is taken with).
inline int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// Durations recorded by a measuring loop. Its memory is reserved and written when it is
/// made, so Record() never allocates or faults (with mlockall it stays resident); samples
/// past the capacity are counted, never stored.
class SampleBuffer {
 public:
  explicit SampleBuffer(size_t capacity);

  /// Forgets every sample (the memory stays).
  void Clear() {
    size_ = 0;
    dropped_ = 0;
  }
  /// Stores one sample in ns.
  void Record(int64_t ns) {
    if (size_ < data_.size()) {
      data_[size_++] = ns;
    } else {
      ++dropped_;
    }
  }
  size_t size() const { return size_; }
  size_t capacity() const { return data_.size(); }
  /// Samples offered after the buffer was full.
  uint64_t dropped() const { return dropped_; }
  /// The samples, in the order they were recorded.
  std::vector<int64_t> Copy() const { return {data_.begin(), data_.begin() + static_cast<long>(size_)}; }

 private:
  std::vector<int64_t> data_;
  size_t size_ = 0;
  uint64_t dropped_ = 0;
};

/// How much one test measures: `warmup` untimed rounds first (cut short once a quarter of
/// `max_ns` has gone), then samples until `max_samples`, or until `max_ns` has gone by once
/// `min_samples` are in.
struct Budget {
  uint32_t warmup = 0;
  uint32_t min_samples = 1;
  uint32_t max_samples = 1000;
  int64_t max_ns = 0;
};

/// The measuring loop: nothing in it but `round()` (the primitive between two clock reads,
/// returning the sample in ns or a negative errno), the record, one clock read for the budget
/// and a relaxed read of `stop`. Returns 0, or the errno a round failed with.
template <typename Round>
int MeasureLoop(const Budget& budget, SampleBuffer& out, const std::atomic<bool>* stop, Round&& round) {
  const int64_t warm_start = NowNs();
  for (uint32_t i = 0; i < budget.warmup; ++i) {
    const int64_t s = round();
    if (s < 0) return static_cast<int>(-s);
    if (NowNs() - warm_start >= budget.max_ns / 4) break;
  }
  const int64_t start = NowNs();
  while (out.size() < budget.max_samples) {
    const int64_t s = round();
    if (s < 0) return static_cast<int>(-s);
    out.Record(s);
    if (out.size() >= budget.min_samples && NowNs() - start >= budget.max_ns) break;
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
  }
  return 0;
}

/// What a reader wants from one test's samples (all 0 when there are none). Percentiles are
/// nearest-rank, as latency/statistics.h computes them from a histogram: the smallest sample
/// that at least q × count samples do not exceed.
struct Summary {
  uint64_t count = 0;
  int64_t min_ns = 0;
  int64_t p50_ns = 0;
  int64_t p99_ns = 0;
  int64_t p999_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;

  bool operator==(const Summary&) const = default;
};

/// The nearest-rank percentile `q` (0 < q <= 1) of ascending `sorted`; 0 when it is empty.
int64_t PercentileOfSorted(const std::vector<int64_t>& sorted, double q);

/// Count, extremes, mean, p50, p99 and p99.9 of `samples` (any order).
Summary Summarize(std::vector<int64_t> samples);

}  // namespace rtagent::bench
