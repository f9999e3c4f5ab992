// Placement proof: where a load's tasks actually ran, sampled from /proc while it runs.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"
#include "latency/load.h"

namespace rtagent {

/// Samples where the tasks of watched loads run. One Sample() reads the stat of every process
/// (inspect's ListProcesses, to find each load's tree by parent and process group), then the
/// stat of every thread of the loads' processes. /proc/PID/task/TID/children would avoid the full scan but
/// needs CONFIG_PROC_CHILDREN, which many kernels (this project's CI VM's included) lack.
/// Memory stays bounded however long the run: only the previous round's threads are kept.
class PlacementTracker {
 public:
  explicit PlacementTracker(const SysRoot& root) : root_(root) {}

  /// Watches a load: the process `root_pid` (its supervisor), every descendant of it, and
  /// every process in one of `pgids`. Returns the id for Placement().
  size_t Watch(int root_pid, std::vector<int> pgids);
  /// Forgets every watched load.
  void Clear() { watched_.clear(); }
  /// One sampling round over every watched load.
  void Sample();
  /// What was seen so far for watch `id` (`measured` left empty: the caller knows it).
  LoadPlacement Placement(size_t id) const;

 private:
  struct Watched {
    int root = 0;
    std::vector<int> pgids;
    LoadPlacement placement;
    std::unordered_set<int> last_round;  // threads seen in the previous round
  };
  const SysRoot& root_;
  std::vector<Watched> watched_;
};

}  // namespace rtagent
