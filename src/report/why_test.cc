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

TEST_CASE("fuzz verdict: an explain time past what ns can hold is refused, never cast", "[report][why]") {
  // The same class as the verdict fuzzer's 1e71 limit: a µs value read from a verdict's
  // explain section was multiplied by 1000 and cast to an integer (undefined behaviour when it
  // does not fit). It is refused as a mistyped field, naming why.
  auto doc = [](const std::string& latency_us, const std::string& cause_us) {
    return nlohmann::ordered_json::parse(R"({"wakeup": {"cpu": 2, "latency_us": )" + latency_us +
                                         R"(}, "causes": [{"kind": "irq", "name": "IRQ 4", "us": )" + cause_us + "}]}");
  };
  auto ok = ParseWhyJson(doc("2000.0004", "500"));
  REQUIRE(ok);
  CHECK(ok->wakeup.latency_ns == 2000000);
  CHECK(ok->causes.at(0).ns == 500000);
  for (const auto& [latency, cause] : {std::pair{"1.01111e+71", "500"}, {"2000", "-1e300"}, {"9223372036854775.9", "1"}}) {
    INFO(latency << " " << cause);
    auto r = ParseWhyJson(doc(latency, cause));
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("time out of range"));
  }
}
