#include "report/diff.h"

#include <catch2/catch.hpp>

#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::testing;

namespace {

const RoleDiff& Role(const VerdictDiff& d, const std::string& role) {
  for (const RoleDiff& r : d.roles) {
    if (r.role == role) return r;
  }
  FAIL("no role " << role);
  throw std::logic_error("unreachable");
}

const MetricChange& Metric(const RoleDiff& r, const std::string& metric) {
  for (const MetricChange& m : r.metrics) {
    if (m.metric == metric) return m;
  }
  FAIL("no metric " << metric);
  throw std::logic_error("unreachable");
}

// The example with CPU 3 slower in AFTER, and its CPUs and loads listed in another order.
Verdict After() {
  Verdict v = ExampleVerdict();
  Histogram slow(100, 4);
  Fill(slow, 1500, 500);
  Fill(slow, 2000, 450);
  Fill(slow, 3000, 35);
  Fill(slow, 25000, 15);  // p99 3 -> 25, max 7.8 -> 25
  v.cpus[1] = MakeCpuResult(3, std::move(slow));
  std::swap(v.cpus[0], v.cpus[1]);
  std::swap(v.loads[0], v.loads[1]);
  Judge(v, ExampleLimits());
  return v;
}

}  // namespace

TEST_CASE("diff matches CPUs and loads by role, not by position", "[report]") {
  const Verdict before = ExampleVerdict();
  const Verdict after = After();
  REQUIRE(after.cpus[0].cpu == 3);  // listed in another order
  VerdictDiff d = DiffVerdicts(before, after);
  const RoleDiff& cpu2 = Role(d, "CPU 2");
  CHECK_FALSE(cpu2.regression);
  for (const MetricChange& m : cpu2.metrics) CHECK((!m.delta_us || *m.delta_us == 0));
  const RoleDiff& cpu3 = Role(d, "CPU 3");
  CHECK(cpu3.regression);
  CHECK(Metric(cpu3, "max").before_us == 7.8);
  CHECK(Metric(cpu3, "max").after_us == 25.0);
  CHECK(Metric(cpu3, "max").delta_us == Approx(17.2));
  CHECK(Metric(cpu3, "max").regression);
  CHECK(Metric(cpu3, "p99").before_us == 3.0);
  CHECK(Metric(cpu3, "p99").after_us == 25.0);
  CHECK(Role(d, "load hackbench").notes.empty());
  CHECK_FALSE(Role(d, "load disk").regression);
  CHECK(d.regression);
  CheckExpected("diff.md", RenderDiffMarkdown(d));
  CheckExpected("diff.json", RenderDiffJson(d));
}

TEST_CASE("diff tolerances need both the percent and the µs to be passed", "[report]") {
  const Verdict before = ExampleVerdict();
  const Verdict after = After();
  DiffTolerance loose{10, 20};  // +17.2 µs is under 20 µs
  VerdictDiff d = DiffVerdicts(before, after, loose);
  CHECK_FALSE(Metric(Role(d, "CPU 3"), "max").regression);
  CHECK(Metric(Role(d, "CPU 3"), "p99").regression);  // +22 µs
  DiffTolerance wide{1000, 1};  // +220 % is under 1000 %
  d = DiffVerdicts(before, after, wide);
  CHECK_FALSE(Role(d, "CPU 3").regression);
  CHECK_FALSE(DiffVerdicts(before, before).regression);
}

TEST_CASE("a percentile leaving the histogram is a regression of unknown size", "[report]") {
  Verdict before = ExampleVerdict();
  Verdict after = ExampleVerdict();
  Histogram h(100, 4);
  Fill(h, 2000, 980);
  Fill(h, 150000, 20);  // 2 % overflow: p99 and p99.9 beyond the limit
  after.cpus[1] = MakeCpuResult(3, std::move(h));
  VerdictDiff d = DiffVerdicts(before, after);
  const MetricChange& p99 = Metric(Role(d, "CPU 3"), "p99");
  CHECK(p99.after_beyond);
  CHECK_FALSE(p99.after_us);
  CHECK_FALSE(p99.delta_us);
  CHECK(p99.regression);
  CHECK(Role(d, "CPU 3").regression);
  CHECK_THAT(RenderDiffMarkdown(d), Catch::Contains("| CPU 3 | p99 | 3.0 | beyond limit | – | **yes** |"));
}

TEST_CASE("broken placement, a criterion turning FAIL and missing roles are reported", "[report]") {
  Verdict before = ExampleVerdict();
  before.loads[1].cpus_ran = CpuSet::Of({0, 1});  // held before
  Judge(before, ExampleLimits());
  Verdict after = ExampleVerdict();
  after.cpus.pop_back();  // CPU 3 not measured after
  after.loads.push_back({"net", CpuSet::Of({0}), CpuSet::Of({0}), "", std::nullopt, 15});
  Judge(after, ExampleLimits());
  VerdictDiff d = DiffVerdicts(before, after);
  const RoleDiff& disk = Role(d, "load disk");
  CHECK(disk.regression);
  CHECK_THAT(disk.notes[0], Catch::Contains("0-1 -> 0-2"));
  CHECK(Role(d, "placement disk (run)").regression);
  CHECK(Role(d, "CPU 3").only_before);
  CHECK(Role(d, "load net").only_after);
  CHECK(Role(d, "max on CPU 3").only_before);
  CHECK(d.regression);
}

TEST_CASE("a trust warning that appears is reported", "[report]") {
  Verdict before = ExampleVerdict();
  before.host.virtual_machine = false;
  Judge(before, ExampleLimits());
  VerdictDiff d = DiffVerdicts(before, ExampleVerdict());
  REQUIRE(d.notes.size() == 1);
  CHECK_THAT(d.notes[0], Catch::Contains("AFTER only: measured on a virtual machine"));
}
