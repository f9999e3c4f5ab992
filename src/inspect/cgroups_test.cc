#include "inspect/cgroups.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("mounts: fields, options and octal escapes", "[inspect]") {
  auto m = ParseMounts(
      "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
      "/dev/sdb1 /media/my\\040disk ext4 rw 0 0\n"
      "short line\n");
  REQUIRE(m.size() == 3);
  CHECK(m[0].fstype == "cgroup");
  CHECK(m[0].HasOption("cpuset"));
  CHECK(m[2].target == "/media/my disk");
  CHECK(CgroupV2Mount(m) == "/sys/fs/cgroup/unified");
  CHECK_FALSE(CgroupV2Mount({}).has_value());
}

TEST_CASE("partition values, valid and invalid", "[inspect]") {
  auto ok = ParsePartition("isolated\n");
  CHECK(ok.type == "isolated");
  CHECK(ok.valid);
  auto bad = ParsePartition("isolated invalid (Cpu list in cpuset.cpus not exclusive)\n");
  CHECK(bad.type == "isolated");
  CHECK_FALSE(bad.valid);
  CHECK(bad.reason == "Cpu list in cpuset.cpus not exclusive");
  CHECK(ParsePartition("member").type == "member");
  CHECK(ParsePartition("root invalid").reason.empty());
}
