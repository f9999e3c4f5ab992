// The renderers of a bench run: Markdown, SVG and --compare against expected files, and what a
// reader must see in them.
#include <catch2/catch.hpp>

#include "bench/bench_compare.h"
#include "bench/bench_markdown.h"
#include "bench/bench_svg.h"
#include "bench/test_run.h"
#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::bench;
using rtagent::testing::CheckExpected;

TEST_CASE("bench Markdown: the virtual-machine label before any figure, a column per phase", "[bench]") {
  const std::string md = RenderBenchMarkdown(bench::testing::ExampleRun());
  CheckExpected("bench.md", md);
  const size_t vm = md.find("virtual-machine figures");
  REQUIRE(vm != std::string::npos);
  CHECK(vm < md.find("| test | calls |"));
  CHECK_THAT(md, Catch::Contains("| test | calls | idle | lower-rank load | equal-rank load |"));
  // Each cell is p50 / p99 / max (samples); a phase a test did not run in is a dash.
  CHECK_THAT(md, Catch::Contains("| a real system call | `call()` | 85 ns / 120 ns / 2.10 µs (500) | "
                                 "88 ns / 130 ns / 2.50 µs (500) | – |"));
  CHECK_THAT(md, Catch::Contains("| pipe (thread), 64 KiB |"));
  // The equal phase's timeslice shows in the timer table, with the rate and the overruns.
  CHECK_THAT(md, Catch::Contains("| 2 ms | equal-rank load | 98.0 ms | 99.0 ms | 99.0 ms | 2 | 10.0 Hz of 500 | 97 |"));
  CHECK_THAT(md, Catch::Contains("round-robin timeslice, 100 ms here"));
  // The measuring side's class in that phase, and why (a FIFO thread there hung on nohz_full).
  CHECK_THAT(md, Catch::Contains("the measuring thread and its peers run at SCHED_RR at their ranks in this phase"));
  // Skips and errors are said with their reason under their table.
  CHECK_THAT(md, Catch::Contains("`sync.mutex.handoff.protect` (idle): skipped: needs SCHED_FIFO"));
  CHECK_THAT(md, Catch::Contains("`sync.sem.named.trywait` (idle): error: sem_open"));
  CHECK_THAT(md, Catch::Contains("## Timer health: OK"));
}

TEST_CASE("bench Markdown says COARSE CLOCK and not real-time at the top", "[bench]") {
  BenchRun run = bench::testing::ExampleRun();
  run.health.coarse = true;
  run.realtime = false;
  run.policy = "SCHED_OTHER";
  run.priority = 0;
  const std::string md = RenderBenchMarkdown(run);
  const size_t coarse = md.find("**COARSE CLOCK**");
  REQUIRE(coarse != std::string::npos);
  CHECK(coarse < md.find("## How it measured"));
  CHECK_THAT(md, Catch::Contains("**Not real-time**: measured at SCHED_OTHER"));
  CHECK_THAT(md, Catch::Contains("## Timer health: COARSE CLOCK"));
}

TEST_CASE("bench SVG: a row per test, a bar per phase, the warnings under the title", "[bench]") {
  const std::string svg = RenderBenchSvg(bench::testing::ExampleRun());
  CheckExpected("bench.svg", svg);
  CHECK_THAT(svg, Catch::Contains("⚠ virtual machine: virtual-machine figures"));
  CHECK_THAT(svg, Catch::Contains(">pipe (thread), 64 KiB</text>"));
  CHECK_THAT(svg, Catch::Contains(">time per sample (log scale)</text>"));
  // One decade label per power of ten from below the fastest p50 to above the slowest max.
  CHECK_THAT(svg, Catch::Contains(">10 ns</text>"));
  CHECK_THAT(svg, Catch::Contains(">1 s</text>"));
}

TEST_CASE("bench --compare sets two runs side by side with B/A, and lists one-sided tests", "[bench]") {
  const BenchRun a = bench::testing::ExampleRun();
  BenchRun b = bench::testing::ExampleRun();
  b.host.kernel_release = "6.1.0-57-amd64";
  b.host.preempt_rt = false;
  for (TestResult& r : b.results) {
    r.summary.p50_ns *= 2;
    r.summary.p99_ns *= 3;
  }
  b.results.pop_back();
  b.results.pop_back();
  b.results.push_back(bench::testing::Result("thread.fork_wait", Group::kThread, "process fork + wait", Phase::kIdle, 90000,
                                      120000, 300000, 100));
  const std::string md = RenderBenchCompare(a, "rt.json", b, "stock.json");
  CheckExpected("bench-compare.md", md);
  CHECK_THAT(md, Catch::Contains("| kernel | 6.1.0-57-rt-amd64 | 6.1.0-57-amd64 |"));
  CHECK_THAT(md, Catch::Contains("| PREEMPT_RT | yes | no |"));
  CHECK_THAT(md, Catch::Contains("| a real system call | 85 ns | 170 ns | ×2.00 | 120 ns | 360 ns | ×3.00 |"));
  CHECK_THAT(md, Catch::Contains("`thread.fork_wait` (idle): measured in B only"));
  CHECK(Ratio(0, 5) == "–");
}
