// Helpers for the [load] tests: what processes a load left behind.
#pragma once

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <unordered_set>
#include <vector>

#include "base/sysroot.h"
#include "inspect/threads.h"

namespace rtagent::load_test {

/// `root_pid` and every process descending from it, now.
inline std::vector<int> TreePids(int root_pid) {
  FsRoot live("/");
  std::vector<TaskView> procs = ListProcesses(live);
  std::vector<int> out{root_pid};
  std::unordered_set<int> seen{root_pid};
  for (size_t i = 0; i < out.size(); ++i) {
    for (const TaskView& p : procs) {
      if (p.ppid == out[i] && seen.insert(p.pid).second) out.push_back(p.pid);
    }
  }
  return out;
}

/// True when no process `pid` exists, not even a zombie.
inline bool Gone(int pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

/// Pids in `pids` that still exist.
inline std::vector<int> Survivors(const std::vector<int>& pids) {
  std::vector<int> out;
  for (int pid : pids) {
    if (!Gone(pid)) out.push_back(pid);
  }
  return out;
}

/// Direct children of this process (the test binary), zombies included.
inline std::vector<int> MyChildren() {
  FsRoot live("/");
  std::vector<int> out;
  for (const TaskView& p : ListProcesses(live)) {
    if (p.ppid == ::getpid()) out.push_back(p.pid);
  }
  return out;
}

/// Milliseconds `f` took.
template <typename F>
long long TimeMs(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace rtagent::load_test
