#include "base/cpuset.h"

#include <catch2/catch.hpp>

using rtagent::CpuSet;

static CpuSet List(const char* s, int nr = 0) {
  auto r = CpuSet::ParseList(s, nr);
  REQUIRE(r.ok());
  return *r;
}
static CpuSet Mask(const char* s) {
  auto r = CpuSet::ParseMask(s);
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("CPU lists parse in the kernel's forms", "[base][cpuset]") {
  CHECK(List("0-3,8").Cpus() == std::vector<int>{0, 1, 2, 3, 8});
  CHECK(List("5").Cpus() == std::vector<int>{5});
  CHECK(List("").Empty());
  CHECK(List("  2-3\n").ToList() == "2-3");
  CHECK(List("0-7:2").Cpus() == std::vector<int>{0, 2, 4, 6});           // util-linux stride
  CHECK(List("0-15:2/8").Cpus() == std::vector<int>{0, 1, 8, 9});        // kernel used/group
  CHECK(List("N", 8).Cpus() == std::vector<int>{7});
  CHECK(List("2-N", 4).ToList() == "2-3");
  CHECK(List("all", 4).ToList() == "0-3");
}

TEST_CASE("bad CPU lists are refused with the reason", "[base][cpuset]") {
  auto r = CpuSet::ParseList("3-1");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "invalid CPU list \"3-1\": range 3-1 goes backwards");
  // N stands for a number the author did not write: the message says which.
  auto n = CpuSet::ParseList("4-N", 4);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message ==
        "invalid CPU list \"4-N\": range 4-3 goes backwards (N is the last CPU, 3, on this system)");
  CHECK(CpuSet::ParseList("4-N", 8).ok());
  CHECK_FALSE(CpuSet::ParseList("0,,2").ok());
  CHECK_FALSE(CpuSet::ParseList("a-b").ok());
  CHECK_FALSE(CpuSet::ParseList("1-4x").ok());
  CHECK_FALSE(CpuSet::ParseList("N").ok());  // needs the CPU count
  CHECK_FALSE(CpuSet::ParseList("0-9:4/2").ok());
  CHECK_FALSE(CpuSet::ParseList("99999").ok());
  CHECK_FALSE(CpuSet::ParseMask("fg").ok());
}

TEST_CASE("masks parse with comma groups and beyond 64 CPUs", "[base][cpuset]") {
  CHECK(Mask("f").ToList() == "0-3");
  CHECK(Mask("0x3").ToList() == "0-1");
  CHECK(Mask("ffffffff,ffffffff").ToList() == "0-63");
  CHECK(Mask("00000001,00000000,00000000").ToList() == "64");
  CHECK(Mask("80000000,00000000,00000000,00000000").Cpus() == std::vector<int>{127});
  CHECK(Mask("0c").ToList() == "2-3");
}

TEST_CASE("masks print as the kernel prints them", "[base][cpuset]") {
  CHECK(List("0-3").ToMask(4) == "f");
  CHECK(List("0-63").ToMask(64) == "ffffffff,ffffffff");
  CHECK(List("0").ToMask(8) == "01");
  CHECK(List("64").ToMask(128) == "00000000,00000001,00000000,00000000");
  CHECK(List("2-3").ToMask(256).size() == 8 * 8 + 7);
  CHECK(CpuSet().ToMask() == "0");
}

TEST_CASE("CPU sets compare by meaning", "[base][cpuset]") {
  CHECK(List("0-3") == Mask("f"));
  CHECK(List("0,1,2,3") == List("0-3"));
  CHECK(List("0-3") != List("0-2"));
  CHECK(Mask("00000000,0000000f") == List("0-3"));  // leading zero groups do not matter
  CpuSet a = List("0-3"), b = List("2-5");
  CHECK(a.Intersect(b).ToList() == "2-3");
  CHECK(a.Union(b).ToList() == "0-5");
  CHECK(a.Minus(b).ToList() == "0-1");
  CHECK(List("1-2").IsSubsetOf(a));
  CHECK_FALSE(b.IsSubsetOf(a));
  CHECK(a.Intersects(b));
  CHECK(List("70-72,200").ToList() == "70-72,200");
  CHECK(List("70-72,200").Count() == 4);
  CHECK(List("70-72,200").Max() == 200);
  CpuSet c = List("64");
  c.Remove(64);
  CHECK(c.Empty());
  CHECK(c == CpuSet());
}

TEST_CASE("fuzz cpuset: a negative CPU number is refused, not walked from", "[base][cpuset]") {
  // fuzz/cpuset_fuzz.cc: from_chars took "-833333333" as a CPU, and the range up to 331 took
  // minutes to walk (libFuzzer's timeout).
  CHECK_FALSE(CpuSet::ParseList("-833333333-331").ok());
  CHECK_FALSE(CpuSet::ParseList("-1").ok());
  CHECK_FALSE(CpuSet::ParseList("0--3").ok());
  CHECK(CpuSet::ParseList("0-3").ok());
}

TEST_CASE("a CPU set in a sentence carries its noun", "[base][cpuset]") {
  CHECK(CpuSet().Named() == "no CPU");
  CHECK(CpuSet::ParseList("3")->Named() == "CPU 3");
  CHECK(CpuSet::ParseList("0-3,8")->Named() == "CPUs 0-3,8");
}
