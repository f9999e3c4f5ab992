// Test support: a small bench run with every case a renderer meets (a virtual machine, a
// skipped test, an error, a test not run in a phase, timer health in two phases).
#pragma once

#include <sched.h>

#include "bench/bench_run.h"

namespace rtagent::bench::testing {

inline TestResult Result(const std::string& id, Group g, const std::string& title, Phase phase, int64_t p50, int64_t p99,
                         int64_t max, uint64_t count, uint32_t payload = 0) {
  TestResult r;
  r.id = id;
  r.group = g;
  r.title = title;
  r.calls = "call()";
  r.payload = payload;
  r.phase = phase;
  r.cpu = 1;
  r.summary = {count, p50 / 2, p50, p99, p99, max, static_cast<double>(p50)};
  return r;
}

inline TestResult Timer(Phase phase, int64_t p50, int64_t p99, int64_t max, uint64_t wakeups, uint64_t overruns) {
  TestResult r = Result("timer.health.2ms", Group::kTimer, "periodic timer every 2 ms: interval error", phase, p50, p99,
                        max, wakeups);
  r.period_ns = 2000000;
  r.wakeups = wakeups;
  r.overruns = overruns;
  r.elapsed_ns = 200000000;
  return r;
}

inline BenchRun ExampleRun() {
  BenchRun run;
  run.tool_version = "0.1.0";
  run.started_at = "2026-01-02T03:04:05Z";
  run.host.hostname = "vm";
  run.host.kernel_release = "6.1.0-57-rt-amd64";
  run.host.preempt_rt = true;
  run.host.clocksource = "tsc";
  run.host.virtual_machine = true;
  run.host.hypervisor = "KVM";
  run.host.clock_resolution_ns = 1;
  run.host.clock_read_cost_ns = 24;
  run.cpu = 1;
  run.policy = "SCHED_FIFO";
  run.priority = 90;
  run.realtime = true;
  run.memory_locked = true;
  run.quick = true;
  run.rr_timeslice_ms = 100;
  run.phases = {{Phase::kIdle, "", 0, {}},
                {Phase::kLower, "SCHED_FIFO", 89, CpuSet::Range(0, 1)},
                {Phase::kEqual, "SCHED_RR", 90, CpuSet::Range(0, 1)}};
  run.results = {
      Result("kernel.getppid", Group::kKernel, "a real system call", Phase::kIdle, 85, 120, 2100, 500),
      Result("message.pipe.thread.4", Group::kMessage, "pipe (thread)", Phase::kIdle, 9800, 15000, 40000, 500, 4),
      Result("message.pipe.thread.65536", Group::kMessage, "pipe (thread)", Phase::kIdle, 31000, 52000, 90000, 500,
             65536),
      Timer(Phase::kIdle, 3100, 21000, 60000, 100, 0),
      Result("kernel.getppid", Group::kKernel, "a real system call", Phase::kLower, 88, 130, 2500, 500),
      Result("message.pipe.thread.4", Group::kMessage, "pipe (thread)", Phase::kLower, 10100, 16000, 45000, 500, 4),
      Result("message.pipe.thread.65536", Group::kMessage, "pipe (thread)", Phase::kLower, 32000, 55000, 99000, 500,
             65536),
      Timer(Phase::kLower, 3300, 25000, 70000, 100, 0),
      Result("message.pipe.thread.4", Group::kMessage, "pipe (thread)", Phase::kEqual, 99000000, 199000000, 199000000, 2,
             4),
      Timer(Phase::kEqual, 98000000, 99000000, 99000000, 2, 97),
  };
  TestResult skipped = Result("sync.mutex.handoff.protect", Group::kSync, "mutex hand-off", Phase::kIdle, 0, 0, 0, 0);
  skipped.summary = {};
  skipped.skipped = "needs SCHED_FIFO";
  run.results.push_back(skipped);
  TestResult failed = Result("sync.sem.named.trywait", Group::kSync, "named semaphore trywait at 0", Phase::kIdle, 0, 0, 0, 0);
  failed.summary = {};
  failed.error = "sem_open: Permission denied (EACCES)";
  run.results.push_back(failed);
  run.health.virtual_machine = true;
  run.health.reasons = {"measured on a virtual machine"};
  return run;
}

}  // namespace rtagent::bench::testing
