// The memory tuner and the profile section it declares: what it plans on the fixture boards,
// and what its keys' cross-checks say when a profile loads.
#include "tune/memory_tuner.h"

#include <catch2/catch.hpp>

#include "base/kernel_paths.h"
#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;
using profile::Diagnostic;

namespace {

const std::string kSysroots = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/";

SectionPlan PlanOn(const std::string& board, const std::string& yaml) {
  FsRoot root(kSysroots + board);
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus);
  profile::Diagnostics d;
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p);
  SystemState state = CollectSystemState(root, PlanSections());
  auto plan = MemoryTuner().Plan(PlanContext{*p, root, state});
  REQUIRE(plan);
  return *plan;
}

}  // namespace

TEST_CASE("memory: THP compared by the selected word, sysctls in file order", "[tune]") {
  SectionPlan plan = PlanOn("x86-ipc-4cpu",
                            "memory:\n  thp: {enabled: never, defrag: madvise}\n"
                            "  sysctl:\n    vm.stat_interval: 10\n    kernel.watchdog_cpumask: 0-3\n");
  CHECK(plan.section == "memory");
  REQUIRE(plan.items.size() == 4);
  CHECK(plan.items[0].key == kpath::kThpEnabled);
  CHECK(Pending(plan.items[0]));  // "always [madvise] never" wants never
  CHECK(plan.items[1].key == kpath::kThpDefrag);
  CHECK_FALSE(Pending(plan.items[1]));  // madvise is selected already
  CHECK(plan.items[2].what == "vm.stat_interval");
  CHECK(plan.items[2].before == "1");
  CHECK(plan.items[2].after == "10");
  CHECK(plan.items[3].what == "kernel.watchdog_cpumask");
  CHECK_FALSE(Pending(plan.items[3]));
  CHECK(plan.findings.empty());
}

TEST_CASE("memory: a sysctl this kernel lacks is a warning naming it, not an item", "[tune]") {
  SectionPlan plan = PlanOn("arm64-rt-8cpu", "memory:\n  sysctl:\n    kernel.numa_balancing: 0\n");
  CHECK(plan.items.empty());
  REQUIRE(plan.findings.size() == 1);
  CHECK(plan.findings[0].level == Finding::Level::kWarning);
  CHECK_THAT(plan.findings[0].message, Catch::StartsWith("kernel.numa_balancing cannot be read"));
  CHECK(plan.findings[0].mark.line == 3);
}

TEST_CASE("memory section: a sysctl must agree with the rest of the profile", "[tune]") {
  TempDir dir;
  auto twice = LoadYaml(dir, "cores:\n  runtime:\n    timer_migration: false\nmemory:\n  sysctl:\n    kernel.timer_migration: 1\n");
  const Diagnostic& t = Only(twice, "memory.sysctl kernel.timer_migration=1 contradicts cores.runtime.timer_migration");
  CheckAt(t, twice.path, 6, 5);
  CHECK_THAT(t.message, Catch::Contains("(" + twice.path + ":3:22)"));

  auto budget = LoadYaml(dir, "memory:\n  sysctl:\n    kernel.sched_rt_period_us: 1000\n    kernel.sched_rt_runtime_us: 2000\n");
  CheckAt(Only(budget, "kernel.sched_rt_runtime_us 2000 is larger than the period 1000"), budget.path, 4, 5);

  auto any = LoadYaml(dir, "kernel:\n  rt_safety_net: any\nmemory:\n  sysctl:\n    kernel.sched_rt_runtime_us: -1\n");
  REQUIRE(any.result);  // a choice made: a warning, not an error
  CHECK(Only(any, "removes the RT safety net on every CPU").severity == profile::Severity::kWarning);
}

TEST_CASE("memory section: THP defrag always is one rule, a warning in the profile and a lint FAIL", "[tune]") {
  CHECK(ThpDefragStalls("always"));
  for (const char* mode : {"defer", "defer+madvise", "madvise", "never"}) CHECK_FALSE(ThpDefragStalls(mode));
  TempDir dir;
  auto l = LoadYaml(dir, "memory:\n  thp:\n    defrag: always\n");
  REQUIRE(l.result);  // valid: validate warns, and the lint check (lint.thp_defrag) fails it
  const Diagnostic& d = Only(l, "THP defrag 'always' makes allocations stall to compact memory");
  CHECK(d.severity == profile::Severity::kWarning);
  CheckAt(d, l.path, 3, 13);
  CHECK(*MemoryOf(*l.result).thp_defrag == "always");
}
