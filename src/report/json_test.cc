#include "report/json.h"

#include <catch2/catch.hpp>
#include <tuple>
#include <vector>

#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::testing;

TEST_CASE("the verdict's JSON is complete and matches the expected file", "[report]") {
  const std::string json = RenderJson(ExampleVerdict());
  CheckExpected("verdict.json", json);
  CHECK_THAT(json, Catch::Contains("\"result\": \"FAIL\""));
  CHECK_THAT(json, Catch::Contains("\"code\": \"virtual_machine\""));
  // Sparse bins: only the non-empty ones.
  CHECK_THAT(json, Catch::Contains("[\n            40,\n            4\n          ]"));
}

TEST_CASE("a verdict survives JSON and back", "[report]") {
  const Verdict v = ExampleVerdict();
  auto back = ParseVerdictJson(RenderJson(v));
  REQUIRE(back);
  CHECK(RenderJson(*back) == RenderJson(v));
  REQUIRE(back->cpus.size() == 2);
  CHECK(back->cpus[0].cpu == 2);
  CHECK(back->cpus[0].histogram.overflows() == 1);
  CHECK(back->cpus[0].histogram.bins() == v.cpus[0].histogram.bins());
  CHECK(back->cpus[0].stats.Find(0.9999)->beyond_limit);
  CHECK(back->loads[1].cpus_ran == CpuSet::Of({0, 1, 2}));
  CHECK(back->config.pm_qos.holder == PmQosHolder::kSampler);
  CHECK_FALSE(back->pass);
}

TEST_CASE("a pre-flight check's status and hint survive JSON and back, and are left out when unknown", "[report]") {
  Verdict v = ExampleVerdict();
  v.preflight[1].status = "FAIL";
  v.preflight[1].hint = "interrupts.irq.24: move IRQ 24 to a housekeeping CPU";
  const std::string json = RenderJson(v);
  CHECK_THAT(json, Catch::Contains("\"status\": \"FAIL\""));
  CHECK_THAT(json, Catch::Contains("\"hint\": \"interrupts.irq.24: move IRQ 24 to a housekeeping CPU\""));
  auto back = ParseVerdictJson(json);
  REQUIRE(back);
  CHECK(back->preflight[1].status == "FAIL");
  CHECK(back->preflight[1].hint == v.preflight[1].hint);
  CHECK(back->preflight[0].status.empty());
  CHECK(back->preflight[0].hint.empty());
  CHECK(RenderJson(*back) == json);
}

TEST_CASE("bad verdict JSON is refused with the reason", "[report]") {
  CHECK(ParseVerdictJson("{nope").error().message ==
        "the verdict is not valid JSON: parse error at line 1, column 3: syntax error while parsing object key - "
        "invalid literal; last read: '{no'; expected string literal");
  CHECK(ParseVerdictJson("{}").error().message ==
        "no \"schema\" key; a verdict (accept --json) says \"schema\": \"rtagent-verdict/1\"");
  CHECK_THAT(ParseVerdictJson("[]").error().message, Catch::Contains("not a JSON object"));
  CHECK_THAT(ParseVerdictJson(R"({"schema": "other/1"})").error().message, Catch::Contains("schema"));

  std::string json = RenderJson(ExampleVerdict());
  std::string missing = json;
  missing.replace(missing.find("\"interrupted\""), 13, "\"interruptex\"");
  auto r = ParseVerdictJson(missing);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::StartsWith("key 'interrupted' not found"));

  std::string past = json;
  past.replace(past.find("\n            40,"), 16, "\n            400,");
  r = ParseVerdictJson(past);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("bin 400 is past the limit"));
}

