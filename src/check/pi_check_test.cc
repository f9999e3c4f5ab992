#include <unistd.h>

#include <catch2/catch.hpp>

#include "check/check_test_support.h"
#include "base/skip_test_support.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;

TEST_CASE("pi: SKIP under a fixture tree, with the reason", "[check][pi]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "");
  auto results = b.Run("pi");
  REQUIRE(results.size() == 1);
  CHECK(results[0].id == "pi");
  CHECK(results[0].status == Status::kSkip);
  CHECK_THAT(results[0].summary, Catch::Contains("live kernel only"));
  CHECK(results[0].chapter == "Chapter 9 (Sharing data safely)");
}

TEST_CASE("pi: on the live kernel, inheritance holds (PASS, or WARN when a virtual machine blurs the deadline)",
          "[check][pi][host]") {
  if (::geteuid() != 0) {
    RTAGENT_SKIP("the experiment needs root (SCHED_FIFO)");
  }
  Bench b = LoadBench("/", "");
  auto results = b.Run("pi");
  REQUIRE(results.size() == 1);
  INFO(results[0].summary);
  CHECK(results[0].status != Status::kFail);
  CHECK(results[0].status != Status::kSkip);
  CHECK_THAT(results[0].measured, Catch::Contains("with inheritance"));
  CHECK_THAT(results[0].summary, Catch::Contains("tracefs"));  // the evidence, or why there is none
}
