#include "latency/clock_info.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("a fine clock on a real board gets a clean verdict", "[latency]") {
  ClockVerdictInput in;
  in.clock = {1, 25, "tsc"};
  in.median_wakeup_ns = 3000;
  in.interval_ns = 1000000;
  ClockVerdict v = JudgeClock(in);
  CHECK_FALSE(v.coarse);
  CHECK_FALSE(v.virtual_machine);
  CHECK(v.reasons.empty());
}

TEST_CASE("coarse resolution, costly reads and a late median each make the clock coarse", "[latency]") {
  ClockVerdictInput in;
  in.clock = {4000000, 25, "jiffies"};  // a 4 ms tick clock
  ClockVerdict v = JudgeClock(in);
  CHECK(v.coarse);
  REQUIRE(v.reasons.size() == 1);
  CHECK_THAT(v.reasons[0], Catch::Contains("4000.0 µs"));

  in.clock = {1, 1800, "hpet"};
  v = JudgeClock(in);
  CHECK(v.coarse);
  CHECK_THAT(v.reasons[0], Catch::Contains("hpet"));

  // The ipcbench seed's emulator run: a 2 ms timer with a 13.1 ms median error.
  in.clock = {1, 30, "tsc"};
  in.median_wakeup_ns = 13100000;
  in.interval_ns = 2000000;
  v = JudgeClock(in);
  CHECK(v.coarse);
  CHECK_THAT(v.reasons[0], Catch::Contains("median wake-up"));
}

TEST_CASE("a virtual machine is labelled, coarse or not", "[latency]") {
  ClockVerdictInput in;
  in.clock = {1, 30, "kvm-clock"};
  in.virtual_machine = true;
  ClockVerdict v = JudgeClock(in);
  CHECK_FALSE(v.coarse);
  CHECK(v.virtual_machine);
  REQUIRE(v.reasons.size() == 1);
  CHECK_THAT(v.reasons[0], Catch::Contains("virtual-machine figures"));
}

TEST_CASE("the clock of this machine can be measured", "[latency][host]") {
  auto f = MeasureClock(21, 50);
  REQUIRE(f);
  CHECK(f->resolution_ns >= 1);
  CHECK(f->read_cost_ns >= 0);
  CHECK(f->read_cost_ns < 1000000);  // a read never costs a millisecond
  CHECK_FALSE(MeasureClock(0, 10));
}
