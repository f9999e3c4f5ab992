#include "latency/measuring_cgroup.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"

using namespace rtagent;

namespace {

// A cgroup v2 tree as the kernel shows it after `apply` made an isolated partition /rt on
// CPUs 2-3 of a 4-CPU machine: the top keeps 0-1; the process reading it runs in
// /system.slice/rtagent.service, where the cpuset controller is not enabled.
void PartitionedTree(const TempTree& t, const std::string& own = "/system.slice/rtagent.service") {
  t.Put("proc/mounts", "sysfs /sys sysfs rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n");
  t.Put("proc/self/cgroup", "0::" + own + "\n");
  t.Put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory\n");
  t.Put("sys/fs/cgroup/cpuset.cpus.effective", "0-1\n");
  t.Put("sys/fs/cgroup/system.slice/cgroup.procs", "");
  t.Put("sys/fs/cgroup/rt/cpuset.cpus", "2-3\n");
  t.Put("sys/fs/cgroup/rt/cpuset.cpus.effective", "2-3\n");
  t.Put("sys/fs/cgroup/rt/cpuset.cpus.partition", "isolated\n");
}

}  // namespace

TEST_CASE("measuring cgroup: the isolated partition that holds the measured CPUs", "[latency]") {
  TempTree t;
  PartitionedTree(t);
  FsRoot root(t.dir());
  auto m = FindMeasuringCgroup(root, CpuSet::Range(2, 3));
  REQUIRE(m);
  REQUIRE(m->has_value());
  CHECK((*m)->cgroup == "/rt");
  CHECK((*m)->dir == "sys/fs/cgroup/rt");
  CHECK_THAT((*m)->reason, Catch::Contains("isolated partition /rt") && Catch::Contains("/system.slice/rtagent.service") &&
                               Catch::Contains("CPUs 0-1"));
  // One CPU of it is enough to need it.
  auto one = FindMeasuringCgroup(root, CpuSet::Of({3}));
  REQUIRE(one);
  REQUIRE(one->has_value());
  CHECK((*one)->cgroup == "/rt");
}

