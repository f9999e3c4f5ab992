// The cgroup backend's file twin on copies of the fixture trees: a cgroup made and removed as
// the kernel shows it, v1 membership, proc/PID/cgroup.
#include "tune/file_cgroup_backend.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/tree_test_support.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

}  // namespace

TEST_CASE("the file twin makes and removes a v2 cgroup as the kernel shows it", "[tune][partitions]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  FileCgroupBackend be(root, &root, FindCpusetHierarchy(root).value());
  CHECK(be.Exists("/rt"));
  CHECK_FALSE(be.Exists("/ctl"));
  REQUIRE(be.Create("/ctl").ok());
  CHECK(be.Get("/ctl", "cpuset.cpus.partition").value() == "member");
  CHECK(be.Get("/ctl", "cpuset.cpus").value().empty());
  CHECK(be.Get("/ctl", "cgroup.controllers").value() == "cpuset cpu io memory pids");
  CHECK(be.Create("/ctl").error().err == EEXIST);
  CHECK(be.Create("/nope/ctl").error().err == ENOENT);

  REQUIRE(be.Set("/ctl", "cpuset.cpus", "2-3").ok());
  CHECK(tree.Get("sys/fs/cgroup/ctl/cpuset.cpus") == "2-3\n");
  CHECK(be.Set("/ctl", "cpuset.cpus.partition", "exclusive").error().err == EINVAL);
  CHECK(be.Set("/ctl", "cpuset.cpus", "two").error().err == EINVAL);
  CHECK(be.Set("/ctl", "cpuset.nonsense", "1").error().err == ENOENT);

  // sshd moves in and back; the file it came from is as it was.
  CHECK(be.CgroupOf(612).value() == "/system.slice/sshd.service");
  REQUIRE(be.Move(612, "/ctl").ok());
  CHECK(be.CgroupOf(612).value() == "/ctl");
  CHECK(tree.Get("sys/fs/cgroup/system.slice/sshd.service/cgroup.procs").empty());
  CHECK(be.CgroupOf(99999).error().err == ESRCH);
  CHECK(be.Move(99999, "/ctl").error().err == ESRCH);

  // Removing moves what is left to the parent (the top lists nobody in this fixture).
  REQUIRE(be.Remove("/ctl").ok());
  CHECK_FALSE(be.Exists("/ctl"));
  CHECK(be.CgroupOf(612).value() == "/");
  CHECK(be.Remove("/").error().err == EBUSY);
  CHECK(be.Remove("/ctl").error().err == ENOENT);
  REQUIRE(be.Create("/a").ok());
  REQUIRE(be.Create("/a/b").ok());
  CHECK(be.Remove("/a").error().err == EBUSY);  // rmdir of a cgroup with children

  // The enable word goes in the kernel's order, and comes out again.
  REQUIRE(be.Set("/", "cgroup.subtree_control", "-cpuset").ok());
  CHECK(tree.Get("sys/fs/cgroup/cgroup.subtree_control") == "cpu io memory pids\n");
  REQUIRE(be.Set("/", "cgroup.subtree_control", "+cpuset").ok());
  CHECK(tree.Get("sys/fs/cgroup/cgroup.subtree_control") == "cpuset cpu io memory pids\n");
  CHECK(be.Set("/", "cgroup.subtree_control", "+bogus").error().err == ENOENT);

  // Plan never writes.
  FileCgroupBackend plan_only(root, nullptr, FindCpusetHierarchy(root).value());
  CHECK(plan_only.Create("/x").error().err == EROFS);
  CHECK(plan_only.Set("/rt", "cpuset.cpus", "4").error().err == EROFS);
}

TEST_CASE("the file twin keeps v1 membership in cgroup.procs and tasks", "[tune][partitions]") {
  TempTree tree(kX86);
  FaultRoot root(tree.dir());
  FileCgroupBackend be(root, &root, FindCpusetHierarchy(root).value());
  REQUIRE(be.Create("/rt").ok());
  CHECK(be.Get("/rt", "cpuset.cpu_exclusive").value() == "0");
  CHECK(be.Get("/rt", "cpuset.sched_load_balance").value() == "1");
  // cpusets.rst: no task may join a cpuset without CPUs and memory nodes.
  CHECK(be.Move(640, "/rt").error().err == ENOSPC);
  REQUIRE(be.Set("/rt", "cpuset.cpus", "1-3").ok());
  REQUIRE(be.Set("/rt", "cpuset.mems", "0").ok());
  CHECK(be.Set("/rt", "cpuset.cpu_exclusive", "2").error().err == EINVAL);
  REQUIRE(be.Move(640, "/rt").ok());
  CHECK(tree.Get("sys/fs/cgroup/cpuset/rt/cgroup.procs") == "640\n");
  CHECK(tree.Get("sys/fs/cgroup/cpuset/rt/tasks") == "640\n642\n643\n");
  CHECK(be.CgroupOf(640).value() == "/rt");
  REQUIRE(be.Remove("/rt").ok());
  CHECK(be.CgroupOf(640).value() == "/");
  CHECK(tree.Get("sys/fs/cgroup/cpuset/tasks") == "1\n");  // the top stays as the fixture wrote it
}

TEST_CASE("the twin follows proc/PID/cgroup when the fixture has it", "[tune][partitions]") {
  TempTree tree(kArm64);
  tree.Put("proc/612/cgroup", "0::/system.slice/sshd.service\n");
  FaultRoot root(tree.dir());
  FileCgroupBackend be(root, &root, FindCpusetHierarchy(root).value());
  CHECK(be.CgroupOf(612).value() == "/system.slice/sshd.service");
  REQUIRE(be.Move(612, "/rt").ok());
  CHECK(tree.Get("proc/612/cgroup") == "0::/rt\n");
  CHECK(tree.Get("sys/fs/cgroup/rt/cgroup.procs") == "612\n1200\n");
}

TEST_CASE("write faults: a cgroup whose create fails at one of its files is taken back whole, as mkdir does",
          "[tune][partitions]") {
  // Found by the write-fault sweep (write_faults_test.cc): on the v1 fixture, a create that
  // failed at its third file left the directory and two files, so a rolled-back apply left a
  // cgroup the tree never had.
  TempTree tree(kX86);
  const auto before = rtagent::test::SnapshotTree(tree.dir(), true);
  for (size_t k = 1; k <= 8; ++k) {
    INFO("write " << k << " of the create fails");
    FaultRoot root(tree.dir());
    root.FailNthWrite(k, ENOSPC);
    FileCgroupBackend be(root, &root, FindCpusetHierarchy(root).value());
    auto made = be.Create("/rt");
    REQUIRE_FALSE(made.ok());
    CHECK(made.error().err == ENOSPC);
    CHECK_FALSE(be.Exists("/rt"));
    CHECK(rtagent::test::SnapshotTree(tree.dir(), true) == before);
  }
  FaultRoot root(tree.dir());
  FileCgroupBackend be(root, &root, FindCpusetHierarchy(root).value());
  REQUIRE(be.Create("/rt").ok());
  CHECK(root.calls().size() == 8);  // the v1 files: procs, tasks, 4 cpuset lists, exclusive, balance
}
