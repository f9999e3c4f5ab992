// The verdict's why during an acceptance run, on fixture roots: the timerlat recording started
// and put back, the recorded trace (a tests/traces fixture) attributed and saved, the coarse
// answer where tracefs is missing, and every way it declines without failing the run.
#include <catch2/catch.hpp>

#include "base/kernel_paths.h"
#include "cli/acceptance_why.h"
#include "cli/verdict_files.h"
#include "profile/test_support.h"
#include "report/test_verdict.h"
#include "trace/tracefs_test_support.h"

using namespace rtagent;
using rtagent::profile::testing::TempDir;
using rtagent::testing::ExampleVerdict;
using rtagent::testing::Tracefs;

namespace {

profile::AcceptanceConfig Acceptance(profile::ExplainWhen when) {
  profile::AcceptanceConfig a;
  a.explain.value = when;
  a.cpus.value.cpus = CpuSet::Of({2});
  a.max_us.value = 100;
  a.histogram_limit_us.value = 1000;
  return a;
}

// ExampleVerdict passes every latency criterion once its max and overflows are made to hold.
Verdict PassingVerdict() {
  Verdict v = ExampleVerdict();
  for (Criterion& k : v.criteria) k.pass = true;
  v.pass = true;
  return v;
}

std::string Fixture(const std::string& name) {
  auto text = FsRoot(RTAGENT_SOURCE_DIR).Read("tests/traces/" + name);
  REQUIRE(text);
  return *text;
}

WorstWindow Window() {
  WorstWindow w;
  w.cpu = 2;
  w.worst_ns = 1203000;
  w.span_ns = 250000000;
  w.counts = {{"interrupts", "24 virtio0-input.0", 40}};
  return w;
}

}  // namespace

TEST_CASE("acceptance why: the timerlat recording explains the first wake-up past the limit and is saved",
          "[cli][why]") {
  Tracefs t;
  TempDir out;
  auto e = AcceptanceExplainer::Start(t.root, Acceptance(profile::ExplainWhen::kOnBreach));
  REQUIRE(e);
  CHECK_FALSE(e->WantsCounters());
  CHECK(t.Get(kpath::kCurrentTracer) == "timerlat\n");
  CHECK(t.Get(kpath::kOsnoiseStopTotalUs) == "100\n");  // the kernel stops at max_us
  t.Put(kpath::kTrace, Fixture("composed-spin-irq-softirq.txt"));
  const std::string trace_path = out.path() + "/v.trace.txt";
  auto why = e->Finish(ExampleVerdict(), std::nullopt, trace_path);
  t.RequireAsBefore();
  REQUIRE(why);
  CHECK(why->status == "explained");
  CHECK(why->crossed);
  CHECK(why->threshold_us == 100);
  REQUIRE(why->attribution);
  CHECK(why->attribution->causes.front().name == "noise-spin:412");
  CHECK(why->trace_path == trace_path);
  CHECK(why->trace_format == "ftrace text");
  CHECK(ReadTextFile(trace_path).value() == Fixture("composed-spin-irq-softirq.txt"));
}

TEST_CASE("acceptance why: the histogram's limit is the stop without max_us, always explains a passing run",
          "[cli][why]") {
  Tracefs t;
  profile::AcceptanceConfig a = Acceptance(profile::ExplainWhen::kAlways);
  a.max_us.value.reset();
  auto e = AcceptanceExplainer::Start(t.root, a);
  REQUIRE(e);
  CHECK(t.Get(kpath::kOsnoiseStopTotalUs) == "1000\n");
  t.Put(kpath::kTrace, Fixture("composed-spin-irq-softirq.txt"));
  auto why = e->Finish(PassingVerdict(), std::nullopt, "");
  REQUIRE(why);
  CHECK(why->status == "explained");
  CHECK(why->crossed);  // 2010 µs is past 1000 µs
  CHECK(why->trace_path.empty());
  t.RequireAsBefore();
}

TEST_CASE("acceptance why: on-breach gives no section when nothing breached, off records nothing", "[cli][why]") {
  Tracefs t;
  auto e = AcceptanceExplainer::Start(t.root, Acceptance(profile::ExplainWhen::kOnBreach));
  REQUIRE(e);
  // A quiet trace: its worst wake-up is 10 µs, under the limit.
  auto why = e->Finish(PassingVerdict(), std::nullopt, "");
  CHECK_FALSE(why);
  t.RequireAsBefore();

  CHECK(AcceptanceExplainer::Start(t.root, Acceptance(profile::ExplainWhen::kOff)) == nullptr);
  t.RequireAsBefore();
}

