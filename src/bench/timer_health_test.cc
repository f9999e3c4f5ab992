#include "bench/timer_health.h"

#include <catch2/catch.hpp>

#include "bench/test_run.h"

using namespace rtagent::bench;

TEST_CASE("timer health: ipcbench's 13.1 ms median error on a 2 ms timer is a COARSE CLOCK", "[bench]") {
  BenchRun run = testing::ExampleRun();
  run.results = {testing::Timer(Phase::kIdle, 13100000, 14000000, 15000000, 15, 90)};
  TimerHealth h = JudgeTimerHealth(run);
  CHECK(h.coarse);
  CHECK(h.Verdict() == "COARSE CLOCK");
  REQUIRE_FALSE(h.reasons.empty());
  CHECK_THAT(h.reasons.front(), Catch::Contains("2 ms timer's median interval error is 13100.0 µs"));
  // The virtual-machine sentence comes last.
  CHECK_THAT(h.reasons.back(), Catch::Contains("virtual machine"));
}

TEST_CASE("timer health: a few µs of median error is OK, only the idle phase judges the clock", "[bench]") {
  BenchRun run = testing::ExampleRun();  // its equal phase has a 98 ms median: the timeslice, not the clock
  TimerHealth h = JudgeTimerHealth(run);
  CHECK_FALSE(h.coarse);
  CHECK(h.Verdict() == "OK");
  CHECK(h.virtual_machine);
}

TEST_CASE("timer health: a median of half the period, or a slow clock read, is coarse", "[bench]") {
  BenchRun run = testing::ExampleRun();
  run.results = {testing::Timer(Phase::kIdle, 1000000, 1100000, 1200000, 100, 0)};
  CHECK(JudgeTimerHealth(run).coarse);

  BenchRun slow = testing::ExampleRun();
  slow.host.clock_read_cost_ns = 1500;
  slow.host.clocksource = "hpet";
  TimerHealth h = JudgeTimerHealth(slow);
  CHECK(h.coarse);
  CHECK_THAT(h.reasons.front(), Catch::Contains("clocksource hpet"));
}
