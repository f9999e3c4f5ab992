#include "latency/histogram.h"

#include <catch2/catch.hpp>

#include "latency/statistics.h"

using namespace rtagent;

namespace {

// Records `count` wake-ups `us` µs late (plus `extra_ns`).
void Add(Histogram& h, int64_t us, uint64_t count, int64_t extra_ns = 0) {
  for (uint64_t i = 0; i < count; ++i) h.Record(us * 1000 + extra_ns, static_cast<int64_t>(h.samples()) * 1000000);
}

std::optional<uint32_t> P(const LatencyStats& s, double q) { return s.Find(q)->us; }

}  // namespace

TEST_CASE("wake-ups land in 1 µs bins and extremes are exact in ns", "[latency]") {
  Histogram h(100);
  h.Record(1999, 0);  // 1.999 µs -> bin 1
  h.Record(2000, 1);  // bin 2
  h.Record(2500, 2);  // bin 2
  h.Record(99999, 3);  // 99.999 µs -> last bin
  CHECK(h.bins()[1] == 1);
  CHECK(h.bins()[2] == 2);
  CHECK(h.bins()[99] == 1);
  CHECK(h.samples() == 4);
  CHECK(h.overflows() == 0);
  CHECK(h.min_ns() == 1999);
  CHECK(h.max_ns() == 99999);
  CHECK(h.sum_ns() == 1999 + 2000 + 2500 + 99999);
}

TEST_CASE("a wake-up at the limit is an overflow, counted, with how far and when", "[latency]") {
  Histogram h(100);
  Add(h, 5, 10);
  h.Record(100000, 5000);    // exactly 100 µs: no bin for it (cyclictest: diff >= histogram)
  h.Record(2500000, 9000);   // 2.5 ms
  CHECK(h.samples() == 12);
  CHECK(h.overflows() == 2);
  CHECK(h.overflow_max_ns() == 2500000);
  CHECK(h.max_ns() == 2500000);
  REQUIRE(h.first_overflows().size() == 2);
  CHECK(h.first_overflows()[0] == OverflowEvent{10, 5000, 100000});
  CHECK(h.first_overflows()[1] == OverflowEvent{11, 9000, 2500000});
  CHECK(h.worst_overflows()[0].latency_ns == 2500000);
}

TEST_CASE("overflow events stay bounded however long the run", "[latency]") {
  Histogram h(10, 4);
  for (int i = 0; i < 10000; ++i) h.Record(int64_t{20000} + (i % 97) * 1000 + i, i);
  CHECK(h.overflows() == 10000);
  CHECK(h.first_overflows().size() == 4);
  CHECK(h.first_overflows()[0].sample_index == 0);
  CHECK(h.first_overflows()[3].sample_index == 3);
  auto worst = h.worst_overflows();
  REQUIRE(worst.size() == 4);
  CHECK(worst[0].latency_ns == h.max_ns());
  CHECK(worst[0].latency_ns >= worst[1].latency_ns);
  CHECK(worst[2].latency_ns >= worst[3].latency_ns);
  // The kept worst are really the four worst of the run.
  int64_t fourth = 0;
  {
    std::vector<int64_t> all;
    for (int i = 0; i < 10000; ++i) all.push_back(int64_t{20000} + (i % 97) * 1000 + i);
    std::sort(all.rbegin(), all.rend());
    fourth = all[3];
  }
  CHECK(worst[3].latency_ns == fourth);
  CHECK(h.first_overflows().capacity() == 4);
}

TEST_CASE("negative latencies from a broken clock count as zero", "[latency]") {
  Histogram h(10);
  h.Record(-500, 0);
  CHECK(h.bins()[0] == 1);
  CHECK(h.min_ns() == 0);
}

TEST_CASE("percentiles follow the lesson's report reader", "[latency]") {
  // The report lab's shape: 1000 wake-ups, p50 in bin 3, p99 in bin 6, worst 1203 µs.
  Histogram h(400);
  Add(h, 2, 400);
  Add(h, 3, 200);   // cumulative 600 >= 500: p50 = 3
  Add(h, 4, 300);   // 900
  Add(h, 5, 85);    // 985
  Add(h, 6, 10);    // 995 >= 990: p99 = 6
  Add(h, 204, 4);   // 999 >= 999: p99.9 = 204
  Add(h, 1203, 1);  // overflow: 1000 samples, p99.99 needs 999.9 -> beyond the last bin
  LatencyStats s = ComputeStats(h);
  CHECK(s.samples == 1000);
  CHECK(s.overflows == 1);
  CHECK(P(s, 0.5) == 3u);
  CHECK(P(s, 0.9) == 4u);
  CHECK(P(s, 0.99) == 6u);
  CHECK(P(s, 0.999) == 204u);
  CHECK_FALSE(P(s, 0.9999).has_value());
  CHECK(s.Find(0.9999)->beyond_limit);
  CHECK_FALSE(s.Find(0.999)->beyond_limit);
  CHECK(*s.max_ns == 1203000);
  CHECK(*s.min_ns == 2000);
  CHECK(*s.mean_ns == Approx((400 * 2 + 200 * 3 + 300 * 4 + 85 * 5 + 10 * 6 + 4 * 204 + 1203) * 1000.0 / 1000));
}

