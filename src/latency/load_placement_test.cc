#include "latency/load_placement.h"

#include <catch2/catch.hpp>
#include <thread>

#include "base/fault_root.h"
#include "base/skip_test_support.h"
#include "inspect/inspect_test_support.h"
#include "latency/load.h"
#include "latency/load_test_util.h"

using namespace rtagent;
using rtagent::testing::StatLine;

namespace {

void PutTask(const TempTree& t, int pid, int tid, const std::string& comm, int ppid, int pgrp, int cpu,
             const std::string& allowed) {
  std::string line = StatLine({.tid = tid, .comm = comm, .state = 'R', .ppid = ppid, .pgrp = pgrp, .cpu = cpu});
  if (pid == tid) t.Put("proc/" + std::to_string(pid) + "/stat", line);
  std::string task = "proc/" + std::to_string(pid) + "/task/" + std::to_string(tid);
  t.Put(task + "/stat", line);
  t.Put(task + "/status", "Name:\t" + comm + "\nCpus_allowed_list:\t" + allowed + "\n");
}

}  // namespace

TEST_CASE("PlacementTracker follows a load's tree and process groups in a fixture /proc", "[latency][load]") {
  TempTree t;
  PutTask(t, 100, 100, "supervisor", 1, 100, 0, "0");        // the load's root
  PutTask(t, 101, 101, "worker", 100, 101, 0, "0");          // its work group leader
  PutTask(t, 101, 105, "worker thread", 100, 101, 1, "0-1"); // a thread that ran on CPU 1
  PutTask(t, 102, 102, "orphan", 1, 101, 0, "0");            // re-parented away, still in the group
  PutTask(t, 300, 300, "bystander", 1, 300, 3, "0-3");       // not the load's
  FsRoot root(t.dir());
  PlacementTracker tracker(root);
  size_t id = tracker.Watch(100, {100, 101});
  tracker.Sample();
  tracker.Sample();
  LoadPlacement p = tracker.Placement(id);
  CHECK(p.seen == CpuSet::Of({0, 1}));
  CHECK(p.allowed == CpuSet::Of({0, 1}));
  CHECK(p.samples == 2);
  CHECK(p.tasks == 4);  // counted once each, however many rounds saw them

  LoadReport r;
  r.cpus_asked = CpuSet::Of({0});
  r.placement = p;
  r.placement.measured = CpuSet::Of({1});
  CHECK_FALSE(r.PlacementProven());
  CHECK(r.OnMeasured() == CpuSet::Of({1}));
  CHECK(r.PlacementSummary() == "ran on 0-1 (asked 0): LEAK onto measured CPU 1");

  // The load is gone: a later round finds nothing and changes nothing.
  TempTree empty;
  PutTask(empty, 1, 1, "init", 0, 1, 0, "0");
  FsRoot gone(empty.dir());
  PlacementTracker later(gone);
  size_t id2 = later.Watch(100, {100, 101});
  later.Sample();
  CHECK(later.Placement(id2).samples == 0);
}

TEST_CASE("LoadReport placement summary: proven, unsampled, outside its CPUs", "[latency][load]") {
  LoadReport r;
  r.cpus_asked = CpuSet::Of({0});
  r.placement.measured = CpuSet::Of({1});
  CHECK(r.PlacementSummary() == "not sampled (asked 0)");
  CHECK_FALSE(r.PlacementProven());
  r.placement.samples = 3;
  r.placement.seen = CpuSet::Of({0});
  CHECK(r.PlacementSummary() == "ran on 0 (asked 0)");
  CHECK(r.PlacementProven());
  r.placement.seen = CpuSet::Of({0, 2, 3});
  CHECK(r.PlacementSummary() == "ran on 0,2-3 (asked 0): ran outside its CPUs on CPUs 2-3");
  CHECK_FALSE(r.PlacementProven());
}

TEST_CASE("placement flags a load pinned onto a measured CPU", "[latency][load]") {
  FsRoot live("/");
  if (std::thread::hardware_concurrency() < 2) {
    RTAGENT_SKIP("needs 2 CPUs, this machine has " << std::thread::hardware_concurrency());
  }
  BuiltinLoadOptions o;
  o.cache_buffer_bytes = 8 << 20;
  o.memory_limit_bytes = 16 << 20;
  auto load = MakeBuiltinLoad("cache", o, live);
  REQUIRE(load.ok());
  REQUIRE((*load)->Start(CpuSet::Of({1})).ok());
  PlacementTracker tracker(live);
  size_t id = tracker.Watch((*load)->RootPid(), {(*load)->RootPid(), (*load)->WorkGroup()});
  for (int i = 0; i < 5; ++i) {
    tracker.Sample();
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  std::vector<int> pids = load_test::TreePids((*load)->RootPid());
  (*load)->Stop();
  LoadReport r = (*load)->Report();
  r.placement = tracker.Placement(id);
  r.placement.measured = CpuSet::Of({1});
  CHECK(r.placement.seen == CpuSet::Of({1}));
  CHECK(r.placement.tasks >= 2);  // the supervisor and its worker
  CHECK_FALSE(r.PlacementProven());
  CHECK(r.PlacementSummary() == "ran on 1 (asked 1): LEAK onto measured CPU 1");
  CHECK(load_test::Survivors(pids).empty());
}
