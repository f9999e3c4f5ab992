#include "profile/duration.h"

#include <catch2/catch.hpp>

using namespace rtagent::profile;
using namespace std::chrono_literals;

TEST_CASE("durations parse in every unit a profile uses", "[profile]") {
  CHECK(*ParseDuration("10s") == 10s);
  CHECK(*ParseDuration("500ms") == 500ms);
  CHECK(*ParseDuration("250us") == 250us);
  CHECK(*ParseDuration("250\xC2\xB5s") == 250us);
  CHECK(*ParseDuration("2h") == 2h);
  CHECK(*ParseDuration("1h30m") == 90min);
  CHECK(*ParseDuration("5min") == 5min);
  CHECK(*ParseDuration("1.5s") == 1500ms);
  CHECK(*ParseDuration(" 1d ") == 24h);
  CHECK(*ParseDuration("100ns") == 100ns);
}

TEST_CASE("durations without a unit, negative or unknown units are errors", "[profile]") {
  auto bare = ParseDuration("10");
  REQUIRE_FALSE(bare.ok());
  CHECK_THAT(bare.error().message, Catch::Contains("needs a unit"));
  auto neg = ParseDuration("-5s");
  REQUIRE_FALSE(neg.ok());
  CHECK_THAT(neg.error().message, Catch::Contains("negative"));
  auto unit = ParseDuration("5 parsecs");
  REQUIRE_FALSE(unit.ok());
  CHECK_THAT(unit.error().message, Catch::Contains("unknown unit"));
  CHECK_FALSE(ParseDuration("").ok());
  CHECK_FALSE(ParseDuration("s").ok());
}

TEST_CASE("durations print in the shortest exact form", "[profile]") {
  CHECK(FormatDuration(90s) == "1m30s");
  CHECK(FormatDuration(2h) == "2h");
  CHECK(FormatDuration(1500us) == "1500us");
  CHECK(FormatDuration(500ms) == "500ms");
  CHECK(FormatDuration(0s) == "0s");
}

TEST_CASE("a duration's slips are named: units out of order or twice, a space, a long word, a huge number",
          "[profile]") {
  auto message = [](std::string_view text) {
    auto d = ParseDuration(text);
    REQUIRE_FALSE(d.ok());
    return d.error().message;
  };
  CHECK_THAT(message("30s2h"), Catch::Contains("\"h\" after \"s\"; write each unit once, the largest first"));
  CHECK_THAT(message("1s1s"), Catch::Contains("\"s\" after \"s\""));
  CHECK_THAT(message("1m1min"), Catch::Contains("\"min\" after \"m\""));
  CHECK_THAT(message("10 ms"), Catch::Contains("a space between the number and its unit; write \"10ms\""));
  CHECK_THAT(message("10sec"), Catch::Contains("unknown unit \"sec\""));
  CHECK_THAT(message("10sec"), Catch::Contains("us or \xC2\xB5s"));
  // Numbers no long double holds, or that round to nothing, are refused or read, never thrown.
  CHECK_THAT(message(std::string(5000, '1') + "s"), Catch::Contains("too long"));
  CHECK(*ParseDuration("0." + std::string(6000, '0') + "1s") == 0ns);
  // What stays accepted: parts largest first, a space between parts, the Greek mu as well as the micro sign.
  CHECK(*ParseDuration("1h 30m") == 90min);
  CHECK(*ParseDuration("1s500ms") == 1500ms);
  CHECK(*ParseDuration("250\xCE\xBCs") == 250us);
}