TEST_CASE("a verdict whose histogram limit is out of range or whose minimum is above its maximum is refused, naming the CPU", "[report][json]") {
  const std::string json = RenderJson(ExampleVerdict());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = json;
    REQUIRE(t.find(from) != std::string::npos);
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const auto& [from, to, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"limit_us\": 100,", "\"limit_us\": 0,", "CPU 2: histogram.limit_us 0 is out of range (1 to 10000000 µs)"},
           {"\"limit_us\": 100,", "\"limit_us\": 10000001,", "CPU 2: histogram.limit_us 10000001 is out of range"},
           {"\"samples\": 1000,\n        \"min_ns\": 2100,\n        \"max_ns\": 1203000,\n        \"sum_ns\"",
            "\"samples\": 1000,\n        \"min_ns\": 2100,\n        \"max_ns\": 2000,\n        \"sum_ns\"",
            "CPU 2: histogram minimum 2100 ns is above its maximum 2000 ns"},
       }) {
    INFO(to);
    auto r = ParseVerdictJson(with(from, to));
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(says) && !Catch::Contains("Invalid argument"));
    CHECK(r.error().err == EINVAL);
  }
}

TEST_CASE("fuzz verdict: a float where an integer belongs is refused, never cast", "[report][json]") {
  // The verdict fuzzer's find: "histogram_limit_us": 4.4e69 was cast to an unsigned int
  // (undefined behaviour under UBSan). An integer field takes a JSON integer in range only.
  const std::string good = RenderJson(ExampleVerdict());
  const std::string key = "\"histogram_limit_us\": ";
  const size_t at = good.find(key);
  REQUIRE(at != std::string::npos);
  const size_t end = good.find_first_of(",\n", at + key.size());
  auto with = [&](const std::string& value) { return good.substr(0, at + key.size()) + value + good.substr(end); };
  REQUIRE(ParseVerdictJson(with("100")));
  for (const std::string bad : {"4.44444e+69", "100.5", "-1", "4294967296"}) {
    INFO(bad);
    auto r = ParseVerdictJson(with(bad));
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("integer"));
  }
}

TEST_CASE("fuzz verdict: a criterion limit past any integer is printed whole, never cast", "[report][json]") {
  // The verdict fuzzer's find (a 60 s run, 2026-12-03): a criterion's "limit": 1.01111e+71 in a
  // verdict read by `report` was cast to a 64-bit integer to see whether it was whole
  // (undefined behaviour under UBSan), and would have been printed cut at 63 characters.
  Verdict v = ExampleVerdict();
  REQUIRE_FALSE(v.criteria.empty());
  v.criteria.front().limit = 1.01111e71;
  const std::string text = v.criteria.front().LimitText();
  CHECK_THAT(text, Catch::StartsWith("≤ 10111"));
  CHECK(text.find('.') == std::string::npos);  // a whole number, shown without decimals
  CHECK(text.size() > 72);                     // all 72 digits, not cut
  v.criteria.front().limit = 2.5;
  CHECK_THAT(v.criteria.front().LimitText(), Catch::Contains("2.5"));
  // And the whole page renders from a verdict file that says so.
  auto back = ParseVerdictJson(RenderJson(v));
  REQUIRE(back);
}

TEST_CASE("the tuning in force survives JSON and back, and is left out when not recorded", "[report][json]") {
  Verdict v = ExampleVerdict();
  CHECK(RenderJson(v).find("tuning_in_force") == std::string::npos);
  TuningInForce t;
  t.source = "/run/rtagent/journal.json and /var/lib/rtagent/boot-journal.json";
  t.total = 3;
  t.changes = {{"irqs", "IRQ 24 affinity", "0-3", "0"}, {"sysctls", "kernel.timer_migration", "1", "0"}};
  v.tuning = t;
  const std::string json = RenderJson(v);
  CHECK_THAT(json, Catch::Contains("\"tuning_in_force\": {"));
  CHECK_THAT(json, Catch::Contains("\"total\": 3"));
  auto back = ParseVerdictJson(json);
  REQUIRE(back);
  REQUIRE(back->tuning);
  CHECK(*back->tuning == t);
  CHECK(RenderJson(*back) == json);

  // More listed than counted is a file that lies about itself.
  std::string bad = json;
  bad.replace(bad.find("\"total\": 3"), 10, "\"total\": 1");
  auto r = ParseVerdictJson(bad);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("tuning_in_force lists 2 changes but counts 1"));
}
