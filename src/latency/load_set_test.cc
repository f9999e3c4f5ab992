#include "latency/load_set.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>

#include "base/fault_root.h"
#include "latency/load_test_util.h"

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<Load> SmallCache(const SysRoot& root) {
  BuiltinLoadOptions o;
  o.cache_buffer_bytes = 4 << 20;
  o.memory_limit_bytes = 8 << 20;
  auto load = MakeBuiltinLoad("cache", o, root);
  REQUIRE(load.ok());
  return std::move(*load);
}

}  // namespace

TEST_CASE("LoadSet refuses to put loads on measured CPUs or on a fixture root", "[latency][load]") {
  FsRoot live("/");
  LoadSet set(live);
  set.Add(SmallCache(live));
  auto overlap = set.Start(CpuSet::Of({0, 1}), CpuSet::Of({1}));
  REQUIRE_FALSE(overlap.ok());
  CHECK_THAT(overlap.error().message, Catch::Contains("include measured CPUs 1"));
  CHECK_FALSE(set.Start(CpuSet(), CpuSet::Of({1})).ok());
  CHECK_FALSE(set.Running());

  LoadSet placed(live);
  placed.Add(SmallCache(live), CpuSet::Of({1}));
  auto onto = placed.Start(CpuSet::Of({0}), CpuSet::Of({1}));
  REQUIRE_FALSE(onto.ok());
  CHECK_THAT(onto.error().message, Catch::Contains("load 'cache' is placed on measured CPUs 1"));

  TempTree t;
  FsRoot fixture(t.dir());
  LoadSet offline(fixture);
  offline.Add(SmallCache(fixture));
  auto refused = offline.Start(CpuSet::Of({0}), CpuSet());
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("live system"));
}

TEST_CASE("LoadSet runs several loads and stops them all, even on an exception", "[latency][load]") {
  FsRoot live("/");
  std::vector<int> pids;
  try {
    LoadSet set(live, 50ms);
    set.Add(SmallCache(live));
    BuiltinLoadOptions o;
    o.messaging_fds = 2;
    auto messaging = MakeBuiltinLoad("messaging", o, live);
    REQUIRE(messaging.ok());
    set.Add(std::move(*messaging));
    REQUIRE(set.Start(CpuSet::Of({0}), CpuSet()).ok());
    CHECK(set.Running());
    std::this_thread::sleep_for(200ms);
    for (const LoadReport& r : set.Reports()) {
      CHECK(r.placement.samples > 0);
      CHECK(r.ops > 0);  // live figures while running
    }
    for (int pid : load_test::MyChildren()) {
      auto tree = load_test::TreePids(pid);
      pids.insert(pids.end(), tree.begin(), tree.end());
    }
    throw std::runtime_error("the run failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(pids.size() >= 2 + 1 + 4);  // two supervisors, a cache worker, 2 senders + 2 receivers
  CHECK(load_test::Survivors(pids).empty());
}

TEST_CASE("LoadSet stops the loads it started when a later one fails to start", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  t.Put("gone.sh", "#!/bin/sh\nexec sleep 30\n");
  std::string tool = t.dir() + "/gone.sh";
  REQUIRE(::chmod(tool.c_str(), 0755) == 0);
  ExternalLoadSpec s;
  s.argv = {tool};
  s.log_path = t.dir() + "/gone.log";
  auto external = MakeExternalLoad(s, live);
  REQUIRE(external.ok());
  REQUIRE(::unlink(tool.c_str()) == 0);

  std::vector<int> before = load_test::MyChildren();
  LoadSet set(live, 50ms);
  set.Add(SmallCache(live));
  set.Add(std::move(*external));
  auto started = set.Start(CpuSet::Of({0}), CpuSet());
  REQUIRE_FALSE(started.ok());
  CHECK_THAT(started.error().message, Catch::Contains("gone.sh"));
  CHECK_FALSE(set.Running());
  CHECK(load_test::MyChildren() == before);
}

TEST_CASE("loads die with an agent that crashes without stopping them", "[latency][load]") {
  // An "agent" child starts a load and _exits without Stop(). PR_SET_PDEATHSIG must take
  // the load down. We are the subreaper for the test's length, so the orphaned processes
  // come to us to be reaped (this machine's PID 1 never reaps).
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  struct Unreaper {
    ~Unreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } unreaper;
  int to_test[2], to_agent[2];
  REQUIRE(::pipe(to_test) == 0);
  REQUIRE(::pipe(to_agent) == 0);
  pid_t agent = ::fork();
  REQUIRE(agent >= 0);
  if (agent == 0) {
    FsRoot live("/");
    auto load = MakeBuiltinLoad("cache", {}, live);
    int root = 0;
    if (load && (*load)->Start(CpuSet::Of({0}))) root = (*load)->RootPid();
    (void)!::write(to_test[1], &root, sizeof root);
    char go;
    (void)!::read(to_agent[0], &go, 1);
    ::_exit(0);  // a crash: no destructor runs
  }
  int root = 0;
  REQUIRE(::read(to_test[0], &root, sizeof root) == sizeof root);
  REQUIRE(root > 0);
  std::vector<int> pids = load_test::TreePids(root);
  CHECK(pids.size() >= 2);
  REQUIRE(::write(to_agent[1], "x", 1) == 1);
  REQUIRE(::waitpid(agent, nullptr, 0) == agent);
  for (int fd : {to_test[0], to_test[1], to_agent[0], to_agent[1]}) ::close(fd);

  // Reap the load's processes as they die; give them two seconds.
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (!load_test::Survivors(pids).empty() && std::chrono::steady_clock::now() < deadline) {
    for (int pid : pids) ::waitpid(pid, nullptr, WNOHANG);
    std::this_thread::sleep_for(10ms);
  }
  CHECK(load_test::Survivors(pids).empty());
}

TEST_CASE("LoadSet runs a load on its own CPUs when the profile places it", "[latency][load]") {
  if (std::thread::hardware_concurrency() < 2) {
    WARN("skipped: needs 2 CPUs");
    return;
  }
  FsRoot live("/");
  LoadSet set(live, 50ms);
  set.Add(SmallCache(live), CpuSet::Of({1}));
  set.Add(SmallCache(live));
  REQUIRE(set.Start(CpuSet::Of({0}), CpuSet()).ok());
  std::this_thread::sleep_for(200ms);
  set.Stop();
  auto reports = set.Reports();
  CHECK(reports.at(0).PlacementSummary() == "ran on 1 (asked 1)");
  CHECK(reports.at(1).PlacementSummary() == "ran on 0 (asked 0)");
  CHECK(set.Problems().empty());
}

TEST_CASE("a load asked to run on a CPU the machine lacks fails to start, naming it", "[latency][load]") {
  FsRoot live("/");
  auto load = SmallCache(live);
  std::vector<int> before = load_test::MyChildren();
  auto started = load->Start(CpuSet::Of({1000}));
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().err == EINVAL);
  CHECK_THAT(started.error().message, Catch::Contains("load 'cache': cannot pin to CPUs 1000"));
  CHECK_FALSE(load->Running());
  CHECK(load_test::MyChildren() == before);
}
