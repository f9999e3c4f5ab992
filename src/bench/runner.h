// The run: the measuring thread set up once (memory locked, pinned, ranked), the clock measured
// first, then every selected test in each phase, the phase's load started before each test and
// stopped after it, results handed over after each phase so nothing is printed while measuring.
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "bench/bench_run.h"
#include "bench/primitive.h"

namespace rtagent::bench {

/// What the caller asks for.
struct RunOptions {
  int cpu = 0;               ///< the measured CPU
  int priority = 90;         ///< SCHED_FIFO rank of the measuring thread (2..98: the loads sit one below, peers one above)
  bool quick = false;        ///< a few seconds: small budgets, and the equal phase only where the timeslice shows
  std::vector<Group> groups;  ///< the groups to run; empty: every group
  CpuSet load_cpus;          ///< where the loads spin: every online CPU
  const std::atomic<bool>* stop = nullptr;  ///< Ctrl-C: the run ends after the sample in hand
};

/// The budgets of a run: per test outside and inside the equal phase, and the timer run.
struct RunBudgets {
  Budget test;
  Budget equal;
  int64_t timer_run_ns = 0;
};
/// --quick's budgets or the default (about a minute in all).
RunBudgets BudgetsFor(bool quick);

/// The tests of `groups` (every group when empty), in catalog order.
std::vector<Primitive> SelectTests(const std::vector<Group>& groups);

/// True when `test` runs in `phase` of a run (`quick` measures only the tests marked
/// quick_equal in the equal phase: there, every blocking sample costs a whole timeslice).
bool RunsInPhase(const Primitive& test, Phase phase, bool quick);

/// Checks the options against `online` CPUs: the CPU exists, the rank leaves room one below
/// and one above (2..98). Nothing runs when they are wrong.
Result<void> ValidateRunOptions(const RunOptions& options, const CpuSet& online);

/// Runs the bench on the calling thread, which must be the process's only thread (peers and
/// loads are forked): locks memory, pins itself to the CPU, takes SCHED_FIFO (or, refused,
/// stays SCHED_OTHER with timer slack 1 ns and says so in the notes), measures the clock, then
/// runs every phase. Fills `run` (class, phases, notes, clock, results; `interrupted` when
/// stopped) and calls `phase_done` after each phase with that phase's results, its loads
/// stopped. Gives back memory lock, CPU, class and timer slack at the end.
Result<void> RunBench(const RunOptions& options, BenchRun& run,
                      const std::function<void(Phase, const std::vector<TestResult>&)>& phase_done);

}  // namespace rtagent::bench
