#include "report/cases.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::testing;

TEST_CASE("cases: one line per criterion, a name a board farm accepts, the measurement or -", "[report]") {
  const std::string text = RenderCases(ExampleVerdict());
  INFO(text);
  CHECK_THAT(text, Catch::Contains("cpu2-max fail 1203 us\n"));
  CHECK_THAT(text, Catch::Contains("cpu3-max pass 7.8 us\n"));
  CHECK_THAT(text, Catch::Contains("cpu2-overflows fail 1 count\n"));
  CHECK_THAT(text, Catch::Contains("run-preflight-interrupts fail - -\n"));
  CHECK_THAT(text, Catch::Contains("run-placement-disk fail - -\n"));
  // Every line: four fields, a name of [a-z0-9.-], pass or fail.
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    std::istringstream f(line);
    std::string name, result, measurement, units, extra;
    f >> name >> result >> measurement >> units;
    CHECK_FALSE(f >> extra);
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") == std::string::npos);
    CHECK((result == "pass" || result == "fail"));
    CHECK_FALSE(units.empty());
  }
  CHECK(n == static_cast<int>(ExampleVerdict().criteria.size()));
}
