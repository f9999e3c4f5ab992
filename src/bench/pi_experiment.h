// The priority-inversion experiment of the QNX codelab (seed 000), on Linux: a low-ranked
// thread takes a lock and works, a medium-ranked thread burns the CPU, a high-ranked thread
// with a deadline wants the lock; all three on one CPU, SCHED_FIFO. Run once with a plain
// mutex and once with PTHREAD_PRIO_INHERIT (Real-Time Linux, Chapter 9: the holder "shall
// execute at the higher of its priority or the priority of the highest priority thread
// waiting"). Without inheritance the medium thread runs while the high one waits, and the
// high one misses its deadline; with it the holder outranks the medium thread until it lets go.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace rtagent::bench {

/// One period of the experiment, the codelab's figures: at 0 the low thread takes the lock
/// and works 4 ms of CPU; at 2 ms the medium thread burns 10 ms; at 4 ms the high thread
/// wants the lock for 0.5 ms of work and must be done within 5 ms; a period is 25 ms.
/// Work is time on the CPU, counted by WorkMeter, so a preempted thread's work takes longer.
struct PiTiming {
  int64_t period_ns = 25000000;
  int64_t low_work_ns = 4000000;
  int64_t medium_start_ns = 2000000;
  int64_t medium_work_ns = 10000000;
  int64_t high_start_ns = 4000000;
  int64_t high_work_ns = 500000;
  int64_t deadline_ns = 5000000;
};

/// Where and how long.
struct PiOptions {
  int cpu = 0;        ///< the one CPU all three threads run on
  int priority = 90;  ///< the high thread's SCHED_FIFO rank; medium one below, low two below (3..99)
  int periods = 10;   ///< per protocol: 10 periods cost 145 ms of CPU, 0.25 s of wall time
  PiTiming timing;
  const std::atomic<bool>* stop = nullptr;  ///< Ctrl-C: ends after the period in hand
  /// Wall-clock limit of the whole experiment, half of it for each protocol: no repeated run
  /// (kPiMaxAttempts) begins past that half; a run in hand finishes its periods. 0:
  /// PiTimeLimitNs(periods, timing).
  int64_t time_limit_ns = 0;
};

/// The default limit: 20 times the experiment's own length (both protocols' periods), at least
/// 5 s. 10 periods take 0.5 s and get 10 s. Where periods run far longer than their 25 ms
/// (late wake-ups, a busy hypervisor; a nohz_full CPU of a QEMU guest took 30 s for 10
/// periods while work was counted with the CPU-time clock) the repeated runs, up to 5 a
/// protocol, stop there instead of holding up verify for minutes.
int64_t PiTimeLimitNs(int periods, const PiTiming& timing);

/// How a busy thread counts its own work: it reads CLOCK_MONOTONIC in a loop, and a gap between
/// two readings counts as work when it is short (the thread held the CPU throughout), not when
/// it is long (another thread, or the hypervisor, had the CPU). The scheduler's CPU-time clock
/// (CLOCK_THREAD_CPUTIME_ID) is not used: where the kernel marks the TSC unstable, as in a QEMU
/// guest, it advances with the local tick, and a nohz_full CPU running only SCHED_FIFO threads
/// has none, so a burn measured by it never ended (the high thread spun at its rank for minutes
/// and the guest froze, CI of f546458). A burn also ends at a wall-clock cap, whatever it counted.
class WorkMeter {
 public:
  /// Longest gap between two readings still counted as running.
  static constexpr int64_t kMaxGapNs = 50000;
  /// `work_ns` of running from `start_ns` (a CLOCK_MONOTONIC reading).
  WorkMeter(int64_t work_ns, int64_t start_ns);
  /// One more reading; returns whether the work is done or the cap has passed.
  bool Observe(int64_t now_ns);
  int64_t worked_ns() const { return worked_; }
  /// The cap ended it before the work was counted (the clock reads are slower than kMaxGapNs).
  bool capped() const { return worked_ < work_ && last_ - start_ >= cap_; }
  /// The wall-clock cap: 100 times the work, at least a second.
  static int64_t CapNs(int64_t work_ns);

 private:
  int64_t work_;
  int64_t start_;
  int64_t cap_;
  int64_t last_;
  int64_t worked_ = 0;
};

