// The timerlat recording on a fixture tracefs: what it switches on, that every file reads as
// before afterwards (also when a write fails half-way), and what a kernel without it is told.
#include <catch2/catch.hpp>

#include <cerrno>
#include <map>
#include <string>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "trace/tracefs_test_support.h"
#include "trace/tracer_session.h"

using namespace rtagent;
using rtagent::testing::Tracefs;


TEST_CASE("tracer session: timerlat on the measured CPUs with its events, everything back afterwards",
          "[trace][session]") {
  Tracefs t;
  TracerSupport s = ProbeTracers(t.root);
  REQUIRE(s.timerlat);
  CHECK(s.reason.empty());
  CHECK(s.missing_events.empty());
  SessionSpec spec;
  spec.cpus = CpuSet::Of({2, 3});
  spec.threshold_us = 150;
  {
    auto session = TracerSession::Start(t.root, s, spec);
    REQUIRE(session);
    CHECK(t.Get(kpath::kCurrentTracer) == "timerlat\n");
    CHECK(t.Get(kpath::kTracingCpumask) == "c\n");
    CHECK(t.Get(kpath::kOsnoiseCpus) == "2-3\n");
    CHECK(t.Get(kpath::kOsnoiseStopTotalUs) == "150\n");
    CHECK(t.Get(kpath::TraceEventEnable("osnoise", "irq_noise")) == "1\n");
    CHECK(t.Get(kpath::TraceEventEnable("sched", "sched_switch")) == "1\n");
    CHECK(ParseBracketChoice(t.Get(kpath::kTraceClock)) == std::optional<std::string>("mono"));  // timerlat's clock
    CHECK_FALSE(session->StoppedByKernel());
    t.Put(kpath::kTracingOn, "0\n");  // what the kernel does at the threshold
    CHECK(session->StoppedByKernel());
    std::string restore_error;
    auto text = session->Finish(restore_error);
    REQUIRE(text);
    CHECK_THAT(*text, Catch::Contains("timer_latency 10000 ns"));
    CHECK(restore_error.empty());
    t.RequireAsBefore();
  }
  t.RequireAsBefore();
}

TEST_CASE("tracer session: a refused write stops the start and leaves nothing changed", "[trace][session]") {
  Tracefs t;
  const std::string refused = kpath::TracefsFile(kpath::kTracefs, kpath::TraceEventEnable("sched", "sched_wakeup"));
  t.root.FailWrites(refused, EACCES);
  SessionSpec spec;
  spec.cpus = CpuSet::Of({2});
  auto session = TracerSession::Start(t.root, ProbeTracers(t.root), spec);
  REQUIRE_FALSE(session);
  CHECK_THAT(session.error().message, Catch::Contains("cannot write 1 to " + refused));
  t.RequireAsBefore();
  CHECK(t.Get(kpath::kCurrentTracer) == "nop\n");
}

TEST_CASE("tracer session: a kernel without timerlat or its events is told what it needs", "[trace][session]") {
  Tracefs old("hwlat function nop", false);
  TracerSupport s = ProbeTracers(old.root);
  CHECK_FALSE(s.timerlat);
  CHECK(s.reason ==
        "the kernel has no timerlat tracer (available_tracers: hwlat function nop); it needs "
        "CONFIG_TIMERLAT_TRACER and CONFIG_OSNOISE_TRACER (Linux 5.14 or later)");
  CHECK(s.missing_events.size() == 4);
  SessionSpec spec;
  spec.cpus = CpuSet::Of({1});
  auto session = TracerSession::Start(old.root, s, spec);
  REQUIRE_FALSE(session);
  CHECK(session.error().message == s.reason);
  old.RequireAsBefore();

  TempTree empty;
  FaultRoot none(empty.dir());
  TracerSupport n = ProbeTracers(none);
  CHECK_FALSE(n.timerlat);
  CHECK_THAT(n.reason, Catch::Contains("tracefs is not mounted"));
}

TEST_CASE("tracer session: a kernel whose trace_clock lacks mono keeps its own clock", "[trace][session]") {
  Tracefs t;
  t.Put(kpath::kTraceClock, "[local] global counter\n");
  SessionSpec spec;
  spec.cpus = CpuSet::Of({1});
  {
    auto session = TracerSession::Start(t.root, ProbeTracers(t.root), spec);
    REQUIRE(session);
    CHECK(t.Get(kpath::kTraceClock) == "[local] global counter\n");  // never written
    CHECK(t.Get(kpath::kCurrentTracer) == "timerlat\n");
  }
  CHECK(t.Get(kpath::kCurrentTracer) == "nop\n");
}

TEST_CASE("tracer session: the trace clock's words are matched whole, selected or not", "[trace][session]") {
  CHECK(TraceClockOffered("local [global] counter uptime perf mono mono_raw boot", "mono"));
  CHECK(TraceClockOffered("local global [mono] mono_raw", "mono"));
  CHECK_FALSE(TraceClockOffered("local [global] mono_raw", "mono"));
  CHECK_FALSE(TraceClockOffered("", "mono"));
}