TEST_CASE("overflows counted in the total push a percentile beyond the limit", "[latency]") {
  // Only 98 of 100 wake-ups fit the bins: p99 is not in the chart, whatever the bins say.
  Histogram h(50);
  Add(h, 1, 98);
  Add(h, 70, 2);
  LatencyStats s = ComputeStats(h);
  CHECK(P(s, 0.5) == 1u);
  CHECK(P(s, 0.9) == 1u);
  CHECK(s.Find(0.99)->beyond_limit);
  CHECK_FALSE(s.Find(0.99)->us);
  // Ignoring the overflows would have said p99 = 1 µs: the made-up number this prevents.
}

TEST_CASE("an empty histogram has no statistics, not zeros", "[latency]") {
  Histogram h;
  LatencyStats s = ComputeStats(h);
  CHECK(s.samples == 0);
  CHECK_FALSE(s.min_ns);
  CHECK_FALSE(s.max_ns);
  CHECK_FALSE(s.mean_ns);
  CHECK_FALSE(s.Find(0.5)->us);
  CHECK_FALSE(s.Find(0.5)->beyond_limit);
}

TEST_CASE("percentile labels and the samples a percentile needs", "[latency]") {
  CHECK(PercentileLabel(0.5) == "p50");
  CHECK(PercentileLabel(0.99) == "p99");
  CHECK(PercentileLabel(0.999) == "p99.9");
  CHECK(PercentileLabel(0.9999) == "p99.99");
  CHECK(MinSamplesFor(0.9999) == 100000);
  CHECK(MinSamplesFor(0.999) == 10000);
  CHECK(MinSamplesFor(0.99) == 1000);
  CHECK(MinSamplesFor(1.0) == 0);
}

TEST_CASE("histograms merge: counts, extremes, overflows and skipped periods add up", "[latency]") {
  Histogram a(100, 2), b(100, 2);
  Add(a, 3, 5);
  a.Record(150000, 100);
  a.AddSkippedPeriods(1);
  Add(b, 1, 2);
  Add(b, 90, 1);
  b.Record(300000, 50);
  b.Record(120000, 70);
  b.AddSkippedPeriods(2);
  REQUIRE(a.Merge(b));
  CHECK(a.samples() == 11);
  CHECK(a.overflows() == 3);
  CHECK(a.bins()[3] == 5);
  CHECK(a.bins()[1] == 2);
  CHECK(a.bins()[90] == 1);
  CHECK(a.min_ns() == 1000);
  CHECK(a.max_ns() == 300000);
  CHECK(a.overflow_max_ns() == 300000);
  CHECK(a.skipped_periods() == 3);
  REQUIRE(a.first_overflows().size() == 2);
  CHECK(a.first_overflows()[0].since_start_ns == 50);
  CHECK(a.first_overflows()[1].since_start_ns == 70);
  auto worst = a.worst_overflows();
  REQUIRE(worst.size() == 2);
  CHECK(worst[0].latency_ns == 300000);
  CHECK(worst[1].latency_ns == 150000);

  Histogram other_limit(200);
  auto r = a.Merge(other_limit);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("200"));
}

TEST_CASE("merging into an empty histogram takes the other's minimum", "[latency]") {
  Histogram a(10), b(10);
  Add(b, 7, 1);
  REQUIRE(a.Merge(b));
  CHECK(a.min_ns() == 7000);
}

TEST_CASE("skipped periods are counted", "[latency]") {
  Histogram h;
  h.AddSkippedPeriods(3);
  h.AddSkippedPeriods(1);
  CHECK(h.skipped_periods() == 4);
  CHECK(ComputeStats(h).skipped_periods == 4);
}

TEST_CASE("a histogram survives Parts and Restore, and bad parts are refused", "[latency]") {
  Histogram h(20, 3);
  Add(h, 4, 3);
  h.Record(25000, 10);
  h.AddSkippedPeriods(2);
  auto back = Histogram::Restore(h.Parts());
  REQUIRE(back);
  CHECK(back->bins() == h.bins());
  CHECK(back->samples() == 4);
  CHECK(back->overflows() == 1);
  CHECK(back->min_ns() == 4000);
  CHECK(back->max_ns() == 25000);
  CHECK(back->skipped_periods() == 2);
  CHECK(back->first_overflows() == h.first_overflows());

  HistogramParts bad = h.Parts();
  bad.samples = 99;
  auto r = Histogram::Restore(bad);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("do not add up"));
  bad = h.Parts();
  bad.bins.pop_back();
  CHECK_FALSE(Histogram::Restore(bad));
  // One bin past the largest histogram any reader takes back is refused where it is made.
  bad = HistogramParts{};
  bad.limit_us = Histogram::kMaxLimitUs + 1;
  r = Histogram::Restore(bad);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("limit of 10000001 µs is past the largest, 10000000 µs"));
}
