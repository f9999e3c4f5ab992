// The loads of one acceptance run: started together on the housekeeping CPUs, watched for
// where they actually run, stopped together, however the run ends.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "latency/load.h"
#include "latency/load_placement.h"

namespace rtagent {

/// Several loads with their placement proof. RAII: destroying a running LoadSet stops and
/// reaps every load, so no load outlives an exception or an early return.
class LoadSet {
 public:
  /// `root` must be the live system (placement is read from its /proc) and outlive the set.
  explicit LoadSet(const SysRoot& root, std::chrono::milliseconds sample_period = std::chrono::milliseconds(200));
  ~LoadSet();
  LoadSet(const LoadSet&) = delete;
  LoadSet& operator=(const LoadSet&) = delete;

  /// Adds a load (before Start()), to run on `cpus` (a profile's per-load placement) or,
  /// when empty, on the housekeeping CPUs given to Start().
  void Add(std::unique_ptr<Load> load, CpuSet cpus = {});
  /// Number of loads added.
  size_t Size() const { return loads_.size(); }

  /// Starts every load on its CPUs (`housekeeping` by default), then a sampling thread
  /// pinned to `housekeeping`. Refuses CPU sets that are empty or share a CPU with
  /// `measured`, and a root that is not the live system. When one load fails to start, those already started are
  /// stopped and the error names the load.
  Result<void> Start(const CpuSet& housekeeping, const CpuSet& measured);
  /// Takes a last placement sample, then stops and reaps every load. Idempotent.
  void Stop();
  /// True between Start() and Stop().
  bool Running() const { return running_; }

  /// Names of the loads whose work ended before Stop() (poll it during the run: an
  /// external load dying early makes the run's load claim false).
  std::vector<std::string> EndedEarly() const;
  /// One report per load, placement included (live figures while running).
  std::vector<LoadReport> Reports() const;
  /// Everything about the loads that weakens a run: placement leaks, loads never sampled,
  /// loads that ended early, load errors. Empty when the loads did what was claimed.
  std::vector<std::string> Problems() const;

 private:
  void SampleLoop(CpuSet housekeeping);

  const SysRoot& root_;
  std::chrono::milliseconds period_;
  std::vector<std::unique_ptr<Load>> loads_;
  std::vector<CpuSet> cpus_;  // per load; empty: housekeeping
  std::vector<size_t> watch_ids_;
  CpuSet measured_;
  bool running_ = false;

  mutable std::mutex mu_;  // guards tracker_ and stop_
  std::condition_variable cv_;
  bool stop_ = false;
  PlacementTracker tracker_;
  std::thread sampler_;
};

}  // namespace rtagent
