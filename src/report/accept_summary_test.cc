// The terminal summary of `rtagent accept`, on the example verdict.
#include "report/accept_summary.h"

#include <catch2/catch.hpp>

#include "base/kernel_text.h"
#include "report/test_verdict.h"

using namespace rtagent;

TEST_CASE("the accept summary: result, host, warnings, a row per CPU, every criterion", "[report]") {
  const Verdict v = rtagent::testing::ExampleVerdict();
  const std::string s = RenderAcceptSummary(v, false);
  CHECK_THAT(s, Catch::StartsWith("accept: FAIL — ci-vm, 1.0 s on CPUs 2-3 (SCHED_FIFO 80, every 1000 µs)\n"));
  CHECK_THAT(s, Catch::Contains("host: ci-runner-7, kernel 6.12.9-rt-amd64 (PREEMPT_RT), clocksource kvm-clock, "
                                "virtual machine yes (KVM)\n"));
  CHECK_THAT(s, Catch::Contains("warning: "));
  CHECK_THAT(s, Catch::Contains("FAIL max (CPU 2): "));
  CHECK_THAT(s, Catch::Contains("PASS max (CPU 3): "));
  // The CPU table: right-aligned columns, µs counted as one column.
  const auto lines = SplitLines(s);
  size_t header = 0;
  while (header < lines.size() && lines[header].rfind("  CPU", 0) != 0) ++header;
  REQUIRE(header + 2 < lines.size());
  CHECK(lines[header] == "  CPU  samples  min µs  p99 µs  p99.9 µs  max µs  overflows");
  CHECK(lines[header + 1] == "    2    1,000     2.1       6        40  1203.0          1");
  CHECK(lines[header + 2].rfind("    3    1,000     1.5       3", 0) == 0);
  CHECK_THAT(RenderAcceptSummary(v, true), Catch::StartsWith("\033[1maccept: FAIL\033[0m — "));
}
