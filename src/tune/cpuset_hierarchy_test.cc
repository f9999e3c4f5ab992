// The cpuset hierarchy on v1, v2 and hybrid layouts, on copies of the fixture trees.
#include "tune/cpuset_hierarchy.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

}  // namespace

TEST_CASE("the cpuset hierarchy is found on v2, v1 and hybrid layouts", "[tune][partitions]") {
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