TEST_CASE("acceptance why: a trace that cannot be read is a SKIP with the reason, saved all the same", "[cli][why]") {
  Tracefs t;
  TempDir out;
  auto e = AcceptanceExplainer::Start(t.root, Acceptance(profile::ExplainWhen::kAlways));
  REQUIRE(e);
  t.Put(kpath::kTrace, "not a trace at all\n");
  auto why = e->Finish(ExampleVerdict(), std::nullopt, out.path() + "/g.trace.txt");
  REQUIRE(why);
  CHECK(why->status == "skip");
  CHECK_THAT(why->reason, Catch::StartsWith("the recorded trace cannot be read: "));
  CHECK(why->trace_path == out.path() + "/g.trace.txt");
  CHECK(ReadTextFile(out.path() + "/g.trace.txt").value() == "not a trace at all\n");
  t.RequireAsBefore();
}

TEST_CASE("acceptance why: a trace without a wake-up on the measured CPU is a SKIP that says so", "[cli][why]") {
  Tracefs t;
  profile::AcceptanceConfig a = Acceptance(profile::ExplainWhen::kAlways);
  a.cpus.value.cpus = CpuSet::Of({5});
  auto e = AcceptanceExplainer::Start(t.root, a);
  REQUIRE(e);
  t.Put(kpath::kTrace, Fixture("composed-spin-irq-softirq.txt"));
  auto why = e->Finish(ExampleVerdict(), std::nullopt, "");
  REQUIRE(why);
  CHECK(why->status == "skip");
  CHECK_THAT(why->reason, Catch::Contains("no wake-up to explain on CPU 5"));
  t.RequireAsBefore();
}

TEST_CASE("acceptance why: a refused tracefs write is a SKIP with the reason, and nothing stays changed",
          "[cli][why]") {
  Tracefs t;
  t.root.FailWrites(kpath::TracefsFile(kpath::kTracefs, kpath::kCurrentTracer), EBUSY);
  auto e = AcceptanceExplainer::Start(t.root, Acceptance(profile::ExplainWhen::kOnBreach));
  REQUIRE(e);
  CHECK(e->WantsCounters());  // the coarse answer instead
  t.RequireAsBefore();
  auto why = e->Finish(ExampleVerdict(), Window(), "");
  REQUIRE(why);
  CHECK(why->status == "coarse");
  CHECK_THAT(why->reason, Catch::StartsWith("cannot start the timerlat tracer: cannot write "));
}

TEST_CASE("acceptance why: without tracefs the counters around the worst wake-up are the coarse answer",
          "[cli][why]") {
  TempTree empty;
  FaultRoot none(empty.dir());
  auto e = AcceptanceExplainer::Start(none, Acceptance(profile::ExplainWhen::kOnBreach));
  REQUIRE(e);
  CHECK(e->WantsCounters());
  auto why = e->Finish(ExampleVerdict(), Window(), "/nonexistent/v.trace.txt");
  REQUIRE(why);
  CHECK(why->status == "coarse");
  CHECK_THAT(why->reason, Catch::Contains("tracefs is not mounted"));
  CHECK(why->coarse_cpu == 2);
  CHECK(why->coarse_worst_ns == 1203000);
  CHECK(why->coarse_window == "the 250 ms in which the worst wake-up was seen");
  CHECK(why->coarse == Window().counts);
  CHECK(why->trace_path.empty());  // there is no trace to save

  auto e2 = AcceptanceExplainer::Start(none, Acceptance(profile::ExplainWhen::kOnBreach));
  auto skip = e2->Finish(ExampleVerdict(), std::nullopt, "");
  REQUIRE(skip);
  CHECK(skip->status == "skip");
  CHECK_THAT(skip->reason, Catch::Contains("no interrupt counts were kept"));
}

TEST_CASE("acceptance why: the trace goes beside the JSON verdict, else the first file", "[cli][why]") {
  CHECK(TracePathBeside({{"out/v.md", "md"}, {"out/v.json", "json"}}) == "out/v.trace.txt");
  CHECK(TracePathBeside({{"-", "json"}, {"r/report.xml", "junit"}}) == "r/report.trace.txt");
  CHECK(TracePathBeside({{"-", "json"}, {"", "md"}}).empty());
}
