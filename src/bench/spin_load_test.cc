#include "bench/spin_load.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/kernel_paths.h"

using namespace rtagent;
using namespace rtagent::bench;

namespace {

// Fields 39 (processor) and 41 (policy) of /proc/PID/stat.
std::pair<int, int> CpuAndPolicy(pid_t pid) {
  std::ifstream in("/" + kpath::ProcStat(pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::vector<std::string> f;
  for (std::string w; rest >> w;) f.push_back(w);
  // rest starts at field 3 (state): field N is f[N - 3].
  return {std::stoi(f.at(39 - 3)), std::stoi(f.at(41 - 3))};
}

CpuSet Online() {
  CpuSet all;
  for (unsigned c = 0; c < std::thread::hardware_concurrency(); ++c) all.Add(static_cast<int>(c));
  return all;
}

}  // namespace

TEST_CASE("the spin load puts one spinner per CPU, pinned and in its class, and reaps them all", "[bench]") {
  // SCHED_IDLE needs no privilege and takes nothing from anyone.
  const CpuSet cpus = Online();
  SpinLoad load;
  REQUIRE(load.Start(cpus, {SCHED_IDLE, 0}));
  const std::vector<pid_t> pids = load.Pids();
  REQUIRE(static_cast<int>(pids.size()) == cpus.Count());
  const std::vector<int> want = cpus.Cpus();
  for (size_t i = 0; i < pids.size(); ++i) {
    // The spinner is placed before it reports: its last CPU is its own and its class is set.
    auto [cpu, policy] = CpuAndPolicy(pids[i]);
    CHECK(cpu == want[i]);
    CHECK(policy == SCHED_IDLE);
  }
  CHECK_FALSE(load.Start(cpus, {SCHED_IDLE, 0}));  // already running
  load.Stop();
  CHECK(load.Pids().empty());
  for (pid_t pid : pids) CHECK(::kill(pid, 0) != 0);  // gone and reaped (no zombie answers kill 0 either)
  load.Stop();  // idempotent
}

TEST_CASE("a spinner class the kernel refuses stops the load with the CPU named, nothing left", "[bench]") {
  SpinLoad load;
  auto r = load.Start(CpuSet::Of({0}), {SCHED_FIFO, 100});
  REQUIRE_FALSE(r);
  CHECK(r.error().err == EINVAL);
  CHECK_THAT(r.error().message, Catch::Contains("the spinner for CPU 0 cannot run at SCHED_FIFO 100"));
  CHECK(load.Pids().empty());
  CHECK(::waitpid(-1, nullptr, WNOHANG) < 0);
}
