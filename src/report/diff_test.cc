#include "report/diff.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/xml.h"
#include "report/junit.h"
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

DiffRules Fallback(double percent, double abs_us) {
  DiffRules r;
  r.fallback = DiffTolerance{percent, abs_us};
  return r;
}

TEST_CASE("diff tolerances allow the larger of the percent and the µs", "[report]") {
  const Verdict before = ExampleVerdict();
  const Verdict after = After();
  VerdictDiff d = DiffVerdicts(before, after, Fallback(10, 20));  // +17.2 µs is under 20 µs
  CHECK_FALSE(Metric(Role(d, "CPU 3"), "max").regression);
  CHECK(Metric(Role(d, "CPU 3"), "max").allowed_us == Approx(20));
  CHECK(Metric(Role(d, "CPU 3"), "p99").regression);  // +22 µs
  d = DiffVerdicts(before, after, Fallback(1000, 1));  // +220 % is under 1000 %
  CHECK_FALSE(Role(d, "CPU 3").regression);
  CHECK_FALSE(DiffVerdicts(before, before).regression);
}

TEST_CASE("a tolerance per statistic replaces that statistic's default only", "[report]") {
  const Verdict before = ExampleVerdict();
  const Verdict after = After();
  DiffRules rules;
  REQUIRE(AddTolerances(rules, {"max=20us", "p99.9=300%,p99=10%"}));
  CHECK(rules.For("max").abs_us == 20);
  CHECK(rules.For("max").percent == 0);  // named with µs only: no % on top
  CHECK(rules.For("p99").percent == 10);
  CHECK(rules.For("p99").abs_us == 0);
  CHECK(rules.For("p99.99").percent == 10);  // not named: the default, 10 % or 5 µs
  CHECK(rules.For("p99.99").abs_us == 5);
  VerdictDiff d = DiffVerdicts(before, after, rules);
  CHECK_FALSE(Metric(Role(d, "CPU 3"), "max").regression);   // +17.2 <= 20
  CHECK(Metric(Role(d, "CPU 3"), "p99").regression);         // +22 > 10 % of 3
  CHECK_FALSE(Metric(Role(d, "CPU 3"), "p99.9").regression); // +18 <= 300 % of 7
  // The text states what was named, and "the larger" only where there are two to choose from.
  const std::string md = RenderDiffMarkdown(d);
  CHECK_THAT(md, Catch::Contains("max +20.0 µs; p99 +10.0 %; p99.9 +300.0 %; p99.99 +10.0 % or +5.0 µs, the larger;"));
  REQUIRE(AddTolerances(rules, {"max=10%,max=20us"}));
  CHECK(rules.For("max").percent == 10);
  CHECK(rules.For("max").abs_us == 20);
}

TEST_CASE("bad --tolerance and --require-same values are refused with a hint", "[report]") {
  DiffRules rules;
  for (const auto& [spec, says] : std::vector<std::pair<std::string, std::string>>{
           {"p95=10%", "unknown statistic \"p95\""},
           {"max=10", "needs a unit"},
           {"max=-3us", "not a number at least 0"},
           {"max=tenus", "not a number"},
           {"max", "not STAT=VALUE"},
           {"max=10%,,p99=5%", "not STAT=VALUE"},
       }) {
    INFO(spec);
    auto r = AddTolerances(rules, {spec});
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(says) && Catch::Contains("max, p99, p99.9, p99.99"));
  }
  auto r = AddRequireSame(rules, {"profile,kernel", "board"});
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("\"board\": not one of profile, host, kernel"));
  REQUIRE(AddRequireSame(rules, {"host", "profile,kernel"}));
  CHECK(rules.require_same == std::set<std::string>{"host", "kernel", "profile"});
}

TEST_CASE("a role of the baseline missing now is a regression unless allowed", "[report]") {
  Verdict before = ExampleVerdict();
  Verdict after = ExampleVerdict();
  after.cpus.pop_back();  // CPU 3 not measured now
  after.loads.pop_back();  // nor the disk load
  Judge(after, ExampleLimits());
  VerdictDiff d = DiffVerdicts(before, after);
  CHECK(Role(d, "CPU 3").regression);
  CHECK(Role(d, "load disk").regression);
  CHECK(Role(d, "max on CPU 3").regression);
  CHECK(d.regression);
  CHECK_THAT(RenderDiffMarkdown(d), Catch::Contains("measured in BEFORE only: missing now (a regression; --allow-missing accepts it)"));
  const std::string junit = RenderDiffJUnit(d);
  CHECK_THAT(junit, Catch::Contains("<testcase classname=\"rtagent.diff.cpu3\" name=\"present\""));
  CHECK_THAT(junit, Catch::Contains("type=\"missing\""));
  DiffRules allow;
  allow.allow_missing = true;
  d = DiffVerdicts(before, after, allow);
  CHECK_FALSE(Role(d, "CPU 3").regression);
  CHECK_FALSE(Role(d, "load disk").regression);
  CHECK_FALSE(d.regression);
}

TEST_CASE("two runs on different CPUs are never a pass, missing roles allowed or not", "[report]") {
  Verdict before = ExampleVerdict();  // CPUs 2-3
  Verdict after = ExampleVerdict();
  after.cpus[0].cpu = 0;
  after.cpus[1].cpu = 1;
  after.config.cpus = CpuSet::Of({0, 1});
  DiffRules allow;
  allow.allow_missing = true;
  const VerdictDiff d = DiffVerdicts(before, after, allow);
  CHECK(d.regression);
  REQUIRE_FALSE(d.notes.empty());
  CHECK_THAT(d.notes[0], Catch::Contains("no CPU was measured in both runs (BEFORE 2-3, AFTER 0-1)"));
  CHECK_THAT(RenderDiffJUnit(d), Catch::Contains("type=\"nothing_compared\""));
}

