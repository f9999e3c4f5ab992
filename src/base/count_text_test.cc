#include "base/count_text.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("counts: thousands separated, the noun in the singular for exactly one", "[base]") {
  CHECK(FormatCount(0) == "0");
  CHECK(FormatCount(999) == "999");
  CHECK(FormatCount(1000) == "1,000");
  CHECK(FormatCount(1234567) == "1,234,567");
  CHECK(FormatCount(18446744073709551615ULL) == "18,446,744,073,709,551,615");
  CHECK(CountOf(0, "file", "files") == "0 files");
  CHECK(CountOf(1, "file", "files") == "1 file");
  CHECK(CountOf(2, "file", "files") == "2 files");
  CHECK(CountOf(1000, "wake-up", "wake-ups") == "1,000 wake-ups");
}
