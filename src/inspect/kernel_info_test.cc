#include "inspect/kernel_info.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("kernel releases", "[inspect]") {
  auto v = ParseKernelRelease("6.12.43-rt12-rk3588");
  REQUIRE(v);
  CHECK(v->major == 6);
  CHECK(v->minor == 12);
  CHECK(v->patch == 43);
  CHECK(v->AtLeast(6, 12));
  CHECK_FALSE(v->AtLeast(6, 13));
  CHECK(ParseKernelRelease("6.1.0-37-amd64")->AtLeast(5, 15));
  CHECK_FALSE(ParseKernelRelease("6.1.0-37-amd64")->AtLeast(6, 12));
  CHECK(ParseKernelRelease("5.15")->minor == 15);
  CHECK_FALSE(ParseKernelRelease("rt-kernel").has_value());
}

TEST_CASE("the preemption model from uname -v", "[inspect]") {
  CHECK(ParsePreemptModel("#1 SMP PREEMPT_RT Fri Aug 22 10:11:04 UTC 2025") == "PREEMPT_RT");
  CHECK(ParsePreemptModel("#1 SMP PREEMPT RT Tue Jan 5 2019") == "PREEMPT_RT");  // old RT patches
  CHECK(ParsePreemptModel("#1 SMP PREEMPT_DYNAMIC Debian 6.1.140-1 (2025-05-22)") == "PREEMPT_DYNAMIC");
  CHECK(ParsePreemptModel("#1 SMP PREEMPT Tue Mar 3") == "PREEMPT");
  CHECK(ParsePreemptModel("#1 SMP PREEMPT_LAZY Tue Mar 3") == "PREEMPT_LAZY");
  CHECK(ParsePreemptModel("#1 SMP Debian 5.10.0") == "");
}

TEST_CASE("fuzz small_parsers: a release number past INT_MAX is no kernel version", "[inspect]") {
  // fuzz/small_parsers_fuzz.cc: UBSan's signed overflow in ParseKernelRelease.
  CHECK_FALSE(ParseKernelRelease("1500999999999999999999.1").has_value());
  REQUIRE(ParseKernelRelease("6.12.0-rt5").has_value());
  CHECK(ParseKernelRelease("6.12.0-rt5")->major == 6);
}
