// The pre-flight checks in the verdict (verify's answers, one per check): no live machine, no
// latency figure.
#include <catch2/catch.hpp>

#include "check/preflight.h"
#include "report/judge.h"

using namespace rtagent;
using rtagent::check::PreflightFromSuite;

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

TEST_CASE("pre-flight: one entry per check, a FAIL fails it, WARN and SKIP pass and are counted", "[check][preflight]") {
  check::SuiteReport s;
  s.suite = "boot";
  s.results = {Answer("kernel", "kernel.preempt_rt", check::Status::kWarn, "not PREEMPT_RT"),
               Answer("kernel", "kernel.version", check::Status::kPass, "6.12"),
               Answer("interrupts", "interrupts.irq.36", check::Status::kFail, "721/s on CPU 1"),
               Answer("interrupts", "interrupts.LOC", check::Status::kPass, "within"),
               Answer("hwlat", "hwlat", check::Status::kSkip, "no tracer")};
  s.results[0].hint = "boot a PREEMPT_RT kernel";
  s.results[2].hint = "move IRQ 36 to a housekeeping CPU";
  auto p = PreflightFromSuite(s);
  REQUIRE(p.size() == 3);
  CHECK(p[0].status == "WARN");
  CHECK(p[0].hint == "kernel.preempt_rt: boot a PREEMPT_RT kernel");
  CHECK(p[1].status == "FAIL");
  CHECK(p[1].hint == "interrupts.irq.36: move IRQ 36 to a housekeeping CPU");
  CHECK(p[2].status == "SKIP");
  CHECK(p[2].hint.empty());
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
    CHECK(q[3].status == "FAIL");
  }
}

TEST_CASE("a failed pre-flight check makes an otherwise passing verdict FAIL", "[check][preflight]") {
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