/// One run of the experiment with one mutex protocol.
struct PiModeResult {
  std::string protocol;          ///< "none" or "inherit"
  int periods = 0;               ///< periods run
  int misses = 0;                ///< high-thread requests slower than the deadline
  int inversions = 0;            ///< periods in which the medium thread ran while the high one waited for the lock
  int contended = 0;             ///< periods in which the high thread found the lock held (only these test the protocol)
  int attempts = 0;              ///< runs of `periods` periods it took to see a contended one (at most kPiMaxAttempts)
  bool out_of_time = false;      ///< no contended period yet, and its half of the time limit ended the repeated runs
  int capped = 0;                ///< burns that WorkMeter's wall-clock cap ended before their work was counted
  int64_t worst_response_ns = 0;  ///< the high thread's slowest request (lock, work, unlock)
  int64_t worst_block_ns = 0;     ///< the longest it waited in pthread_mutex_lock
  int64_t worst_medium_ns = 0;    ///< the most CPU time the medium thread got during one such wait
  int low_tid = 0;               ///< the lock holder's thread id in the first run (whose boost tracefs shows)
  std::vector<int> low_tids;     ///< the lock holder of every run, the first included
};

/// How many runs a mode gets to show one contended period. Whether the high thread ever finds
/// the lock held depends on timing: on an emulated CPU (QEMU's TCG) a late wake-up of the
/// medium thread lets the low one finish before the high one asks, in every period of a run.
/// A mode that never saw contention has tested nothing, so it runs again, up to this many times.
constexpr int kPiMaxAttempts = 5;

/// The boost as the kernel recorded it: sched_pi_setprio events of the low thread.
struct PiEvidence {
  bool traced = false;     ///< the events were recorded
  std::string why_not;     ///< why not (tracefs not mounted, no such event, not the live system)
  int boosts_inherit = 0;  ///< raises of the low thread's priority in the inherit run
  int boosts_none = 0;     ///< the same in the run without inheritance (0 expected)
  std::string example;     ///< one boost as the trace printed it
};

/// Both runs.
struct PiResult {
  int cpu = 0;
  int priority = 0;
  PiTiming timing;
  PiModeResult none;
  PiModeResult inherit;
  PiEvidence evidence;
  bool interrupted = false;
  int64_t time_limit_ns = 0;  ///< the limit it ran under (PiOptions::time_limit_ns or the default)
  /// The cgroup v2 path its threads ran in when the CPU is in a partition and they ran in a
  /// child process that joined it (RunPiExperimentInCgroup); empty when they ran in the caller.
  std::string cgroup;
};

/// PASS, FAIL or INCONCLUSIVE with the sentence that says why.
struct PiJudgement {
  enum class Verdict { kPass, kFail, kInconclusive };
  Verdict verdict = Verdict::kInconclusive;
  std::string summary;
};

/// Adds a further run of the same mode to `into`: counts summed, worst figures kept, the lock
/// holder's id appended.
void MergePiRuns(PiModeResult& into, const PiModeResult& more);

/// "PASS", "FAIL", "INCONCLUSIVE".
std::string VerdictName(PiJudgement::Verdict v);

/// INCONCLUSIVE first when the time limit ended a mode's repeated runs (it never found the lock
/// held), or when a mode never found the lock held in all its runs (nothing was tested). FAIL when, with PTHREAD_PRIO_INHERIT, the medium thread still ran while the high one
/// waited (the holder was not raised: a kernel or libc that breaks PI futexes). PASS when it
/// never did and the plain mutex showed the inversion. INCONCLUSIVE when burns ended at their
/// WorkMeter cap (work could not be counted), when the plain mutex showed none (the set-up did not produce an inversion, so inheritance was not tested), or
/// when the inherit run missed deadlines without an inversion (something else, such as a
/// virtual machine's stalls, delayed the high thread).
PiJudgement JudgePi(const PiResult& r);

/// Runs the plain mutex, then PTHREAD_PRIO_INHERIT, each for `periods` periods, on the
/// options' CPU; a mode whose run had no contended period runs again (kPiMaxAttempts), the
/// runs' figures added up. No repeated run begins past a mode's half of the time limit (out_of_time). Needs SCHED_FIFO (EPERM otherwise, before anything runs). Leaves `evidence`
/// empty: RunPiWithEvidence (pi_trace.h) fills it.
Result<PiResult> RunPiExperiment(const PiOptions& options);

/// Checks the options (rank 3..99, at least one period) before anything runs.
Result<void> ValidatePiOptions(const PiOptions& options);

}  // namespace rtagent::bench