TEST_CASE("measuring cgroup: nothing to join where the process may already run", "[latency]") {
  TempTree t;
  SECTION("the measured CPUs are the housekeeping ones its cgroup keeps") {
    PartitionedTree(t);
    FsRoot root(t.dir());
    auto m = FindMeasuringCgroup(root, CpuSet::Range(0, 1));
    REQUIRE(m);
    CHECK_FALSE(m->has_value());
  }
  SECTION("the process already runs inside the partition") {
    PartitionedTree(t, "/rt");
    FsRoot root(t.dir());
    auto m = FindMeasuringCgroup(root, CpuSet::Range(2, 3));
    REQUIRE(m);
    CHECK_FALSE(m->has_value());
  }
  SECTION("no cgroup v2 hierarchy (a v1 cpuset: its root holds every CPU)") {
    t.Put("proc/mounts", "cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\n");
    FsRoot root(t.dir());
    auto m = FindMeasuringCgroup(root, CpuSet::Range(2, 3));
    REQUIRE(m);
    CHECK_FALSE(m->has_value());
  }
  SECTION("a v2 hierarchy without the cpuset controller") {
    t.Put("proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
    t.Put("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
    FsRoot root(t.dir());
    auto m = FindMeasuringCgroup(root, CpuSet::Range(2, 3));
    REQUIRE(m);
    CHECK_FALSE(m->has_value());
  }
}

TEST_CASE("measuring cgroup: the deepest partition that holds every measured CPU", "[latency]") {
  TempTree t;
  PartitionedTree(t);
  t.Put("sys/fs/cgroup/rt/cgroup.subtree_control", "cpuset\n");
  t.Put("sys/fs/cgroup/rt/cpuset.cpus.effective", "2\n");
  t.Put("sys/fs/cgroup/rt/loop/cpuset.cpus", "3\n");
  t.Put("sys/fs/cgroup/rt/loop/cpuset.cpus.effective", "3\n");
  t.Put("sys/fs/cgroup/rt/loop/cpuset.cpus.partition", "isolated\n");
  // A member cgroup that shows CPU 3 is not a place of its own: its CPUs are lent.
  t.Put("sys/fs/cgroup/rt/loop/app/cpuset.cpus.effective", "3\n");
  t.Put("sys/fs/cgroup/rt/loop/app/cpuset.cpus.partition", "member\n");
  FsRoot root(t.dir());
  auto m = FindMeasuringCgroup(root, CpuSet::Of({3}));
  REQUIRE(m);
  REQUIRE(m->has_value());
  CHECK((*m)->cgroup == "/rt/loop");
  // An invalid partition holds nothing.
  t.Put("sys/fs/cgroup/rt/loop/cpuset.cpus.partition", "isolated invalid (Cpu list in cpuset.cpus not exclusive)\n");
  auto invalid = FindMeasuringCgroup(root, CpuSet::Of({3}));
  REQUIRE_FALSE(invalid);
  CHECK_THAT(invalid.error().message, Catch::Contains("not all in one cgroup v2 cpuset partition"));
}

TEST_CASE("measuring cgroup: CPUs spread over two partitions are refused, naming both", "[latency]") {
  TempTree t;
  PartitionedTree(t);
  FsRoot root(t.dir());
  auto m = FindMeasuringCgroup(root, CpuSet::Range(1, 2));
  REQUIRE_FALSE(m);
  CHECK(m.error().err == EINVAL);
  CHECK_THAT(m.error().message, Catch::Contains("CPUs 1-2") && Catch::Contains("/ (0-1)") &&
                                    Catch::Contains("/rt (2-3)") && Catch::Contains("acceptance.cpus"));
}

TEST_CASE("joining the partition that holds a CPU: the benchmark's way in", "[latency]") {
  TempTree t;
  PartitionedTree(t);
  SECTION("CPU 2 of the isolated partition: the process moves into /rt, its CPUs come back") {
    t.Put("sys/fs/cgroup/rt/cgroup.procs", "");
    FsRoot root(t.dir());
    auto m = JoinPartitionHolding(root, CpuSet::Of({2}));
    REQUIRE(m);
    REQUIRE(m->has_value());
    CHECK((*m)->cgroup == "/rt");
    CHECK((*m)->cpus.ToList() == "2-3");
    CHECK(t.Get("sys/fs/cgroup/rt/cgroup.procs") == "0\n");  // a fixture file keeps what was written, as a line
  }
  SECTION("a housekeeping CPU: nothing is joined, nothing written") {
    t.Put("sys/fs/cgroup/rt/cgroup.procs", "");
    FsRoot root(t.dir());
    auto m = JoinPartitionHolding(root, CpuSet::Of({1}));
    REQUIRE(m);
    CHECK_FALSE(m->has_value());
    CHECK(t.Get("sys/fs/cgroup/rt/cgroup.procs").empty());
  }
  SECTION("a move the kernel refuses is the error, naming the partition and the CPU") {
    FsRoot root(t.dir());  // no cgroup.procs in /rt: the write fails
    auto m = JoinPartitionHolding(root, CpuSet::Of({2}));
    REQUIRE_FALSE(m);
    CHECK(m.error().err == ENOENT);
    CHECK_THAT(m.error().message, Catch::StartsWith("cannot move this process into cgroup /rt, the partition that holds CPUs 2: "));
  }
  SECTION("CPUs of two cgroups: FindMeasuringCgroup's refusal, nothing written") {
    t.Put("sys/fs/cgroup/rt/cgroup.procs", "");
    FsRoot root(t.dir());
    auto m = JoinPartitionHolding(root, CpuSet::Range(1, 2));
    REQUIRE_FALSE(m);
    CHECK_THAT(m.error().message, Catch::Contains("not all in one cgroup v2 cpuset partition"));
    CHECK(t.Get("sys/fs/cgroup/rt/cgroup.procs").empty());
  }
}
