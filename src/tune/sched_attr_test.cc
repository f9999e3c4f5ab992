// The canonical text of a scheduling class and a thread's key.
#include "tune/sched_attr.h"

#include <catch2/catch.hpp>
#include <cerrno>

using namespace rtagent;

TEST_CASE("scheduling classes print and parse in one canonical form", "[tune][ranks]") {
  for (const char* text : {"fifo:80", "rr:1", "other:nice=0", "batch:nice=-5", "idle",
                           "deadline:runtime=300000,deadline=1000000,period=1000000",
                           "deadline:runtime=2000000,deadline=10000000,period=?"}) {
    auto a = ParseSched(text);
    REQUIRE(a.ok());
    CHECK(FormatSched(*a) == text);
  }
  CHECK(ParseSched("fifo:0").error().err == EINVAL);
  CHECK(ParseSched("fifo:100").error().err == EINVAL);
  CHECK(ParseSched("other:nice=20").error().err == EINVAL);
  CHECK(ParseSched("deadline:runtime=1").error().err == EINVAL);
  CHECK(ParseSched("realtime:5").error().err == EINVAL);
  // A misspelt deadline field is named, with the text it came in.
  auto typo = ParseSched("deadline:runtime=1,deadline=2,periode=3");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().err == EINVAL);
  CHECK_THAT(typo.error().message,
             Catch::Equals("scheduling class \"deadline:runtime=1,deadline=2,periode=3\": unknown field periode"));
  CHECK(ParseTaskKey("1200/1203")->tid == 1203);
  CHECK(ParseTaskKey("186")->pid == 186);
  CHECK_FALSE(ParseTaskKey("x/1").ok());
}
