// The verdict's "why" section in every verdict format, from a recorded trace fixture
// (tests/traces), a coarse one from counters, and a skip; and the JSON read back.
#include <catch2/catch.hpp>

#include "base/sysroot.h"
#include "report/accept_summary.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/svg.h"
#include "report/test_verdict.h"
#include "report/why_section.h"
#include "trace/attribution.h"
#include "trace/ftrace_text.h"

using namespace rtagent;
using rtagent::testing::ExampleVerdict;

namespace {

// The composed fixture: a FIFO 98 spinner, IRQ 4 and a NET_RX softirq on CPU 2, 2010 µs late.
WhySection ExplainedFromFixture() {
  auto text = FsRoot(RTAGENT_SOURCE_DIR).Read("tests/traces/composed-spin-irq-softirq.txt");
  REQUIRE(text);
  auto trace = ParseFtraceText(*text);
  REQUIRE(trace);
  WhySection w;
  auto wake = ChooseWakeup(*trace, WakeupQuery{CpuSet::Of({2}), 100000}, w.crossed);
  REQUIRE(wake);
  w.status = "explained";
  w.threshold_us = 100;
  w.attribution = Attribute(*trace, *wake);
  w.trace_path = "out/verdict.trace.txt";
  w.trace_format = "ftrace text";
  return w;
}

WhySection Coarse() {
  WhySection w;
  w.status = "coarse";
  w.reason = "tracefs is not mounted";
  w.coarse_cpu = 2;
  w.coarse_worst_ns = 1203000;
  w.coarse_window = "the 250 ms in which the worst wake-up was seen";
  w.coarse = {{"interrupts", "24 virtio0-input.0", 40}, {"softirqs", "softirq NET_RX", 12}};
  return w;
}

}  // namespace

TEST_CASE("why section: the first wake-up past the limit is named in every verdict format", "[report][why]") {
  Verdict v = ExampleVerdict();
  v.why = ExplainedFromFixture();
  REQUIRE(v.why->crossed);
  REQUIRE(v.why->attribution->causes.front().name == "noise-spin:412");

  const std::string json = RenderJson(v);
  CHECK_THAT(json, Catch::Contains("\"why\": {\n    \"status\": \"explained\""));
  CHECK_THAT(json, Catch::Contains("\"name\": \"noise-spin:412\""));
  CHECK_THAT(json, Catch::Contains("\"path\": \"out/verdict.trace.txt\""));

  const std::string md = RenderMarkdown(v);
  const size_t why_at = md.find("## Why the worst wake-up was late");
  REQUIRE(why_at != std::string::npos);
  CHECK(why_at < md.find("## Latency per CPU"));  // the why comes right after the criteria
  CHECK_THAT(md, Catch::Contains("the first wake-up past 100 µs, 2010.0 µs"));
  CHECK_THAT(md, Catch::Contains("| noise-spin:412 RT 98 |"));
  CHECK_THAT(md, Catch::Contains("The raw trace (ftrace text): `out/verdict.trace.txt`"));

  const std::string junit = RenderJUnit(v);
  // The failed max criterion's message carries the caption; system-out the whole table.
  CHECK_THAT(junit, Catch::Contains("limit &lt;= 100 µs; why: noise-spin:412 RT 98 "));
  CHECK_THAT(junit, Catch::Contains("Why the wake-up on CPU 2 was 2010.0 µs late"));

  const std::string svg = RenderSvg(v);
  CHECK_THAT(svg, Catch::Contains(">why: noise-spin:412 RT 98 "));
  CHECK_THAT(svg, Catch::Contains("(CPU 2, 2010.0 µs)</text>"));

  const std::string summary = RenderAcceptSummary(v, false);
  CHECK_THAT(summary, Catch::Contains("\nWhy the wake-up on CPU 2 was 2010.0 µs late"));
  CHECK_THAT(summary, Catch::Contains("the raw trace (ftrace text): out/verdict.trace.txt"));
}

TEST_CASE("why section: the coarse answer is marked as counters, not a trace", "[report][why]") {
  Verdict v = ExampleVerdict();
  v.why = Coarse();
  const std::string text = RenderAcceptSummary(v, false);
  CHECK_THAT(text, Catch::Contains("Why (coarse: counters, not a trace; tracefs is not mounted):"));
  CHECK_THAT(text, Catch::Contains("on CPU 2, worst 1203.0 µs, during the 250 ms"));
  CHECK_THAT(text, Catch::Contains("40  24 virtio0-input.0"));
  CHECK_THAT(RenderMarkdown(v), Catch::Contains("**Coarse**: counters, not a trace (tracefs is not mounted)"));
  CHECK_THAT(RenderSvg(v), Catch::Contains("why (coarse, counters on CPU 2, worst 1203.0 µs): 24 virtio0-input.0 ×40"));
  CHECK_THAT(RenderJson(v), Catch::Contains("\"counts\": [\n"));
}

TEST_CASE("why section: a skip says why in every format", "[report][why]") {
  Verdict v = ExampleVerdict();
  v.why = WhySection{};
  v.why->status = "skip";
  v.why->reason = "the kernel has no timerlat tracer";
  CHECK_THAT(RenderAcceptSummary(v, false), Catch::Contains("why: SKIP — the kernel has no timerlat tracer\n"));
  CHECK_THAT(RenderMarkdown(v), Catch::Contains("SKIP: the kernel has no timerlat tracer"));
  CHECK_THAT(RenderJUnit(v), Catch::Contains("why: SKIP (the kernel has no timerlat tracer)"));
  CHECK_THAT(RenderSvg(v), Catch::Contains("why: SKIP (the kernel has no timerlat tracer)"));
  // Without acceptance.explain there is no section at all.
  Verdict none = ExampleVerdict();
  CHECK(RenderJson(none).find("\"why\"") == std::string::npos);
  CHECK(RenderMarkdown(none).find("## Why") == std::string::npos);
}

TEST_CASE("why section: every kind survives the verdict's JSON and back", "[report][why]") {
  for (const WhySection& w : {ExplainedFromFixture(), Coarse()}) {
    Verdict v = ExampleVerdict();
    v.why = w;
    auto back = ParseVerdictJson(RenderJson(v));
    REQUIRE(back);
    REQUIRE(back->why);
    CHECK(back->why->status == w.status);
    CHECK(back->why->trace_path == w.trace_path);
    CHECK(back->why->coarse == w.coarse);
    CHECK(back->why->coarse_worst_ns == w.coarse_worst_ns);
    // Read back, it renders the same.
    CHECK(RenderMarkdown(*back) == RenderMarkdown(v));
    CHECK(RenderJson(*back) == RenderJson(v));
  }
}

TEST_CASE("why section: a bad why in a verdict is refused with the key", "[report][why]") {
  Verdict v = ExampleVerdict();
  v.why = Coarse();
  std::string json = RenderJson(v);
  SECTION("an unknown status") {
    json.replace(json.find("\"coarse\""), 8, "\"maybe\"");
    auto r = ParseVerdictJson(json);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("why.status must be explained, coarse or skip, not \"maybe\""));
  }
  SECTION("explained without its attribution") {
    json.replace(json.find("\"coarse\""), 8, "\"explained\"");
    auto r = ParseVerdictJson(json);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("explained without an attribution"));
  }
  SECTION("a count without its delta") {
    json.replace(json.find("\"delta\""), 7, "\"dolta\"");
    auto r = ParseVerdictJson(json);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("delta"));
  }
}
