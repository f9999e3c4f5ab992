// The "cgroup" actuator's keys on a copy of the arm64 fixture.
#include "tune/cgroup_actuator.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/tree_test_support.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";

}  // namespace

TEST_CASE("the cgroup actuator: directory, file, controller and process keys", "[tune][partitions]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  CgroupActuator a(root, DefaultCgroupFactory());
  CHECK(a.Read(CgroupDirKey("/rt")).value() == "present");
  CHECK(a.Read(CgroupDirKey("/ctl")).value() == "absent");
  REQUIRE(a.Write(CgroupDirKey("/ctl"), "present").ok());
  REQUIRE(a.Write(CgroupDirKey("/ctl"), "present").ok());  // already there: nothing to do
  CHECK(a.Read(CgroupFileKey("/rt", "cpuset.cpus.partition")).value() == "isolated");
  CHECK(a.Read(CgroupControllerKey("/", "cpuset")).value() == "+cpuset");
  REQUIRE(a.Write(CgroupControllerKey("/", "io"), "-io").ok());
  CHECK(a.Read(CgroupControllerKey("/", "io")).value() == "-io");
  CHECK(a.Write(CgroupControllerKey("/", "io"), "+cpu").error().err == EINVAL);
  CHECK(a.Read(CgroupProcKey(1200)).value() == "/rt");
  CHECK(a.Write(CgroupDirKey("/ctl"), "maybe").error().err == EINVAL);
  REQUIRE(a.Write(CgroupDirKey("/ctl"), "absent").ok());
  CHECK(a.Read(CgroupDirKey("/ctl")).value() == "absent");
  CHECK(a.Read("dir:rt").error().err == EINVAL);
  CHECK(a.Read("cpuset.cpus").error().err == EINVAL);
  CHECK(a.Read("proc:x").error().err == EINVAL);
  // A key of a kind the actuator does not know (a hand-edited journal): named, and nothing done.
  const auto before = test::SnapshotTree(tree.dir(), true);
  auto read = a.Read("cpuset:/rt");
  auto write = a.Write("cpuset:/rt", "present");
  REQUIRE_FALSE(read.ok());
  REQUIRE_FALSE(write.ok());
  for (const Error& e : {read.error(), write.error()}) {
    CHECK(e.err == EINVAL);
    CHECK_THAT(e.message, Catch::Equals("not a cgroup key: \"cpuset:/rt\""));
  }
  CHECK(test::SnapshotTree(tree.dir(), true) == before);

  // No cpuset hierarchy at all: every key says so.
  TempTree bare;
  bare.Put("proc/mounts", "proc /proc proc rw 0 0\n");
  FaultRoot bare_root(bare.dir());
  CgroupActuator none(bare_root, DefaultCgroupFactory());
  CHECK(none.Read(CgroupDirKey("/rt")).error().err == ENOENT);
}
