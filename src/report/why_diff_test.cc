// Two attributions compared cause by cause, and `rtagent diff` of verdicts with why sections.
#include <catch2/catch.hpp>

#include "report/diff.h"
#include "report/test_verdict.h"
#include "report/why_diff.h"

using namespace rtagent;
using rtagent::testing::ExampleVerdict;

namespace {

Cause Thread(const std::string& comm, int pid, int64_t ns) {
  Cause c;
  c.kind = "thread";
  c.comm = comm;
  c.pid = pid;
  c.name = comm + ":" + std::to_string(pid);
  c.policy = "RT";
  c.priority = 98;
  c.ns = ns;
  return c;
}

Cause Irq(int irq, int64_t ns) {
  Cause c;
  c.kind = "irq";
  c.irq = irq;
  c.name = "IRQ " + std::to_string(irq) + " (virtio0)";
  c.ns = ns;
  return c;
}

Attribution Of(std::vector<Cause> causes) {
  Attribution a;
  a.wakeup.cpu = 2;
  for (const Cause& c : causes) a.wakeup.latency_ns += c.ns;
  a.causes = std::move(causes);
  return a;
}

}  // namespace

TEST_CASE("why diff: a cause appears, grows, shrinks, stays or vanishes, a respawned thread is the same cause",
          "[report][why]") {
  const Attribution before = Of({Thread("noise-spin", 412, 1000000), Irq(25, 100000), Irq(11, 50000), Irq(4, 30000)});
  const Attribution after = Of({Thread("noise-spin", 977, 2000000), Irq(25, 20000), Irq(11, 52000), Irq(30, 10000)});
  const CauseDiff d = DiffCauses(before, after, DiffTolerance{});
  REQUIRE(d.causes.size() == 5);
  CHECK(d.causes[0].label == "noise-spin:977 RT 98");
  CHECK(d.causes[0].change == "grew");
  CHECK(d.causes[0].before_ns == 1000000);
  CHECK(d.causes[1].change == "shrank");   // IRQ 25: -80 µs
  CHECK(d.causes[2].change == "same");     // IRQ 11: +2 µs is within 5 µs
  CHECK(d.causes[3].change == "appeared");
  CHECK_FALSE(d.causes[3].before_ns);
  CHECK(d.causes[4].change == "vanished");
  CHECK(d.causes[4].label == "IRQ 4 (virtio0)");
  CHECK_FALSE(d.causes[4].after_ns);
  CHECK_THAT(RenderCauseDiffMarkdown(d), Catch::Contains("| noise-spin:977 RT 98 | 1000.0 | 84.7% | 2000.0 | 96.1% | **grew** |"));
  CHECK(CauseDiffJson(d)["causes"][4]["after_us"].is_null());
}

TEST_CASE("diff of two verdicts compares their why's causes, or says only one has them", "[report][why]") {
  Verdict before = ExampleVerdict(), after = ExampleVerdict();
  WhySection w;
  w.status = "explained";
  w.attribution = Of({Irq(25, 100000)});
  before.why = w;
  w.attribution = Of({Irq(25, 100000), Thread("noise-spin", 412, 900000)});
  after.why = w;
  VerdictDiff d = DiffVerdicts(before, after);
  REQUIRE(d.causes);
  REQUIRE(d.causes->causes.size() == 2);
  CHECK(d.causes->causes[0].change == "same");      // IRQ 25 in both
  CHECK(d.causes->causes[1].change == "appeared");  // the spinning thread
  CHECK_FALSE(d.regression);  // the criteria judge, not the causes
  CHECK_THAT(RenderDiffMarkdown(d), Catch::Contains("## Why: causes before and after"));
  CHECK_THAT(RenderDiffJson(d), Catch::Contains("\"change\": \"appeared\""));

  after.why->status = "skip";
  after.why->attribution.reset();
  VerdictDiff one = DiffVerdicts(before, after);
  CHECK_FALSE(one.causes);
  REQUIRE_FALSE(one.notes.empty());
  CHECK_THAT(one.notes.back(), Catch::StartsWith("only BEFORE says why its worst wake-up was late"));
}
