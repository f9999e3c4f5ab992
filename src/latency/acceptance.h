// The loaded latency acceptance test, run: loads on the housekeeping CPUs, the sampler in a
// process of its own on the measured CPUs, and the facts read around the run (host, clock,
// PM QoS note, interrupts on the measured CPUs). What comes back is a record; judging it is
// report/'s (report/acceptance_verdict.h), printing it and the exit code cli/'s.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "latency/clock_info.h"
#include "latency/load_set.h"
#include "latency/run_facts.h"
#include "latency/sampler.h"
#include "profile/model.h"

namespace rtagent {

class SamplerProcess;

/// Why a latency run cannot happen here, or "" when it can: a fixture root (there is no clock
/// to measure under --root) or no root privileges (SCHED_FIFO priority `priority`, mlockall).
std::string AcceptanceCannotRunReason(const SysRoot& root, int priority);

/// What the caller sees of a run while it goes.
struct AcceptanceHooks {
  /// The measuring process once it runs, nullptr once it ended: a stop signal's target.
  std::function<void(SamplerProcess*)> on_sampler;
  /// True when the run should stop early (Ctrl-C); asked once the sampler runs.
  std::function<bool()> stop_requested;
  /// Called about four times a second while the sampler runs (a progress line).
  std::function<void(const SamplerProcess&)> on_progress;
  /// Read the interrupt and softirq counters at each of those ticks and keep the two readings
  /// around the worst wake-up (AcceptanceRecord::worst_window): the coarse "why" where no
  /// tracer can be used.
  bool watch_worst_window = false;
};

/// The counters that moved on a CPU between the two readings around the run's worst wake-up.
struct WorstWindow {
  int cpu = -1;
  int64_t worst_ns = 0;   ///< the worst wake-up, as the sampler saw it at the later reading
  int64_t span_ns = 0;    ///< time between the two readings
  std::vector<CoarseCount> counts;  ///< largest first
};

/// Everything a run measured and read, before any judgement.
struct AcceptanceRecord {
  int64_t started_at = 0;  ///< unix seconds, before the loads start
  HostFacts host;          ///< read before the run, clock figures included
  std::optional<ClockFacts> clock;  ///< the clock as measured before the run
  std::optional<int32_t> pm_qos_device_us;  ///< /dev/cpu_dma_latency before the run
  SamplerResult sampler;
  size_t load_count = 0;
  std::vector<LoadReport> loads;
  std::vector<std::string> load_problems;  ///< LoadSet::Problems(): empty when the loads held
  std::vector<InterruptDelta> interrupts;  ///< on the measured CPUs, during the run
  std::optional<WorstWindow> worst_window;  ///< AcceptanceHooks::watch_worst_window
};

/// One run of the test: prepared (input checked, loads made) before anything runs, then run once.
class AcceptanceRun {
 public:
  /// Checks the profile's acceptance section for a run of `duration` under `root` and makes
  /// its loads (an external program missing from PATH is found here); an external load's log
  /// goes to `log_dir`. Every error is bad input: nothing ran. `root` must outlive the run.
  static Result<std::unique_ptr<AcceptanceRun>> Prepare(const profile::AcceptanceConfig& acceptance,
                                                        std::chrono::nanoseconds duration,
                                                        const std::string& log_dir, const SysRoot& root);
  AcceptanceRun(const AcceptanceRun&) = delete;
  AcceptanceRun& operator=(const AcceptanceRun&) = delete;

  /// The sampler's configuration (CPUs, interval, priority, duration).
  const SamplerConfig& sampler() const { return sampler_; }

  /// Runs the test: the facts before, the loads, the sampler until its duration or a stop,
  /// the facts after. An error (run twice, the loads or the sampler could not start, the
  /// sampler failed) means there is no record; everything started was stopped.
  Result<AcceptanceRecord> Run(const AcceptanceHooks& hooks);

 private:
  explicit AcceptanceRun(const SysRoot& root) : root_(root), loads_(root) {}

  const SysRoot& root_;
  SamplerConfig sampler_;
  CpuSet load_cpus_;
  LoadSet loads_;
  std::string cgroup_note_;  ///< why the sampler joins sampler_.join_cgroup_dir, for the notes
  bool used_ = false;
};

}  // namespace rtagent
