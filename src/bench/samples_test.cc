#include "bench/samples.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <numeric>

using namespace rtagent::bench;

TEST_CASE("percentiles are nearest-rank: the smallest sample q of them do not exceed", "[bench]") {
  std::vector<int64_t> v(100);
  std::iota(v.begin(), v.end(), 1);  // 1..100
  Summary s = Summarize(v);
  CHECK(s.count == 100);
  CHECK(s.min_ns == 1);
  CHECK(s.p50_ns == 50);
  CHECK(s.p99_ns == 99);
  CHECK(s.p999_ns == 100);  // 0.999 × 100 = 99.9: the 100th sample
  CHECK(s.max_ns == 100);
  CHECK(s.mean_ns == Approx(50.5));

  std::vector<int64_t> k(1000);
  std::iota(k.begin(), k.end(), 1);
  CHECK(Summarize(k).p999_ns == 999);
  CHECK(Summarize(k).p99_ns == 990);
}

TEST_CASE("the summary does not depend on the order samples came in", "[bench]") {
  std::vector<int64_t> v = {900, 5, 70, 5, 12000, 33};
  Summary s = Summarize(v);
  CHECK(s.min_ns == 5);
  CHECK(s.p50_ns == 33);  // third of 5, 5, 33, 70, 900, 12000
  CHECK(s.p99_ns == 12000);
  CHECK(s.max_ns == 12000);
  std::reverse(v.begin(), v.end());
  CHECK(Summarize(v) == s);
}

TEST_CASE("one sample is every percentile, none is all zeros", "[bench]") {
  Summary one = Summarize({42});
  CHECK(one.count == 1);
  CHECK(one.p50_ns == 42);
  CHECK(one.p999_ns == 42);
  CHECK(Summarize({}) == Summary{});
  CHECK(PercentileOfSorted({}, 0.5) == 0);
}

TEST_CASE("a full sample buffer counts what it drops instead of growing", "[bench]") {
  SampleBuffer b(3);
  for (int i = 0; i < 5; ++i) b.Record(i);
  CHECK(b.size() == 3);
  CHECK(b.dropped() == 2);
  CHECK(b.Copy() == std::vector<int64_t>{0, 1, 2});
  b.Clear();
  CHECK(b.size() == 0);
  CHECK(b.dropped() == 0);
  CHECK(b.capacity() == 3);
}

TEST_CASE("the measuring loop: warm-up unrecorded, sample cap, errno, minimum, stop flag", "[bench]") {
  SampleBuffer b(100);
  int rounds = 0;
  auto counting = [&]() -> int64_t { return ++rounds; };

  Budget cap{/*warmup=*/3, /*min_samples=*/1, /*max_samples=*/10, /*max_ns=*/int64_t{60} * 1000000000};
  CHECK(MeasureLoop(cap, b, nullptr, counting) == 0);
  CHECK(rounds == 13);
  CHECK(b.size() == 10);
  CHECK(b.Copy().front() == 4);  // the three warm-up rounds are not samples

  // A zero time budget stops as soon as the minimum is in.
  b.Clear();
  Budget quick{0, 4, 10, 0};
  CHECK(MeasureLoop(quick, b, nullptr, counting) == 0);
  CHECK(b.size() == 4);

  // A failing round ends the loop with its errno and keeps what came before.
  b.Clear();
  int n = 0;
  CHECK(MeasureLoop(cap, b, nullptr, [&]() -> int64_t { return ++n == 6 ? -EPIPE : 1; }) == EPIPE);
  CHECK(b.size() == 2);  // rounds 4 and 5 (1-3 were warm-up)

  // The stop flag ends it after the sample in hand.
  b.Clear();
  std::atomic<bool> stop{false};
  int m = 0;
  CHECK(MeasureLoop(Budget{0, 1, 100, int64_t{60} * 1000000000}, b, &stop, [&]() -> int64_t {
          if (++m == 7) stop = true;
          return 1;
        }) == 0);
  CHECK(b.size() == 7);
}
