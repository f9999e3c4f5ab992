#include "report/format.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("short durations keep three significant digits and pick their unit", "[report]") {
  CHECK(FormatNsShort(0) == "0 ns");
  CHECK(FormatNsShort(85) == "85 ns");
  CHECK(FormatNsShort(999) == "999 ns");
  CHECK(FormatNsShort(1234) == "1.23 µs");
  CHECK(FormatNsShort(56789) == "56.8 µs");
  CHECK(FormatNsShort(456789) == "457 µs");
  CHECK(FormatNsShort(999960) == "1.00 ms");  // rounding carries into the next unit
  CHECK(FormatNsShort(2500000) == "2.50 ms");
  CHECK(FormatNsShort(104000000) == "104 ms");
  CHECK(FormatNsShort(3000000000) == "3.00 s");
  CHECK(FormatNsShort(-1500) == "-1.50 µs");
}

TEST_CASE("a verdict's first line counts its criteria in words, one criterion in the singular", "[report]") {
  CHECK(rtagent::CriteriaOutcome(0, 15) == "all 15 criteria hold");
  CHECK(rtagent::CriteriaOutcome(4, 15) == "4 of 15 criteria failed");
  CHECK(rtagent::CriteriaOutcome(0, 1) == "the 1 criterion holds");
  CHECK(rtagent::CriteriaOutcome(1, 1) == "the 1 criterion failed");
  CHECK(rtagent::CriteriaOutcome(0, 1200) == "all 1,200 criteria hold");
}
