// The cpuset hierarchy on v1, v2 and hybrid layouts, the file twin of the cgroup backend and
// the "cgroup" actuator's keys, on copies of the fixture trees.
#include "tune/cgroup_backend.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

}  // namespace

TEST_CASE("the cpuset hierarchy is found on v2, v1 and hybrid layouts", "[partitions]") {
  {
    TempTree tree(kArm64);
    FsRoot root(tree.dir());
    auto h = FindCpusetHierarchy(root);
    REQUIRE(h.ok());
    CHECK(h->version == 2);
    CHECK(h->mount == "/sys/fs/cgroup");
    CHECK(h->CgroupPath("/rt") == "sys/fs/cgroup/rt");
    CHECK(h->Cpuset("cpus.partition") == "cpuset.cpus.partition");
  }
  {
    TempTree tree(kX86);
    FsRoot root(tree.dir());
    auto h = FindCpusetHierarchy(root);
    REQUIRE(h.ok());
    CHECK(h->version == 1);
    CHECK(h->mount == "/sys/fs/cgroup/cpuset");
    CHECK(h->CgroupPath("/") == "sys/fs/cgroup/cpuset");
  }
  {
    // This project's build host: cgroup2 at /sys/fs/cgroup/unified without cpuset, cpuset on v1.
    TempTree tree;
    tree.Put("proc/mounts",
             "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset,noprefix 0 0\n"
             "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n");
    tree.Put("sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
    FsRoot root(tree.dir());
    auto h = FindCpusetHierarchy(root);
    REQUIRE(h.ok());
    CHECK(h->version == 1);
    CHECK(h->mount == "/sys/fs/cgroup/cpuset");
    CHECK(h->Cpuset("cpus") == "cpus");  // mounted with noprefix
  }
  {
    TempTree tree;
    tree.Put("proc/mounts", "proc /proc proc rw 0 0\n");
    FsRoot root(tree.dir());
    CHECK(FindCpusetHierarchy(root).error().err == ENOENT);
  }
}

TEST_CASE("the file twin makes and removes a v2 cgroup as the kernel shows it", "[partitions]") {
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

TEST_CASE("the file twin keeps v1 membership in cgroup.procs and tasks", "[partitions]") {
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

TEST_CASE("the twin follows proc/PID/cgroup when the fixture has it", "[partitions]") {
  TempTree tree(kArm64);
  tree.Put("proc/612/cgroup", "0::/system.slice/sshd.service\n");
  FaultRoot root(tree.dir());
  FileCgroupBackend be(root, &root, FindCpusetHierarchy(root).value());
  CHECK(be.CgroupOf(612).value() == "/system.slice/sshd.service");
  REQUIRE(be.Move(612, "/rt").ok());
  CHECK(tree.Get("proc/612/cgroup") == "0::/rt\n");
  CHECK(tree.Get("sys/fs/cgroup/rt/cgroup.procs") == "612\n1200\n");
}

TEST_CASE("the cgroup actuator: directory, file, controller and process keys", "[partitions]") {
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

  // No cpuset hierarchy at all: every key says so.
  TempTree bare;
  bare.Put("proc/mounts", "proc /proc proc rw 0 0\n");
  FaultRoot bare_root(bare.dir());
  CgroupActuator none(bare_root, DefaultCgroupFactory());
  CHECK(none.Read(CgroupDirKey("/rt")).error().err == ENOENT);
}
