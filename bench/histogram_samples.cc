// A long acceptance run's memory, without waiting for one (issue 19): the sampler's histogram
// (latency/histogram.h, the object each measuring thread records into) fed 1e6, then 1e7, then
// 1e8 wake-ups in one process, as one run of that length would feed it, with its statistics and
// the result line the sampler hands to rtagent computed at each size. Prints, per size, the
// process's peak RSS (getrusage), the CPU time per sample of that stretch, the overflows seen and the
// overflow events kept (their sample numbers), and the size of the encoded result.
//
// The latencies follow a measured-looking shape: a body around 4 µs, a tail of one in a hundred
// out to a few hundred µs, and overflows past the 1000 µs limit at one in 131,072 (about 760 in
// 1e8). They come from a 64 Ki table drawn once, indexed by a xorshift generator; the same loop
// without Record() is timed as the generator's own cost. A last stretch records nothing but
// overflows, each later than the one before (every one displaces a kept "worst" event: the
// dearest case), to give the cost of one overflow and show its memory is bounded.
//
// usage: rtagent_bench_histogram [--max N] [--interval-us N]   (N up to 1e9; default 1e8, 100)
#include <sys/resource.h>

#include <ctime>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "latency/histogram.h"
#include "latency/sampler.h"
#include "latency/sampler_protocol.h"
#include "latency/statistics.h"

using namespace rtagent;

namespace {

constexpr size_t kTableBits = 16;
constexpr uint64_t kOverflowMask = (uint64_t{1} << 17) - 1;  // one overflow in 131,072

double PeakRssMiB() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// This thread's CPU time: the machine's other work does not count (a shared CI machine).
double NowSec() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// Latencies in ns below the histogram's limit: 99 % lognormal around 4 µs, 1 % around 20 µs
// with a long tail, clipped under the limit (the overflows are injected on their own).
std::vector<int64_t> LatencyTable(uint32_t limit_us) {
  std::mt19937_64 rng(19);
  std::lognormal_distribution<double> body(std::log(4000.0), 0.35);
  std::lognormal_distribution<double> tail(std::log(20000.0), 0.9);
  std::uniform_real_distribution<double> pick(0, 1);
  std::vector<int64_t> t(size_t{1} << kTableBits);
  const double ceiling = limit_us * 1000.0 - 1;
  for (int64_t& v : t) v = static_cast<int64_t>(std::min(pick(rng) < 0.99 ? body(rng) : tail(rng), ceiling));
  return t;
}

struct Feeder {
  const std::vector<int64_t>& table;
  int64_t interval_ns;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  uint64_t index = 0;

  uint64_t Next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  // The next wake-up's latency: an overflow of 1 to 5 ms one time in 131,072.
  int64_t Latency() {
    const uint64_t r = Next();
    if ((r >> 40 & kOverflowMask) == 0) return 1000000 + static_cast<int64_t>(r % 4000000);
    return table[r & (table.size() - 1)];
  }
};

// The result line the sampler process writes for one CPU holding `h`.
size_t EncodedBytes(const Histogram& h, int64_t interval_ns) {
  SamplerResult r;
  r.cpus.push_back(CpuRun{2, h, SchedState{}, false, static_cast<int64_t>(h.samples()) * interval_ns});
  return EncodeResult(r).size();
}

std::string Us(const Percentile& p) {
  if (p.beyond_limit) return "beyond limit";
  return p.us ? std::to_string(*p.us) + " µs" : "-";
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t max = 100000000;
  int64_t interval_us = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max") == 0) max = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--interval-us") == 0) interval_us = std::strtoll(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--max N] [--interval-us N]\n", argv[0]);
      return 2;
    }
  }
  if (max < 1000000 || max > 1000000000 || interval_us < 1) {
    std::fprintf(stderr, "--max is 1e6 to 1e9, --interval-us at least 1\n");
    return 2;
  }
  const int64_t interval_ns = interval_us * 1000;
  const std::vector<int64_t> table = LatencyTable(Histogram::kDefaultLimitUs);

  // The generator alone, over 1e7 draws: what each stretch's time per sample includes.
  double gen_ns = 0;
  {
    Feeder f{table, interval_ns};
    volatile int64_t sink = 0;
    int64_t acc = 0;
    const double t0 = NowSec();
    for (uint64_t i = 0; i < 10000000; ++i) acc += f.Latency();
    gen_ns = (NowSec() - t0) * 1e9 / 1e7;
    sink = acc;
    (void)sink;
  }

  // The sampler's defaults: a 1000 µs limit, 32 first and 32 worst overflow events kept.
  Histogram h(Histogram::kDefaultLimitUs, Histogram::kDefaultKeptEvents);
  h.Touch();
  std::printf("generator alone: %.2f ns per sample (included in the time per sample below)\n\n", gen_ns);
  std::printf("| samples | peak RSS | CPU time per sample | overflows | overflow events kept | p99.99 | max | result line |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  Feeder f{table, interval_ns};
  uint64_t done = 0;
  for (uint64_t size = 1000000; size <= max; size *= 10) {
    const uint64_t from = done;
    const double t0 = NowSec();
    for (; done < size; ++done) h.Record(f.Latency(), static_cast<int64_t>(done) * interval_ns);
    const double ns = (NowSec() - t0) * 1e9 / static_cast<double>(size - from);
    const LatencyStats s = ComputeStats(h);
    const size_t bytes = EncodedBytes(h, interval_ns);
    std::printf("| 1e%d | %.2f MiB | %.2f ns | %" PRIu64 " | %zu first + %zu worst | %s | %.3f ms | %zu bytes |\n",
                static_cast<int>(std::lround(std::log10(static_cast<double>(size)))), PeakRssMiB(), ns, h.overflows(), h.first_overflows().size(),
                h.worst_overflows().size(), Us(*s.Find(0.9999)).c_str(), static_cast<double>(*s.max_ns) / 1e6, bytes);
  }

  // Nothing but overflows, each later than every one before: each displaces a kept event.
  const uint64_t n = 1000000;
  Histogram o(Histogram::kDefaultLimitUs, Histogram::kDefaultKeptEvents);
  const double rss_before = PeakRssMiB();
  const double t0 = NowSec();
  for (uint64_t i = 0; i < n; ++i) o.Record(1000000 + static_cast<int64_t>(i), static_cast<int64_t>(i) * interval_ns);
  const double per = (NowSec() - t0) * 1e9 / static_cast<double>(n);
  std::printf("\n%" PRIu64 " overflows only, each the latest yet: %.2f ns per overflow, %zu first + %zu worst kept, "
              "peak RSS %.2f MiB before and %.2f MiB after\n",
              o.overflows(), per, o.first_overflows().size(), o.worst_overflows().size(), rss_before, PeakRssMiB());
  return 0;
}
