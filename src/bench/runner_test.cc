#include "bench/runner.h"

#include <catch2/catch.hpp>

using namespace rtagent;
using namespace rtagent::bench;

TEST_CASE("the --quick budgets are smaller than the default's in every respect", "[bench]") {
  const RunBudgets q = BudgetsFor(true), d = BudgetsFor(false);
  CHECK(q.test.max_ns < d.test.max_ns);
  CHECK(q.test.max_samples < d.test.max_samples);
  CHECK(q.timer_run_ns < d.timer_run_ns);
  // In the equal phase a sample may cost a whole timeslice: at least one is always taken.
  CHECK(q.equal.min_samples >= 1);
  CHECK(d.equal.min_samples >= 1);
}

TEST_CASE("the --only option selects groups in catalog order, --quick's equal phase runs only the marked tests", "[bench]") {
  const auto timers = SelectTests({Group::kTimer});
  REQUIRE(timers.size() == 4);
  for (const Primitive& p : timers) CHECK(p.group == Group::kTimer);
  const auto two = SelectTests({Group::kThread, Group::kKernel});
  REQUIRE_FALSE(two.empty());
  CHECK(two.front().group == Group::kKernel);  // catalog order, not the order asked
  CHECK(SelectTests({}).size() == Catalog().size());

  const Primitive& create = timers[0];
  const Primitive& health = timers[2];
  CHECK(RunsInPhase(create, Phase::kEqual, false));
  CHECK_FALSE(RunsInPhase(create, Phase::kEqual, true));
  CHECK(RunsInPhase(create, Phase::kLower, true));
  CHECK(RunsInPhase(health, Phase::kEqual, true));
}

TEST_CASE("run options are checked before anything runs", "[bench]") {
  RunOptions o;
  o.load_cpus = CpuSet::Range(0, 1);
  o.cpu = 1;
  o.priority = 90;
  CHECK(ValidateRunOptions(o, CpuSet::Range(0, 1)));
  o.cpu = 7;
  auto cpu = ValidateRunOptions(o, CpuSet::Range(0, 1));
  REQUIRE_FALSE(cpu);
  CHECK_THAT(cpu.error().message, Catch::Contains("CPU 7 is not online (online: 0-1)"));
  o.cpu = 0;
  for (int bad : {1, 99}) {
    o.priority = bad;
    auto r = ValidateRunOptions(o, CpuSet::Range(0, 1));
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("use 2..98"));
  }
  CHECK(PhaseName(Phase::kEqual) == "equal");
  CHECK(ParsePhase("lower") == Phase::kLower);
  CHECK_FALSE(ParsePhase("busy"));
}