TEST_CASE("what differs between the runs is stated first and --require-same refuses it", "[report]") {
  Verdict before = ExampleVerdict();
  Verdict after = ExampleVerdict();
  CHECK(IdentityChanges(before, after).empty());
  after.profile_digest = "sha256:ffff";
  after.host.kernel_release = "6.12.9-amd64";
  after.host.kernel_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.12.9-1";
  const VerdictDiff d = DiffVerdicts(before, after);
  REQUIRE(d.identity.size() == 2);
  CHECK(d.identity[0].what == "profile");
  CHECK(d.identity[1].what == "kernel");
  CHECK_THAT(RenderDiffMarkdown(d), Catch::Contains("- **kernel differs**: 6.12.9-rt-amd64 #1 SMP PREEMPT_RT Debian 6.12.9-1 -> 6.12.9-amd64"));
  DiffRules rules;
  REQUIRE(AddRequireSame(rules, {"host,kernel"}));
  const auto bad = RequiredSameViolations(d.identity, rules);
  REQUIRE(bad.size() == 1);
  CHECK_THAT(bad[0], Catch::StartsWith("kernel differs: 6.12.9-rt-amd64") && Catch::EndsWith("(--require-same kernel)"));
  // A side that does not say (an import) is not known to be the same.
  Verdict unknown = ExampleVerdict();
  unknown.host.hostname.clear();
  CHECK(IdentityChanges(before, unknown).at(0).after == "unknown");
}

TEST_CASE("an earlier gate's baseline criterion is not compared", "[report]") {
  Verdict before = ExampleVerdict();
  before.criteria.push_back(Criterion{"baseline", std::nullopt, "", 0, 0, "no regression", true, ""});
  const VerdictDiff d = DiffVerdicts(before, ExampleVerdict());
  for (const RoleDiff& r : d.roles) CHECK(r.role != "baseline (run)");
  CHECK_FALSE(d.regression);
}

TEST_CASE("diff JUnit: one test case per compared statistic and role", "[report]") {
  const VerdictDiff d = DiffVerdicts(ExampleVerdict(), After());
  CheckExpected("diff.junit.xml", RenderDiffJUnit(d));
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
  CHECK_THAT(RenderDiffMarkdown(d), Catch::Contains("| CPU 3 | p99 | 3.0 | beyond limit | – | +5.0 | **yes** |"));
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

TEST_CASE("a candidate kernel that lost PREEMPT_RT is a regression whatever its figures", "[report]") {
  // The kernel gate of docs/ci.md: under QEMU the stock kernel's figures can match the RT
  // kernel's (the emulator's noise is larger than the preemption model's), but a kernel or
  // image change that drops PREEMPT_RT must never pass the gate.
  Verdict before = ExampleVerdict();
  Verdict after = ExampleVerdict();
  after.host.preempt_rt = false;
  after.host.kernel_release = "6.1.0-57-amd64";
  after.host.kernel_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3";
  VerdictDiff d = DiffVerdicts(before, after);
  CHECK(d.preempt_rt_lost);
  CHECK(d.regression);
  CHECK(RegressedItems(d) == std::vector<std::string>{"PREEMPT_RT lost"});
  CHECK_THAT(RenderDiffMarkdown(d), Catch::Contains("> PREEMPT_RT lost: BEFORE ran 6.12.9-rt-amd64 (PREEMPT_RT), AFTER "
                                                    "6.1.0-57-amd64 is not a PREEMPT_RT kernel"));
  CHECK_THAT(RenderDiffJUnit(d), Catch::Contains("<testcase classname=\"rtagent.diff.run\" name=\"PREEMPT_RT kept\"") &&
                                     Catch::Contains("<failure message=\"PREEMPT_RT lost: BEFORE"));
  CHECK(nlohmann::json::parse(RenderDiffJson(d))["preempt_rt_lost"] == true);
  // Gaining it, or two stock kernels, is no regression of this kind.
  CHECK_FALSE(DiffVerdicts(after, before).preempt_rt_lost);
  CHECK_FALSE(DiffVerdicts(after, after).regression);
  // An import that does not say which kernel it ran is not judged on it.
  after.imported = ImportSource{"cyclictest -h", "c.txt", {"kernel"}};
  CHECK_FALSE(DiffVerdicts(before, after).preempt_rt_lost);
}

TEST_CASE("accept --baseline --junit: the verdict's cases, then one per compared statistic and role", "[report]") {
  const Verdict now = After();
  const VerdictDiff d = DiffVerdicts(ExampleVerdict(), now);
  const std::string alone = RenderJUnit(now);
  const std::string with = RenderJUnit(now, &d);
  CHECK(alone.find("rtagent.diff.") == std::string::npos);
  CHECK_THAT(with, Catch::Contains("<property name=\"baseline_result\" value=\"REGRESSION\"/>"));
  // The same cases `rtagent diff --junit` writes, each once.
  for (const JUnitCase& c : DiffJUnitCases(d)) {
    CHECK_THAT(with, Catch::Contains("<testcase classname=\"" + c.classname + "\" name=\"" + XmlEscape(c.name) + "\""));
  }
  CHECK_THAT(with, Catch::Contains("classname=\"rtagent.diff.cpu3\" name=\"p99\"") && Catch::Contains("CPU 3 p99: 3.0 -&gt; 25.0 µs"));
  CHECK_THAT(with, Catch::Contains("<testcase classname=\"rtagent.accept.cpu2\""));  // the verdict's own cases stay
}
