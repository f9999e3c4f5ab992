// An acceptance run's record turned into a verdict: no live machine, a record made by hand.
#include "report/acceptance_verdict.h"

#include <signal.h>

#include <catch2/catch.hpp>

#include "base/pm_qos.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "report/test_verdict.h"

using namespace rtagent;
using rtagent::profile::testing::Cpus;
using rtagent::profile::testing::TempDir;

namespace {

// A 10 s run on CPU 1: 10,000 wake-ups 5 µs late; one load that stayed on CPU 0.
AcceptanceRecord Record() {
  AcceptanceRecord r;
  r.started_at = 1796010000;
  r.host.hostname = "bench";
  r.host.kernel_release = "6.12.9-rt-amd64";
  r.host.preempt_rt = true;
  r.host.clocksource = "tsc";
  r.clock = ClockFacts{1, 20, "tsc"};
  r.pm_qos_device_us = kPmQosNoLimitUs;
  CpuRun cpu;
  cpu.cpu = 1;
  cpu.histogram = Histogram(1000);
  rtagent::testing::Fill(cpu.histogram, 5000, 10000);
  cpu.sched = {SCHED_FIFO, 90};
  r.sampler.cpus.push_back(std::move(cpu));
  r.sampler.interval = std::chrono::microseconds(1000);
  r.sampler.duration_asked = r.sampler.duration_actual = std::chrono::seconds(10);
  r.sampler.priority_asked = 90;
  r.sampler.fifo = true;
  r.sampler.memory_locked = true;
  LoadReport load;
  load.name = "cache";
  load.cpus_asked = CpuSet::Of({0});
  load.placement.seen = CpuSet::Of({0});
  load.exit = "killed by SIGTERM";
  r.loads.push_back(load);
  r.load_count = 1;
  r.interrupts = {{"LOC (Local timer interrupts)", 10000}};
  return r;
}

VerdictContext Context() {
  VerdictContext c;
  c.tool_version = "0.1.0";
  c.profile_name = "bench";
  c.profile_digest = "sha256:00";
  c.preflight = {{"kernel", true, "1 passed (suite boot)", "PASS", ""}};
  c.limits.max_us = 100;
  c.limits.min_duration_ns = 10'000'000'000;
  return c;
}

const Criterion* Find(const Verdict& v, const std::string& name) {
  for (const Criterion& k : v.criteria) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a run's record becomes a judged verdict: figures, loads, interrupts, clock", "[report]") {
  Verdict v = BuildVerdict(Record(), Context());
  CHECK(v.pass);
  CHECK(v.started_at == "2026-11-30T03:40:00Z");
  CHECK(v.profile_name == "bench");
  CHECK(v.config.pm_qos.holder == PmQosHolder::kNone);
  REQUIRE(v.cpus.size() == 1);
  CHECK(v.cpus[0].stats.samples == 10000);
  REQUIRE(v.loads.size() == 1);
  CHECK(v.loads[0].signal == SIGTERM);
  CHECK(v.loads[0].PlacementHeld());
  REQUIRE(v.preflight.size() == 2);  // the caller's kernel check, then the loads' own claim
  CHECK(v.preflight[1].name == "loads");
  CHECK(v.preflight[1].reason == "1 load ran throughout, where it was put");
  CHECK(v.preflight[1].status == "PASS");
  CHECK(v.preflight[1].hint.empty());
  REQUIRE(v.interrupts.size() == 1);
  CHECK(v.interrupts[0].count == 10000);
  CHECK_FALSE(v.host.coarse_clock);
  CHECK(Find(v, "preflight loads") != nullptr);
}

TEST_CASE("a load that ran where it should not fails the verdict, a coarse clock is judged with the run", "[report]") {
  AcceptanceRecord r = Record();
  r.load_problems = {"cache ran on CPU 1, outside 0"};
  r.clock = ClockFacts{4000000, 20, "jiffies"};  // a 4 ms clock: too coarse for 1 µs bins
  Verdict v = BuildVerdict(std::move(r), Context());
  CHECK_FALSE(v.pass);
  const Criterion* loads = Find(v, "preflight loads");
  REQUIRE(loads != nullptr);
  CHECK_FALSE(loads->pass);
  CHECK(loads->evidence.find("cache ran on CPU 1") != std::string::npos);
  CHECK(v.preflight.back().status == "FAIL");
  CHECK_THAT(v.preflight.back().hint, Catch::Contains("the load's log"));
  CHECK(v.host.coarse_clock);
  CHECK_FALSE(v.host.clock_reasons.empty());
}

TEST_CASE("an interrupted run is marked so and does not pass", "[report]") {
  VerdictContext c = Context();
  c.interrupted = true;
  Verdict v = BuildVerdict(Record(), std::move(c));
  CHECK(v.interrupted);
  CHECK_FALSE(v.pass);
}

TEST_CASE("the PM QoS note in force: nobody's, hold's, or another program's", "[report][pm_qos]") {
  CHECK(JudgePmQos(kPmQosNoLimitUs, std::nullopt).holder == PmQosHolder::kNone);
  CHECK(JudgePmQos(kPmQosNoLimitUs, 20).holder == PmQosHolder::kNone);  // hold says 20 but the device shows none
  const PmQosNote held = JudgePmQos(20, 20);
  CHECK(held.holder == PmQosHolder::kProfile);
  CHECK(held.value_us == 20);
  const PmQosNote stricter = JudgePmQos(0, 20);  // someone else holds 0 over hold's 20
  CHECK(stricter.holder == PmQosHolder::kUnknown);
  CHECK(stricter.value_us == 0);
  CHECK(JudgePmQos(50, std::nullopt).holder == PmQosHolder::kUnknown);
  CHECK(JudgePmQos(std::nullopt, 20).holder == PmQosHolder::kProfile);
  CHECK(JudgePmQos(std::nullopt, std::nullopt).holder == PmQosHolder::kUnknown);

  AcceptanceRecord r = Record();
  r.pm_qos_device_us = 20;
  VerdictContext c = Context();
  c.pm_qos_hold_us = 20;
  const Verdict v = BuildVerdict(std::move(r), std::move(c));
  CHECK(v.config.pm_qos.holder == PmQosHolder::kProfile);
  CHECK(v.config.pm_qos_hold_us == 20);
}

TEST_CASE("a baseline criterion fails the run when a role regressed", "[report]") {
  const Verdict before = BuildVerdict(Record(), Context());
  Verdict same = BuildVerdict(Record(), Context());
  JudgeAgainstBaseline(same, before, "before.json");
  const Criterion* k = Find(same, "baseline");
  REQUIRE(k != nullptr);
  CHECK(k->pass);
  CHECK(k->evidence == "compared with before.json: nothing got worse beyond the tolerance");
  CHECK(same.pass);

  AcceptanceRecord worse = Record();
  rtagent::testing::Fill(worse.sampler.cpus[0].histogram, 90000, 1);  // one 90 µs wake-up
  Verdict after = BuildVerdict(std::move(worse), Context());
  const VerdictDiff d = JudgeAgainstBaseline(after, before, "before.json");
  CHECK(d.regression);
  CHECK_FALSE(after.pass);
  CHECK(Find(after, "baseline")->evidence == "compared with before.json: regressed: CPU 1 max");

  // A baseline that measured another CPU too: that CPU is missing now, named as such.
  Verdict wider = BuildVerdict(Record(), Context());
  wider.cpus.push_back(MakeCpuResult(7, wider.cpus[0].histogram));
  Verdict again = BuildVerdict(Record(), Context());
  JudgeAgainstBaseline(again, wider, "wider.json");
  CHECK(Find(again, "baseline")->evidence == "compared with wider.json: regressed: CPU 7 missing");
  DiffRules allow;
  allow.allow_missing = true;
  Verdict allowed = BuildVerdict(Record(), Context());
  JudgeAgainstBaseline(allowed, wider, "wider.json", allow);
  CHECK(Find(allowed, "baseline")->pass);
}

TEST_CASE("the profile's limits: each threshold it sets, and the run's duration", "[report]") {
  auto p = profile::LoadProfileText("acceptance:\n  max_us: 50\n  p99_us: 20\n  min_samples: 500\n", "t.yaml", ".",
                                    Cpus(4), nullptr);
  REQUIRE(p);
  const AcceptanceLimits l = LimitsOf(p->acceptance, 3'000'000'000);
  CHECK(l.max_us == 50);
  REQUIRE(l.percentiles.size() == 1);
  CHECK(l.percentiles[0].quantile == 0.99);
  CHECK(l.percentiles[0].limit_us == 20);
  CHECK(l.min_samples == 500);
  CHECK(l.min_duration_ns == 3'000'000'000);
}

TEST_CASE("the profile digest covers the values of the profile with its includes, not how it is written",
          "[report]") {
  TempDir dir;
  dir.Write("base.yaml", "acceptance:\n  max_us: 50\n");
  auto split = profile::LoadProfile(dir.Write("a.yaml", "include: [base.yaml]\nname: board\n"), Cpus(4), nullptr);
  auto whole = profile::LoadProfile(dir.Write("b.yaml", "# one file\nname: board\nacceptance: {max_us: 50}\n"),
                                    Cpus(4), nullptr);
  auto other = profile::LoadProfile(dir.Write("c.yaml", "name: board\nacceptance: {max_us: 60}\n"), Cpus(4), nullptr);
  REQUIRE(split);
  REQUIRE(whole);
  REQUIRE(other);
  const std::string digest = ProfileDigest(*split);
  CHECK(digest.rfind("sha256:", 0) == 0);
  CHECK(digest.size() == 7 + 64);
  CHECK(digest == ProfileDigest(*whole));
  CHECK(digest != ProfileDigest(*other));
  // An included file changing changes the digest of the profile that includes it.
  dir.Write("base.yaml", "acceptance:\n  max_us: 60\n");
  auto changed = profile::LoadProfile(dir.path() + "/a.yaml", Cpus(4), nullptr);
  REQUIRE(changed);
  CHECK(ProfileDigest(*changed) == ProfileDigest(*other));
}
