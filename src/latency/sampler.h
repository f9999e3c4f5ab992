// The cyclictest-grade wake-up latency sampler: one SCHED_FIFO thread per measured CPU.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "latency/histogram.h"
#include "latency/sampler_syscalls.h"

namespace rtagent {

/// What to measure and how.
struct SamplerConfig {
  /// The CPUs to measure, one thread each (the profile's isolated CPUs by default).
  CpuSet cpus;
  /// Period of each thread's wake-ups (cyclictest -i). 1000 µs: a 1 kHz control loop.
  std::chrono::microseconds interval{1000};
  /// How long to measure; each thread takes duration / interval samples.
  std::chrono::nanoseconds duration{std::chrono::seconds(60)};
  /// SCHED_FIFO priority of the measuring threads (the profile's rank; 1..99).
  int priority = 80;
  /// When the kernel refuses SCHED_FIFO or mlockall with EPERM (or ENOMEM for a small
  /// RLIMIT_MEMLOCK), run anyway as SCHED_OTHER with 1 ns timer slack and/or unlocked memory,
  /// and mark the result. Off by default: without it those refusals are errors.
  bool allow_unprivileged = false;
  /// Hold the sampler's own PM QoS note (/dev/cpu_dma_latency) at this many µs during the
  /// run, as cyclictest does by default. Unset: measure the system's own power state.
  /// Never taken under a fixture root.
  std::optional<int32_t> hold_pm_qos_us;
  /// A cgroup v2 directory (relative to the root, e.g. "sys/fs/cgroup/rt") the process joins
  /// before its threads pin themselves: the one FindMeasuringCgroup names when the measured
  /// CPUs belong to a partition outside the process's own cgroup. Empty: stay where it is.
  /// Never joined under a fixture root.
  std::string join_cgroup_dir;
  /// Histogram bins: 1 µs each from 0 to this limit; later wake-ups are overflows.
  uint32_t histogram_limit_us = Histogram::kDefaultLimitUs;
  /// First and worst overflow events kept per CPU.
  size_t kept_overflow_events = Histogram::kDefaultKeptEvents;
  /// Stack size of each measuring thread (locked whole under mlockall: keep it small).
  size_t stack_bytes = 256 * 1024;
  /// How much of that stack is written before the loop (pre-faulted).
  size_t stack_prefault_bytes = 64 * 1024;
};

/// Live progress of one measuring thread, read while it runs (relaxed atomics).
struct CpuProgress {
  int cpu = 0;
  uint64_t samples = 0;
  std::optional<int64_t> worst_ns;  ///< nullopt before the first sample
  uint64_t overflows = 0;           ///< wake-ups past the histogram's last bin so far
};

/// What one CPU's thread measured and how it ran.
struct CpuRun {
  int cpu = 0;
  Histogram histogram;
  SchedState sched;            ///< the class the loop actually ran in
  bool stopped_early = false;  ///< RequestStop() ended it before its duration
  int64_t elapsed_ns = 0;      ///< from the loop's start to its last wake-up
};

/// The result of a sampler run, with everything that qualifies its figures.
struct SamplerResult {
  std::vector<CpuRun> cpus;  ///< in CPU order
  std::chrono::microseconds interval{0};
  std::chrono::nanoseconds duration_asked{0};
  std::chrono::nanoseconds duration_actual{0};  ///< the longest thread's elapsed time
  int priority_asked = 0;
  /// Every thread ran SCHED_FIFO at the asked priority.
  bool fifo = false;
  /// Memory was locked (mlockall) for the whole run.
  bool memory_locked = false;
  /// The run used the allow_unprivileged fallback (SCHED_OTHER and/or unlocked memory).
  bool unprivileged_fallback = false;
  /// The sampler's own PM QoS note, in force for the whole run (hides C-state exits).
  std::optional<int32_t> own_pm_qos_us;
  /// Stopped early by RequestStop().
  bool interrupted = false;
  /// Plain-language notes on how the run deviated from the config (fallbacks, fixture root).
  std::vector<std::string> notes;
};

/// The sampler's next deadline after a wake-up at `now_ns` for the deadline `next_ns`.
struct NextDeadline {
  int64_t next_ns = 0;   ///< the first deadline still ahead of now_ns
  uint64_t skipped = 0;  ///< whole periods that passed unsampled (woke a period or more late)
};

/// Advances `next_ns` by one `interval_ns`; when the wake-up at `now_ns` was a whole period
/// late or more, skips every period already past instead of firing a burst of catch-up
/// wake-ups, as cyclictest does. The skipped periods are counted up to the run's last deadline,
/// `end_ns` (`next_ns` is at or before it): a late last wake-up does not add periods the run
/// never had, so sampled plus skipped is the run's number of periods. Pure and allocation-free:
/// the hot loop calls it.
inline NextDeadline AdvanceDeadline(int64_t next_ns, int64_t now_ns, int64_t interval_ns, int64_t end_ns) {
  NextDeadline d{next_ns + interval_ns, 0};
  if (now_ns >= d.next_ns) {
    const int64_t missed = (now_ns - d.next_ns) / interval_ns + 1;
    const int64_t left_in_run = end_ns >= next_ns ? (end_ns - next_ns) / interval_ns : 0;
    d.skipped = static_cast<uint64_t>(missed < left_in_run ? missed : left_in_run);
    d.next_ns += missed * interval_ns;
  }
  return d;
}

/// Measures wake-up latency the way cyclictest does, with nothing in the loop but the clock.
///
/// Setup, in the order of the lesson's start-up ritual (Chapter 8): lock memory (a lease),
/// allocate and touch every histogram, create one thread per CPU with a small stack; in each
/// thread pin it to its CPU and set SCHED_FIFO (leases, given back when the thread ends),
/// pre-fault its stack and touch its histogram; then take the PM QoS note if asked; then all
/// threads enter the loop: clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), clock_gettime,
/// the subtraction, the histogram increment, two relaxed atomic stores for the progress line.
///
/// The sampler measures this machine's real clock even under a fixture root (it has nothing
/// to read there); only the PM QoS note is refused under a fixture.
class Sampler {
 public:
  Sampler(SamplerConfig config, SysRoot& root, SamplerSyscalls& sys = RealSamplerSyscalls());
  /// Stops and joins any running threads and releases every lease.
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  /// Checks the config (CPUs, interval, duration, priority), sets everything up and starts
  /// the loops. On any setup failure every thread is joined, every lease released, and the
  /// error names the CPU, the call and the errno (EPERM: "run as root or allow_unprivileged").
  Result<void> Start();
  /// Asks every thread to stop at its next wake-up. Safe from a signal handler.
  void RequestStop() { stop_.store(true, std::memory_order_relaxed); }
  /// True when every thread has left its loop.
  bool Finished() const;
  /// Per-CPU samples so far and worst so far, for a live progress line.
  std::vector<CpuProgress> Progress() const;
  /// Waits for every thread, releases the leases and returns what was measured.
  Result<SamplerResult> Wait();
  /// Start() then Wait().
  Result<SamplerResult> Run();

  /// The config problems Start() would refuse, or Ok().
  static Result<void> Validate(const SamplerConfig& config);

 private:
  struct Worker;
  // Step 0 of Start(): joins config_.join_cgroup_dir, if any.
  Result<void> JoinCgroup();
  static void* ThreadMain(void* arg);
  void WorkerMain(Worker& w);
  void MeasureLoop(Worker& w);
  void JoinAll();
  void ReleaseLeases();

  SamplerConfig config_;
  SysRoot& root_;
  SamplerSyscalls& sys_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  int ready_ = 0;
  int phase_ = 0;  // 0 waiting, 1 go, 2 abort
  bool started_ = false;
  bool memory_locked_ = false;
  bool fallback_ = false;
  std::optional<PmQosLease> pm_qos_;
  std::vector<std::string> notes_;
};

}  // namespace rtagent
