// The pre-flight checks in the verdict (verify's answers, one per check) and the PM QoS note
// in force, on fixtures: no live machine, no latency figure.
#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/sysroot.h"
#include "cli/preflight.h"
#include "report/judge.h"

using namespace rtagent;

namespace {

check::CheckResult Answer(const std::string& check, const std::string& id, check::Status s, const std::string& summary) {
  check::CheckResult r;
  r.check = check;
  r.id = id;
  r.status = s;
  r.summary = summary;
  return r;
}

/// A verdict that passes every latency criterion: one CPU, 10,000 wake-ups of 5 µs.
Verdict PassingVerdict() {
  Verdict v;
  v.config.cpus = CpuSet::Parse("1").value();
  v.config.policy = "SCHED_FIFO";
  v.config.duration_asked_ns = v.config.duration_actual_ns = 10'000'000'000;
  Histogram h(1000);
  for (int i = 0; i < 10000; ++i) h.Record(5000, int64_t{i} * 1000000);
  v.cpus.push_back(MakeCpuResult(1, std::move(h)));
  return v;
}

AcceptanceLimits Limits() {
  AcceptanceLimits l;
  l.max_us = 100;
  l.zero_overflows = true;
  l.min_duration_ns = 10'000'000'000;
  return l;
}

}  // namespace

TEST_CASE("pre-flight: one entry per check; a FAIL fails it, WARN and SKIP pass and are counted", "[cli][preflight]") {
  check::SuiteReport s;
  s.suite = "boot";
  s.results = {Answer("kernel", "kernel.preempt_rt", check::Status::kWarn, "not PREEMPT_RT"),
               Answer("kernel", "kernel.version", check::Status::kPass, "6.12"),
               Answer("interrupts", "interrupts.irq.36", check::Status::kFail, "721/s on CPU 1"),
               Answer("interrupts", "interrupts.LOC", check::Status::kPass, "within"),
               Answer("hwlat", "hwlat", check::Status::kSkip, "no tracer")};
  auto p = PreflightFromSuite(s);
  REQUIRE(p.size() == 3);
  CHECK(p[0].name == "kernel");
  CHECK(p[0].passed);
  CHECK(p[0].reason == "1 passed, 1 warned (kernel.preempt_rt: not PREEMPT_RT) (suite boot)");
  CHECK(p[1].name == "interrupts");
  CHECK_FALSE(p[1].passed);
  CHECK(p[1].reason == "FAIL interrupts.irq.36: 721/s on CPU 1");
  CHECK(p[2].name == "hwlat");
  CHECK(p[2].passed);
  CHECK(p[2].reason == "0 passed, 1 skipped (suite boot)");

  SECTION("an interrupted suite adds a failed entry: checks that never ran did not pass") {
    s.interrupted = true;
    auto q = PreflightFromSuite(s);
    REQUIRE(q.size() == 4);
    CHECK(q[3].name == "suite");
    CHECK_FALSE(q[3].passed);
  }
}

TEST_CASE("a failed pre-flight check makes an otherwise passing verdict FAIL", "[cli][preflight]") {
  Verdict v = PassingVerdict();
  check::SuiteReport s;
  s.suite = "boot";
  s.results = {Answer("kernel", "kernel.version", check::Status::kPass, "")};
  v.preflight = PreflightFromSuite(s);
  Judge(v, Limits());
  CHECK(v.pass);

  Verdict w = PassingVerdict();
  s.results.push_back(Answer("conformance", "conformance.irqs", check::Status::kFail, "2 of 14 irqs settings differ"));
  w.preflight = PreflightFromSuite(s);
  Judge(w, Limits());
  CHECK_FALSE(w.pass);
  bool found = false;
  for (const Criterion& k : w.criteria) {
    if (k.name != "preflight conformance") continue;
    found = true;
    CHECK_FALSE(k.pass);
    CHECK(k.evidence == "FAIL conformance.irqs: 2 of 14 irqs settings differ");
  }
  CHECK(found);
}

TEST_CASE("the PM QoS note in force: nobody's, hold's, or another program's", "[cli][pm_qos]") {
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
}

TEST_CASE("the PM QoS figures are read through the root: the device and hold's state file", "[cli][pm_qos]") {
  TempTree t(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu");
  auto root = OpenRoot(t.dir());
  REQUIRE(root.ok());
  CHECK_FALSE(ReadHoldPmQos(**root).has_value());  // no hold running

  t.Put("run/rtagent/state.json", R"({"pid": 42, "pm_qos_us": 20})");
  CHECK(ReadHoldPmQos(**root) == 20);
  t.Put("run/rtagent/state.json", R"({"pid": 42, "pm_qos_us": null})");
  CHECK_FALSE(ReadHoldPmQos(**root).has_value());
  t.Put("run/rtagent/state.json", "{not json");
  CHECK_FALSE(ReadHoldPmQos(**root).has_value());

  // The device holds a binary s32; fixtures may hold it as text.
  t.Put("dev/cpu_dma_latency", std::string("\x14\0\0\0", 4));
  CHECK(ReadPmQosDevice(**root) == 20);
  t.Put("dev/cpu_dma_latency", "2000000000\n");
  CHECK(ReadPmQosDevice(**root) == kPmQosNoLimitUs);
  t.Put("dev/cpu_dma_latency", "");
  CHECK_FALSE(ReadPmQosDevice(**root).has_value());
}
