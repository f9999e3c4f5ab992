#include "latency/clock_info.h"

#include <time.h>

#include <algorithm>
#include <cerrno>

namespace rtagent {
namespace {

int64_t ToNs(const timespec& ts) { return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec; }

std::string Us(int64_t ns) {
  // One decimal in µs, enough for a reason sentence.
  int64_t tenths = (ns + 50) / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " µs";
}

}  // namespace

Result<ClockFacts> MeasureClock(int batches, int reads_per_batch) {
  if (batches < 1 || reads_per_batch < 1) return InvalidInput("MeasureClock needs at least one read");
  ClockFacts f;
  timespec res;
  if (clock_getres(CLOCK_MONOTONIC, &res) != 0) return MakeError("clock_getres(CLOCK_MONOTONIC)", errno);
  f.resolution_ns = ToNs(res);
  std::vector<int64_t> per_read;
  per_read.reserve(static_cast<size_t>(batches));
  timespec a, b, scratch;
  for (int i = 0; i < batches; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int j = 0; j < reads_per_batch; ++j) clock_gettime(CLOCK_MONOTONIC, &scratch);
    clock_gettime(CLOCK_MONOTONIC, &b);
    // reads_per_batch + 1 reads between the two stamps (the last stamp is one of them).
    per_read.push_back((ToNs(b) - ToNs(a)) / (reads_per_batch + 1));
  }
  std::nth_element(per_read.begin(), per_read.begin() + per_read.size() / 2, per_read.end());
  f.read_cost_ns = per_read[per_read.size() / 2];
  return f;
}

ClockVerdict JudgeClock(const ClockVerdictInput& in) {
  ClockVerdict v;
  v.virtual_machine = in.virtual_machine;
  if (in.clock.resolution_ns > kCoarseResolutionNs) {
    v.coarse = true;
    v.reasons.push_back("CLOCK_MONOTONIC resolution is " + Us(in.clock.resolution_ns) +
                        ", coarser than the histogram's 1 µs bins");
  }
  if (in.clock.read_cost_ns > kCoarseReadCostNs) {
    v.coarse = true;
    v.reasons.push_back("one clock read costs " + Us(in.clock.read_cost_ns) +
                        (in.clock.clocksource.empty() ? std::string() : " (clocksource " + in.clock.clocksource + ")") +
                        ", more than half a histogram bin");
  }
  if (in.median_wakeup_ns) {
    const bool beyond_ms = *in.median_wakeup_ns >= kCoarseMedianWakeupNs;
    const bool beyond_half = in.interval_ns && *in.interval_ns > 0 && *in.median_wakeup_ns * 2 >= *in.interval_ns;
    if (beyond_ms || beyond_half) {
      v.coarse = true;
      v.reasons.push_back("the median wake-up is " + Us(*in.median_wakeup_ns) +
                          " late: the timer's granularity, not the system, sets the figures");
    }
  }
  if (in.virtual_machine) {
    v.reasons.push_back("measured on a virtual machine: these are virtual-machine figures, not the board's real-time figures");
  }
  return v;
}

}  // namespace rtagent
