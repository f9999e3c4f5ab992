// The why table and its JSON from a hand-made attribution.
#include <catch2/catch.hpp>

#include "report/why.h"

using namespace rtagent;

TEST_CASE("why: the table names each cause with its µs and share, the JSON carries the same", "[report][why]") {
  Attribution a;
  a.wakeup.cpu = 2;
  a.wakeup.latency_ns = 2000000;
  a.wakeup.pid = 88;
  a.wakeup.comm = "timerlat/2";
  a.wakeup.source = "timerlat";
  a.wakeup.irq_latency_ns = 12000;
  Cause spin;
  spin.kind = "thread";
  spin.name = "noise-spin:412";
  spin.ns = 1500000;
  spin.pid = 412;
  spin.comm = "noise-spin";
  spin.policy = "RT";
  spin.priority = 98;
  spin.detail = "a thread ranked above the woken one ran first";
  Cause irq;
  irq.kind = "irq";
  irq.name = "IRQ 4 (ttyS0)";
  irq.irq = 4;
  irq.ns = 500000;
  irq.detail = "an interrupt handler";
  a.causes = {spin, irq};
  a.events = "sched_switch, osnoise";
  a.notes = {"the kernel lost events"};

  const std::string text = RenderWhyText(a);
  CHECK_THAT(text, Catch::StartsWith("Why the wake-up on CPU 2 was 2000.0 µs late (timerlat, timerlat/2:88):\n"));
  // Largest first, as given: the spinning thread's row comes before the IRQ's.
  const size_t spin_at = text.find("noise-spin:412 RT 98");
  const size_t irq_at = text.find("IRQ 4 (ttyS0)");
  REQUIRE(spin_at != std::string::npos);
  REQUIRE(irq_at != std::string::npos);
  CHECK(spin_at < irq_at);
  CHECK_THAT(text, Catch::Contains("75.0%"));
  CHECK_THAT(text, Catch::Contains("25.0%"));
  CHECK_THAT(text, Catch::Contains("  events: sched_switch, osnoise\n  note: the kernel lost events\n"));

  nlohmann::json j = WhyJson(a);
  CHECK(j["wakeup"]["latency_us"] == 2000.0);
  CHECK(j["wakeup"]["irq_latency_us"] == 12.0);
  REQUIRE(j["causes"].size() == 2);
  CHECK(j["causes"][0]["name"] == "noise-spin:412");
  CHECK(j["causes"][0]["share_percent"] == 75.0);
  CHECK(j["causes"][0]["priority"] == 98);
  CHECK(j["causes"][1]["irq"] == 4);
  CHECK(j["causes"][1]["pid"].is_null());
  CHECK(j["notes"][0] == "the kernel lost events");
}
