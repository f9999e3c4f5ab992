#include "bench/runner.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "bench/peer.h"
#include "bench/spin_load.h"
#include "latency/clock_info.h"
#include "latency/sampler_syscalls.h"

namespace rtagent::bench {
namespace {

// What RunBench changes on the calling thread, given back on every exit path. The class goes
// through pthread_{get,set}schedparam, as PlaceCallingThread sets it (peer.h says why).
class ThreadLease {
 public:
  explicit ThreadLease(SamplerSyscalls& sys) : sys_(sys) {
    if (auto a = sys_.GetAffinity()) affinity_ = *a;
    sched_ok_ = ::pthread_getschedparam(::pthread_self(), &policy_, &param_) == 0;
    if (auto t = sys_.GetTimerSlack()) slack_ = *t;
  }
  ~ThreadLease() {
    if (sched_ok_) ::pthread_setschedparam(::pthread_self(), policy_, &param_);
    if (affinity_) (void)sys_.SetAffinity(*affinity_);
    if (slack_) (void)sys_.SetTimerSlack(*slack_);
    if (locked) (void)sys_.UnlockMemory();
  }
  bool locked = false;

 private:
  SamplerSyscalls& sys_;
  std::optional<CpuSet> affinity_;
  bool sched_ok_ = false;
  int policy_ = SCHED_OTHER;
  sched_param param_{};
  std::optional<uint64_t> slack_;
};

// The spinners' class in each load phase. Real-time: one rank below, then the same rank as
// SCHED_RR (a FIFO spinner at our rank would never give the CPU back; RR's timeslice does,
// which is the effect the phase shows). Without real-time classes: SCHED_IDLE below, SCHED_OTHER beside.
SchedState LoadClass(Phase phase, bool realtime, int priority) {
  if (phase == Phase::kLower) return realtime ? SchedState{SCHED_FIFO, priority - 1} : SchedState{SCHED_IDLE, 0};
  return realtime ? SchedState{SCHED_RR, priority} : SchedState{SCHED_OTHER, 0};
}

// The measuring thread's class in the equal phase: SCHED_RR at its rank when it measures at
// SCHED_FIFO. On a nohz_full CPU the scheduler stops the tick while one SCHED_RR task shares the
// CPU with SCHED_FIFO ones (kernel/sched/core.c, sched_can_stop_tick: a lone RR task needs no
// tick, FIFO tasks never do), so the spinner's timeslice would never end and a FIFO thread of
// ours at its rank would wait for good (CI's rt-bench guest hung so on isolated CPU 2). With
// two RR tasks runnable the kernel keeps the tick, and the slices run out as the phase means.
SchedState EqualPhaseClass(const SchedState& measuring) {
  if (measuring.policy != SCHED_FIFO) return measuring;
  return {SCHED_RR, measuring.priority};
}

TestResult Describe(const Primitive& t, Phase phase, int cpu) {
  TestResult r;
  r.id = t.id;
  r.group = t.group;
  r.title = t.title;
  r.calls = t.calls;
  r.peer = t.peer ? PeerKindName(*t.peer) : "";
  r.payload = t.payload;
  r.phase = phase;
  r.cpu = cpu;
  return r;
}

}  // namespace

RunBudgets BudgetsFor(bool quick) {
  RunBudgets b;
  if (quick) {
    b.test = {/*warmup=*/8, /*min_samples=*/1, /*max_samples=*/500, /*max_ns=*/10 * 1000000};
    b.equal = {1, 1, 500, 10 * 1000000};
    b.timer_run_ns = 200 * 1000000;
  } else {
    b.test = {100, 1, 20000, 100 * 1000000};
    b.equal = {1, 1, 20000, 100 * 1000000};
    b.timer_run_ns = int64_t{2} * 1000000000;
  }
  return b;
}

std::vector<Primitive> SelectTests(const std::vector<Group>& groups) {
  std::vector<Primitive> out;
  for (Primitive& p : Catalog()) {
    if (groups.empty() || std::find(groups.begin(), groups.end(), p.group) != groups.end()) out.push_back(std::move(p));
  }
  return out;
}

bool RunsInPhase(const Primitive& test, Phase phase, bool quick) {
  return !(quick && phase == Phase::kEqual && !test.quick_equal);
}

Result<void> ValidateRunOptions(const RunOptions& o, const CpuSet& online) {
  if (!online.Has(o.cpu)) {
    return InvalidInput("CPU " + std::to_string(o.cpu) + " is not online (online: " + online.ToList() + ")");
  }
  if (o.priority < 2 || o.priority > 98) {
    return InvalidInput("priority " + std::to_string(o.priority) +
                            " leaves no rank for the load one below or the waiters one above: use 2..98");
  }
  if (o.load_cpus.Empty()) return InvalidInput("no CPU to put the phases' load on");
  return Ok();
}

namespace {

// Puts the measuring thread on its CPU at SCHED_FIFO; without the right to, at SCHED_OTHER with
// a 1 ns timer slack, said in run.notes. Records the class in `run`.
Result<SchedState> PlaceMeasuringThread(const RunOptions& o, SamplerSyscalls& sys, BenchRun& run) {
  SchedState sched{SCHED_FIFO, o.priority};
  if (const int err = PlaceCallingThread(o.cpu, sched); err != 0) {
    if (err != EPERM) {
      return MakeError("cannot run on CPU " + std::to_string(o.cpu) + " at SCHED_FIFO " + std::to_string(o.priority), err);
    }
    sched = {SCHED_OTHER, 0};
    if (const int e = PlaceCallingThread(o.cpu, sched); e != 0) {
      // Started under nice(1): only root may go back to nice 0, where the measuring thread and
      // the equal phase's load must both run for the phase to mean "equal".
      errno = 0;
      const int nice_now = ::getpriority(PRIO_PROCESS, 0);
      if (e == EACCES && errno == 0 && nice_now > 0) {
        return MakeError("started at nice " + std::to_string(nice_now) +
                             ": without root it cannot go back to nice 0, where it measures beside the equal "
                             "phase's load; run it without nice(1), or as root",
                         e);
      }
      return MakeError("cannot run on CPU " + std::to_string(o.cpu), e);
    }
    if (auto slack = sys.SetTimerSlack(1); !slack) return slack.error();
    run.notes.push_back("SCHED_FIFO " + std::to_string(o.priority) +
                        " refused (not root): measured at SCHED_OTHER with timer slack 1 ns; the loads run at "
                        "SCHED_IDLE (lower) and SCHED_OTHER (equal); these are not real-time figures");
  }
  run.realtime = sched.policy == SCHED_FIFO;
  run.policy = SchedPolicyName(sched.policy);
  run.priority = sched.priority;
  return sched;
}

// One test in one phase. The load runs while the test measures, never between tests: a run
// never keeps every CPU busy for longer than one test, whatever the kernel's RT safety net.
// The error is the load's, when it cannot start.
Result<TestResult> RunTest(const Primitive& t, Phase phase, const TestContext& ctx, const CpuSet& load_cpus,
                           const SchedState& load, SampleBuffer& buffer) {
  buffer.Clear();
  TestResult r = Describe(t, phase, ctx.cpu);
  SpinLoad spinners;
  if (phase != Phase::kIdle) {
    if (auto started = spinners.Start(load_cpus, load); !started) return started.error();
  }
  auto out = t.run(ctx, buffer);
  spinners.Stop();
  if (!out) {
    r.error = out.error().message;
  } else {
    r.skipped = out->skipped;
    r.period_ns = out->period_ns;
    r.wakeups = out->wakeups;
    r.overruns = out->overruns;
    r.elapsed_ns = out->elapsed_ns;
  }
  r.summary = Summarize(buffer.Copy());
  r.dropped = buffer.dropped();
  return r;
}

}  // namespace

Result<void> RunBench(const RunOptions& o, BenchRun& run,
                      const std::function<void(Phase, const std::vector<TestResult>&)>& phase_done) {
  if (auto ok = ValidateRunOptions(o, o.load_cpus); !ok) return ok;
  SamplerSyscalls& sys = RealSamplerSyscalls();
  ThreadLease lease(sys);

  // The start-up ritual (Real-Time Linux, Chapter 8): memory, CPU, class, then the loop.
  if (auto locked = sys.LockMemory(); locked) {
    lease.locked = true;
  } else {
    run.notes.push_back("memory not locked (" + locked.error().message + "): samples may include page faults");
  }
  run.memory_locked = lease.locked;
  auto placed = PlaceMeasuringThread(o, sys, run);
  if (!placed) return placed.error();
  const SchedState sched = *placed;
  run.cpu = o.cpu;
  run.quick = o.quick;

  // The clock every figure is taken with, measured first and on the measured CPU.
  auto clock = MeasureClock();
  if (!clock) return clock.error();
  run.host.clock_resolution_ns = clock->resolution_ns;
  run.host.clock_read_cost_ns = clock->read_cost_ns;

  const RunBudgets budgets = BudgetsFor(o.quick);
  const std::vector<Primitive> tests = SelectTests(o.groups);
  const uint32_t capacity = std::max({budgets.test.max_samples, budgets.equal.max_samples,
                                      static_cast<uint32_t>(budgets.timer_run_ns / 1000000 + 16)});
  SampleBuffer buffer(capacity);
  auto stopped = [&] { return o.stop != nullptr && o.stop->load(); };

  SchedState current = sched;
  for (Phase phase : AllPhases()) {
    if (stopped()) break;
    const SchedState phase_sched = phase == Phase::kEqual ? EqualPhaseClass(sched) : sched;
    if (phase_sched.policy != current.policy || phase_sched.priority != current.priority) {
      if (const int err = PlaceCallingThread(o.cpu, phase_sched); err != 0) {
        return MakeError("cannot run on CPU " + std::to_string(o.cpu) + " at " + SchedPolicyName(phase_sched.policy) +
                             " " + std::to_string(phase_sched.priority) + " for the " + PhaseName(phase) + " phase",
                         err);
      }
      current = phase_sched;
    }
    PhaseLoad pl;
    pl.phase = phase;
    const SchedState load = LoadClass(phase, run.realtime, o.priority);
    if (phase != Phase::kIdle) {
      pl.policy = SchedPolicyName(load.policy);
      pl.priority = load.priority;
      pl.cpus = o.load_cpus;
    }
    run.phases.push_back(pl);
    std::vector<TestResult> done;
    for (const Primitive& t : tests) {
      if (!RunsInPhase(t, phase, o.quick)) continue;
      if (stopped()) break;
      TestContext ctx;
      ctx.cpu = o.cpu;
      ctx.sched = phase_sched;
      ctx.memory_locked = run.memory_locked;
      ctx.budget = phase == Phase::kEqual ? budgets.equal : budgets.test;
      ctx.timer_run_ns = budgets.timer_run_ns;
      ctx.stop = o.stop;
      auto r = RunTest(t, phase, ctx, o.load_cpus, load, buffer);
      if (!r) {
        run.results.insert(run.results.end(), done.begin(), done.end());
        phase_done(phase, done);
        return Wrap("the " + PhaseName(phase) + " phase's load: ", r.error());
      }
      done.push_back(std::move(*r));
    }
    run.results.insert(run.results.end(), done.begin(), done.end());
    phase_done(phase, done);
  }
  run.interrupted = stopped();
  return Ok();
}

}  // namespace rtagent::bench
