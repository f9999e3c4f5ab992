#include "bench/bench_json.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/kernel_text.h"
#include "bench/test_run.h"

using namespace rtagent;
using namespace rtagent::bench;

TEST_CASE("JSON lines: a run line, one line per result naming phase, CPU, class and VM, a timer-health line",
          "[bench]") {
  const BenchRun run = testing::ExampleRun();
  const std::string text = RenderJsonLines(run);
  const auto lines = SplitLines(text);
  REQUIRE(lines.size() == run.results.size() + 2);
  auto first = nlohmann::json::parse(lines.front());
  CHECK(first["type"] == "run");
  CHECK(first["schema"] == kBenchSchema);
  CHECK(first["host"]["virtual_machine"] == true);
  auto result = nlohmann::json::parse(lines[2]);
  CHECK(result["type"] == "result");
  CHECK(result["id"] == "message.pipe.thread.4");
  CHECK(result["phase"] == "idle");
  CHECK(result["cpu"] == 1);
  CHECK(result["policy"] == "SCHED_FIFO");
  CHECK(result["virtual_machine"] == true);
  CHECK(result["unit"] == "ns");
  CHECK(result["p50"] == 9800);
  CHECK(result["payload_bytes"] == 4);
  auto timer = nlohmann::json::parse(lines[4]);
  CHECK(timer["period_ns"] == 2000000);
  CHECK(timer["achieved_hz"] == 500.0);  // 100 wake-ups in 0.2 s
  auto last = nlohmann::json::parse(lines.back());
  CHECK(last["type"] == "timer_health");
  CHECK(last["verdict"] == "OK");
}

TEST_CASE("JSON lines read back into the same run", "[bench]") {
  const BenchRun run = testing::ExampleRun();
  auto back = ParseJsonLines(RenderJsonLines(run), "run.json");
  REQUIRE(back);
  CHECK(back->host.kernel_release == run.host.kernel_release);
  CHECK(back->host.virtual_machine);
  CHECK(back->policy == "SCHED_FIFO");
  CHECK(back->quick);
  REQUIRE(back->phases.size() == 3);
  CHECK(back->phases[1].cpus == CpuSet::Range(0, 1));
  REQUIRE(back->results.size() == run.results.size());
  for (size_t i = 0; i < run.results.size(); ++i) {
    CHECK(back->results[i].id == run.results[i].id);
    CHECK(back->results[i].phase == run.results[i].phase);
    CHECK(back->results[i].summary.p99_ns == run.results[i].summary.p99_ns);
    CHECK(back->results[i].skipped == run.results[i].skipped);
    CHECK(back->results[i].error == run.results[i].error);
    CHECK(back->results[i].overruns == run.results[i].overruns);
  }
  CHECK(back->health.virtual_machine);
  // Rendering what was read gives the same text: nothing is lost on the way.
  CHECK(RenderJsonLines(*back) == RenderJsonLines(run));
}

TEST_CASE("JSON lines that are not a bench run are refused with file and line", "[bench]") {
  const std::string good = RenderJsonLines(testing::ExampleRun());
  auto garbage = ParseJsonLines(good + "{not json\n", "a.json");
  REQUIRE_FALSE(garbage);
  CHECK_THAT(garbage.error().message, Catch::StartsWith("a.json:" + std::to_string(SplitLines(good).size() + 1) + ": not a JSON line"));

  auto verdict = ParseJsonLines("{\"schema\": \"rtagent-verdict/1\"}\n", "v.json");
  REQUIRE_FALSE(verdict);
  CHECK_THAT(verdict.error().message, Catch::Contains("v.json:1: not a line of an rtagent bench run"));

  auto no_run = ParseJsonLines("\n", "empty.json");
  REQUIRE_FALSE(no_run);
  CHECK_THAT(no_run.error().message, Catch::Contains("no \"run\" line"));

  std::string bad_phase = good;
  bad_phase.replace(bad_phase.find("\"phase\":\"lower\""), 15, "\"phase\":\"later\"");
  auto phase = ParseJsonLines(bad_phase, "p.json");
  REQUIRE_FALSE(phase);
  CHECK_THAT(phase.error().message, Catch::Contains("unknown phase \"later\""));

  // A line of the bench schema whose type this build does not know (a newer rtagent's).
  auto other = ParseJsonLines(good + "{\"schema\":\"" + kBenchSchema + "\",\"type\":\"summary\"}\n", "n.json");
  REQUIRE_FALSE(other);
  CHECK(other.error().err == EINVAL);
  CHECK_THAT(other.error().message,
             Catch::StartsWith("n.json:" + std::to_string(SplitLines(good).size() + 1) + ": unknown line type \"summary\""));
}
