// A whole `rtagent bench` run as plain data: how and where it measured, every test in every
// phase, and the timer-health verdict. The JSON lines, the Markdown table, the SVG chart and
// --compare are pure functions of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "bench/primitive.h"
#include "bench/samples.h"
#include "report/verdict.h"

namespace rtagent::bench {

/// ipcbench's three load phases.
enum class Phase {
  kIdle,   ///< nothing else asks for a CPU
  kLower,  ///< every CPU busy one rank below the measuring thread
  kEqual,  ///< every CPU busy at the measuring thread's rank (a SCHED_RR timeslice)
};
/// "idle", "lower", "equal".
std::string PhaseName(Phase p);
/// The phase called `name`, or nullopt.
std::optional<Phase> ParsePhase(const std::string& name);
/// Every phase, in run order.
const std::vector<Phase>& AllPhases();

/// The load of one phase: the class of the spinners on every CPU (none when idle).
struct PhaseLoad {
  Phase phase = Phase::kIdle;
  std::string policy;  ///< "SCHED_FIFO", "SCHED_RR", "SCHED_OTHER", "SCHED_IDLE"; "" when idle
  int priority = 0;
  CpuSet cpus;         ///< the CPUs that had a spinner

  /// "none" or "SCHED_FIFO 89 on CPUs 0-3".
  std::string Describe() const;
};

/// One test in one phase.
struct TestResult {
  std::string id;
  Group group = Group::kKernel;
  std::string title;
  std::string calls;
  std::string peer;       ///< "thread", "process", "" when the measuring thread was alone
  uint32_t payload = 0;   ///< bytes each way; 0 when the primitive carries none
  Phase phase = Phase::kIdle;
  int cpu = 0;            ///< where it measured
  Summary summary;        ///< in ns
  uint64_t dropped = 0;   ///< samples past the buffer (never expected: the budget stops first)
  std::string skipped;    ///< why it could not run here ("" when it ran)
  std::string error;      ///< why it failed ("" when it did not)
  // Timer health only (period_ns > 0):
  int64_t period_ns = 0;
  uint64_t wakeups = 0;
  uint64_t overruns = 0;
  int64_t elapsed_ns = 0;

  /// Wake-ups per second the timer achieved (0 when not a timer-health result or no time passed).
  double AchievedHz() const;
};

/// The timer-health verdict: can this machine's clock and timers resolve what the timer
/// tests measure (ipcbench's COARSE CLOCK), and is it a virtual machine?
struct TimerHealth {
  bool coarse = false;
  bool virtual_machine = false;
  std::vector<std::string> reasons;  ///< one sentence per finding, with the measured value

  /// "COARSE CLOCK" or "OK".
  std::string Verdict() const { return coarse ? "COARSE CLOCK" : "OK"; }
};

/// The whole run.
struct BenchRun {
  std::string tool_version;
  std::string started_at;  ///< ISO 8601 UTC
  HostFacts host;          ///< the machine, its clock (resolution, read cost) and hypervisor
  int cpu = 0;             ///< the measured CPU
  std::string policy;      ///< the measuring thread's class as it ran ("SCHED_FIFO", "SCHED_OTHER")
  int priority = 0;        ///< its rank (0 outside SCHED_FIFO/RR)
  bool realtime = false;   ///< it ran SCHED_FIFO (false: the kernel refused, not root)
  bool memory_locked = false;
  bool quick = false;
  int rr_timeslice_ms = 0;  ///< kernel.sched_rr_timeslice_ms (0 when unknown)
  std::vector<PhaseLoad> phases;
  std::vector<std::string> notes;  ///< fallbacks and other facts that qualify the figures
  std::vector<TestResult> results;
  TimerHealth health;
  bool interrupted = false;

  /// The result of `id` in `phase`, or nullptr.
  const TestResult* Find(const std::string& id, Phase phase) const;
  /// The load of `phase`, or nullptr when that phase did not run.
  const PhaseLoad* Load(Phase phase) const;
};

}  // namespace rtagent::bench
