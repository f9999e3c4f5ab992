#include "report/judge.h"

#include <catch2/catch.hpp>

#include "report/json.h"
#include "report/markdown.h"
#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::testing;

namespace {

// A verdict of one quiet CPU that passes every example limit, on a real board.
Verdict Passing() {
  Verdict v;
  v.profile_name = "bench";
  v.host.kernel_release = "6.12.9-rt";
  v.host.preempt_rt = true;
  v.config.cpus = CpuSet::Of({3});
  v.config.interval_us = 1000;
  v.config.policy = "SCHED_FIFO";
  v.config.priority = 80;
  v.config.duration_asked_ns = 200000000000;
  v.config.duration_actual_ns = 200000000000;
  v.config.memory_locked = true;
  Histogram h(100);
  Fill(h, 3000, 199000);
  Fill(h, 9000, 990);
  Fill(h, 45000, 10);
  v.cpus.push_back(MakeCpuResult(3, std::move(h)));
  v.preflight = {{"kernel", true, "", "PASS", ""}};
  v.loads = {{"compute", CpuSet::Of({0}), CpuSet::Of({0}), "", std::nullopt, 15}};
  return v;
}

const Criterion& Find(const Verdict& v, const std::string& name, std::optional<int> cpu = std::nullopt) {
  for (const Criterion& k : v.criteria) {
    if (k.name == name && k.cpu == cpu) return k;
  }
  FAIL("no criterion " << name);
  throw std::logic_error("unreachable");
}

AcceptanceLimits Limits() {
  AcceptanceLimits l = ExampleLimits();
  l.min_samples = 100000;
  l.min_duration_ns = 60000000000;
  return l;
}

}  // namespace

TEST_CASE("a run within every limit passes, with no trust warning on a real board", "[report]") {
  Verdict v = Passing();
  Judge(v, Limits());
  CHECK(v.pass);
  // max, p99, p99.9, overflows, samples per CPU; duration, preflight, placement for the run.
  CHECK(v.criteria.size() == 8);
  for (const Criterion& k : v.criteria) {
    INFO(k.name << ": " << k.evidence);
    CHECK(k.pass);
  }
  CHECK(v.warnings.empty());
  CHECK(Find(v, "max", 3).measured_text == "45.0 µs");
  CHECK(Find(v, "p99.9", 3).measured == 9.0);
}

TEST_CASE("each failing criterion fails the verdict with its evidence", "[report]") {
  SECTION("worst case above the max limit") {
    Verdict v = Passing();
    AcceptanceLimits l = Limits();
    l.max_us = 40;
    Judge(v, l);
    CHECK_FALSE(v.pass);
    const Criterion& k = Find(v, "max", 3);
    CHECK_FALSE(k.pass);
    CHECK_THAT(k.evidence, Catch::Contains("exceeded by 5.0 µs"));
  }
  SECTION("a percentile above its limit") {
    Verdict v = Passing();
    AcceptanceLimits l = Limits();
    l.percentiles = {{0.999, 8}};
    Judge(v, l);
    CHECK_FALSE(v.pass);
    CHECK_FALSE(Find(v, "p99.9", 3).pass);
    CHECK(Find(v, "p99.9", 3).measured == 9.0);
  }
  SECTION("a percentile beyond the histogram fails, its value unknown") {
    Verdict v = ExampleVerdict();
    AcceptanceLimits l = ExampleLimits();
    l.percentiles = {{0.9999, 1000}};  // a generous limit, but the value is not known
    Judge(v, l);
    const Criterion& k = Find(v, "p99.99", 2);
    CHECK_FALSE(k.pass);
    CHECK_FALSE(k.measured);
    CHECK(k.measured_text == "beyond 100 µs");
    CHECK_THAT(k.evidence, Catch::Contains("1 of 1,000 wake-ups overflowed"));
  }
  SECTION("an overflow") {
    Verdict v = ExampleVerdict();
    const Criterion& k = Find(v, "overflows", 2);
    CHECK_FALSE(k.pass);
    CHECK_THAT(k.evidence, Catch::Contains("1203.0 µs"));
    CHECK_THAT(k.evidence, Catch::Contains("at sample 999, 999 ms into the run"));
    CHECK(Find(v, "overflows", 3).pass);
  }
  SECTION("too few samples") {
    Verdict v = Passing();
    AcceptanceLimits l = Limits();
    l.min_samples = 1000000;
    Judge(v, l);
    CHECK_FALSE(v.pass);
    CHECK_THAT(Find(v, "samples", 3).evidence, Catch::Contains("200,000 wake-ups measured, at least 1,000,000"));
  }
  SECTION("too short a run") {
    Verdict v = Passing();
    AcceptanceLimits l = Limits();
    l.min_duration_ns = 3600LL * 1000000000;
    Judge(v, l);
    CHECK_FALSE(v.pass);
    CHECK_THAT(Find(v, "duration").evidence, Catch::Contains("3 min 20 s, at least 1 h 0 min 0 s"));
  }
  SECTION("a failed pre-flight check") {
    Verdict v = Passing();
    v.preflight.push_back({"hwlat", false, "a 52 µs gap on CPU 3", "FAIL", ""});
    Judge(v, Limits());
    CHECK_FALSE(v.pass);
    CHECK(Find(v, "preflight kernel").pass);
    CHECK_FALSE(Find(v, "preflight hwlat").pass);
    CHECK(Find(v, "preflight hwlat").evidence == "a 52 µs gap on CPU 3");
  }
  SECTION("a load that ran outside its CPUs") {
    Verdict v = Passing();
    v.loads[0].cpus_ran = CpuSet::Of({0, 3});
    Judge(v, Limits());
    CHECK_FALSE(v.pass);
    CHECK_THAT(Find(v, "placement compute").evidence, Catch::Contains("outside its CPUs on 3"));
  }
  SECTION("an interrupted run fails even when its criteria hold") {
    Verdict v = Passing();
    v.interrupted = true;
    Judge(v, Limits());
    CHECK_FALSE(v.pass);
    REQUIRE_FALSE(v.warnings.empty());
    CHECK(v.warnings.back().code == "interrupted");
  }
  SECTION("no measured CPU is no pass") {
    Verdict v = Passing();
    v.cpus.clear();
    v.loads.clear();
    v.preflight.clear();
    AcceptanceLimits l = Limits();
    l.min_duration_ns = 0;
    Judge(v, l);
    CHECK(v.criteria.empty());
    CHECK_FALSE(v.pass);
  }
}

