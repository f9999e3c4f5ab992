#include "base/time_text.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("IsoTime spells UTC seconds as ISO 8601", "[base][time]") {
  CHECK(IsoTime(0) == "1970-01-01T00:00:00Z");
  CHECK(IsoTime(1795996800) == "2026-11-30T00:00:00Z");
  CHECK(IsoTime(1796010000) == "2026-11-30T03:40:00Z");
  CHECK(IsoTimeBasic(1796010000) == "20261130T034000Z");
}

TEST_CASE("UnixNow is the clock's time, in the format's range", "[base][time]") {
  const int64_t now = UnixNow();
  CHECK(now > 1700000000);  // after this code was written
  CHECK(IsoTime(now).size() == 20);
}

TEST_CASE("ParseIsoTime reads what IsoTime writes and nothing else", "[base][time]") {
  CHECK(ParseIsoTime("2026-11-30T03:40:00Z") == 1796010000);
  CHECK(ParseIsoTime(IsoTime(0)) == 0);
  CHECK_FALSE(ParseIsoTime("2026-11-30T03:40:00+01:00"));
  CHECK_FALSE(ParseIsoTime("2026-11-30 03:40:00Z"));
  CHECK_FALSE(ParseIsoTime("2026-02-31T03:40:00Z"));
  CHECK_FALSE(ParseIsoTime("2026-11-30T03:40:00Zx"));
  CHECK_FALSE(ParseIsoTime(""));
}
