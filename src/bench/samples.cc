#include "bench/samples.h"

#include <algorithm>
#include <cmath>

namespace rtagent::bench {

SampleBuffer::SampleBuffer(size_t capacity) : data_(capacity, 0) {
  // The constructor's zero fill already wrote every page; the loop only overwrites them.
}

int64_t PercentileOfSorted(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  // The rank k (1-based) is the smallest with k / n >= q, in parts per billion so the test
  // is exact integer arithmetic: k = ceil(q_ppb × n / 1e9).
  using u128 = unsigned __int128;
  const u128 ppb = static_cast<u128>(std::llround(std::clamp(q, 0.0, 1.0) * 1e9));
  const u128 need = ppb * sorted.size();
  u128 k = (need + 999999999u) / 1000000000u;
  if (k == 0) k = 1;
  if (k > sorted.size()) k = sorted.size();
  return sorted[static_cast<size_t>(k - 1)];
}

Summary Summarize(std::vector<int64_t> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.min_ns = samples.front();
  s.max_ns = samples.back();
  long double sum = 0;
  for (int64_t v : samples) sum += v;
  s.mean_ns = static_cast<double>(sum / static_cast<long double>(samples.size()));
  s.p50_ns = PercentileOfSorted(samples, 0.5);
  s.p99_ns = PercentileOfSorted(samples, 0.99);
  s.p999_ns = PercentileOfSorted(samples, 0.999);
  return s;
}

}  // namespace rtagent::bench