TEST_CASE("trust warnings name every reason not to believe the figures", "[report]") {
  Verdict v = ExampleVerdict();
  REQUIRE(v.warnings.size() == 3);
  CHECK(v.warnings[0].code == "virtual_machine");
  CHECK(v.warnings[0].text ==
        "measured on a virtual machine (KVM): these are virtual-machine figures, not the board's real-time figures");
  CHECK(v.warnings[1].code == "too_short");
  CHECK(v.warnings[1].text ==
        "run too short for its sample count: p99.99 needs at least 100,000 samples, p99.9 needs at least 10,000 "
        "samples; CPU 2 has 1,000");
  CHECK(v.warnings[2].code == "own_pm_qos");
  CHECK(v.warnings[2].text == "the sampler held its own PM QoS note (0 µs): C-state exits are hidden");

  Verdict w = Passing();
  w.host.coarse_clock = true;
  w.host.clock_reasons = {"one clock read costs 1.8 µs (clocksource hpet), more than half a histogram bin"};
  w.config.policy = "SCHED_OTHER";
  w.config.memory_locked = false;
  Judge(w, Limits());
  std::vector<std::string> codes;
  for (const auto& t : w.warnings) codes.push_back(t.code);
  CHECK(codes == std::vector<std::string>{"coarse_clock", "sched_other", "memory_not_locked"});
  CHECK_THAT(w.warnings[0].text, Catch::Contains("hpet"));
  CHECK(w.pass);  // warnings qualify the figures; they do not fail the criteria
}

TEST_CASE("a sampler result fills the verdict's run and CPUs", "[report]") {
  SamplerResult run;
  run.interval = std::chrono::microseconds(500);
  run.duration_asked = std::chrono::seconds(2);
  run.duration_actual = std::chrono::milliseconds(1500);
  run.priority_asked = 90;
  run.fifo = false;
  run.memory_locked = true;
  run.own_pm_qos_us = 0;
  run.interrupted = true;
  run.notes = {"CPU 1 ran SCHED_OTHER"};
  Histogram h(50);
  Fill(h, 3000, 10);
  run.cpus.push_back(CpuRun{1, std::move(h), SchedState{0, 0}, true, 1500000000});
  Verdict v;
  AddSamplerResult(v, std::move(run), {0.95});
  CHECK(v.config.cpus == CpuSet::Of({1}));
  CHECK(v.config.interval_us == 500);
  CHECK(v.config.policy == "SCHED_OTHER");
  CHECK(v.config.histogram_limit_us == 50);
  CHECK(v.config.pm_qos.holder == PmQosHolder::kSampler);
  CHECK(v.interrupted);
  REQUIRE(v.cpus.size() == 1);
  CHECK(v.cpus[0].stats.samples == 10);
  CHECK(v.cpus[0].stats.Find(0.95));
}

TEST_CASE("boot arguments not in effect come first: the CPUs are not isolated until the reboot", "[report]") {
  Verdict v = Passing();
  v.host.boot_args_pending = {"isolcpus=nohz,domain,managed_irq,2-3", "nohz_full=2-3"};
  Judge(v, Limits());
  REQUIRE_FALSE(v.warnings.empty());
  CHECK(v.warnings[0].code == "not_isolated_yet");
  CHECK(v.warnings[0].text ==
        "the measured CPUs are not isolated until the reboot: the boot arguments isolcpus=nohz,domain,managed_irq,2-3 "
        "nohz_full=2-3 are written for the next boot, not in effect; reboot, then run `rtagent commission` again: that "
        "run gives the verdict that counts");
  // The verdict's first lines, in every format that has them, and the field survives JSON.
  CHECK_THAT(RenderMarkdown(v), Catch::Contains("Read this first") && Catch::Contains("not isolated until the reboot"));
  auto back = ParseVerdictJson(RenderJson(v));
  REQUIRE(back);
  CHECK(back->host.boot_args_pending == v.host.boot_args_pending);
  CHECK(RenderJson(*back) == RenderJson(v));
}

TEST_CASE("a CPU that measured no wake-up fails, even with no sample floor asked for", "[report]") {
  Verdict v = Passing();
  v.cpus.push_back(MakeCpuResult(2, Histogram(100)));  // an imported thread whose histogram is empty
  AcceptanceLimits l = Limits();
  l.min_samples = 0;
  Judge(v, l);
  CHECK_FALSE(v.pass);
  const Criterion& none = Find(v, "samples", 2);
  CHECK_FALSE(none.pass);
  CHECK(none.evidence == "0 wake-ups measured, at least 1 required");
  // The CPU that woke gets no samples row of its own: no floor was asked for.
  for (const Criterion& k : v.criteria) CHECK_FALSE((k.name == "samples" && k.cpu == 3));
}
