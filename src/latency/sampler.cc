#include "latency/sampler.h"

#include <alloca.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "latency/measuring_cgroup.h"

namespace rtagent {
namespace {

constexpr int64_t kNsPerSec = 1000000000;

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

bool IsPrivilegeRefusal(int err) { return err == EPERM || err == ENOMEM; }

// Writes `bytes` of this thread's stack now, so the loop never takes a first-touch page fault
// there (with mlockall(MCL_FUTURE) the stack is resident already; without it this is all
// there is). cyclictest does the same with a local array and memset.
__attribute__((noinline)) void PrefaultStack(size_t bytes) {
  volatile unsigned char* p = static_cast<volatile unsigned char*>(alloca(bytes));
  for (size_t i = 0; i < bytes; i += 256) p[i] = 0;
}

// Gives the calling thread its previous affinity back.
class AffinityLease {
 public:
  AffinityLease(SamplerSyscalls& sys, CpuSet previous) : sys_(sys), previous_(std::move(previous)) {}
  ~AffinityLease() { (void)sys_.SetAffinity(previous_); }
  AffinityLease(const AffinityLease&) = delete;
  AffinityLease& operator=(const AffinityLease&) = delete;

 private:
  SamplerSyscalls& sys_;
  CpuSet previous_;
};

// Gives the calling thread its previous scheduling class back.
class SchedLease {
 public:
  SchedLease(SamplerSyscalls& sys, SchedState previous) : sys_(sys), previous_(previous) {}
  ~SchedLease() { (void)sys_.SetScheduler(previous_); }
  SchedLease(const SchedLease&) = delete;
  SchedLease& operator=(const SchedLease&) = delete;

 private:
  SamplerSyscalls& sys_;
  SchedState previous_;
};

// Gives the calling thread its previous timer slack back.
class TimerSlackLease {
 public:
  TimerSlackLease(SamplerSyscalls& sys, uint64_t previous) : sys_(sys), previous_(previous) {}
  ~TimerSlackLease() { (void)sys_.SetTimerSlack(previous_); }
  TimerSlackLease(const TimerSlackLease&) = delete;
  TimerSlackLease& operator=(const TimerSlackLease&) = delete;

 private:
  SamplerSyscalls& sys_;
  uint64_t previous_;
};

}  // namespace

// ---- Sampler ----

struct Sampler::Worker {
  Worker(Sampler* o, int c, uint32_t limit_us, size_t kept) : owner(o), cpu(c), histogram(limit_us, kept) {}

  Sampler* owner;
  int cpu;
  Histogram histogram;
  pthread_t thread{};
  bool thread_started = false;
  // Written by the worker before it reports ready (read by Start under mu_).
  std::optional<Error> setup_error;
  SchedState ran_at;
  bool fell_back = false;
  // Written by the worker before `done` (read after join).
  bool stopped_early = false;
  int64_t elapsed_ns = 0;
  int loop_error = 0;
  // Live progress: written by the worker's loop, read by any thread.
  alignas(64) std::atomic<uint64_t> samples{0};
  std::atomic<int64_t> worst_ns{-1};
  std::atomic<uint64_t> overflows{0};
  std::atomic<bool> done{false};
};

Sampler::Sampler(SamplerConfig config, SysRoot& root, SamplerSyscalls& sys)
    : config_(std::move(config)), root_(root), sys_(sys) {}

Sampler::~Sampler() {
  RequestStop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (phase_ == 0) phase_ = 2;
  }
  cv_.notify_all();
  JoinAll();
  ReleaseLeases();
}

Result<void> Sampler::Validate(const SamplerConfig& c) {
  if (c.cpus.Empty()) return InvalidInput("no CPU to measure");
  if (c.interval.count() <= 0) return InvalidInput("the sampling interval must be above 0 µs");
  if (c.duration.count() <= 0) return InvalidInput("the measuring duration must be above 0");
  if (c.duration < c.interval) {
    return InvalidInput("the measuring duration (" + std::to_string(c.duration.count()) +
                            " ns) is shorter than one interval (" + std::to_string(c.interval.count()) + " µs)");
  }
  const int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
  if (c.priority < lo || c.priority > hi) {
    return InvalidInput("SCHED_FIFO priority " + std::to_string(c.priority) + " is outside " + std::to_string(lo) + ".." +
                            std::to_string(hi));
  }
  if (c.histogram_limit_us == 0) return InvalidInput("the histogram limit must be at least 1 µs");
  if (c.stack_bytes < static_cast<size_t>(PTHREAD_STACK_MIN) || c.stack_prefault_bytes + 16384 > c.stack_bytes) {
    return InvalidInput("a measuring thread's stack of " + std::to_string(c.stack_bytes) + " bytes cannot hold " +
                            std::to_string(c.stack_prefault_bytes) + " pre-faulted bytes");
  }
  return Ok();
}

Result<void> Sampler::Start() {
  if (started_) return MakeError("the sampler was already started", EBUSY);
  if (auto v = Validate(config_); !v) return v;
  started_ = true;

  // 0. Into the partition that holds the measured CPUs, if named (outside it pinning fails).
  if (auto joined = JoinCgroup(); !joined) return joined;

  // 1. Lock memory: everything mapped from here on (histograms, thread stacks) is resident.
  if (auto r = sys_.LockMemory(); r) {
    memory_locked_ = true;
  } else if (config_.allow_unprivileged && IsPrivilegeRefusal(r.error().err)) {
    fallback_ = true;
    notes_.push_back("memory not locked (" + r.error().message + "): page faults may show in the figures");
  } else {
    return Wrap("cannot lock the sampler's memory: ", r.error(),
                IsPrivilegeRefusal(r.error().err) ? " (run as root, or allow the unprivileged fallback)" : "");
  }

  // 2. Allocate and touch every histogram (the constructor writes every bin).
  for (int cpu : config_.cpus.Cpus()) {
    workers_.push_back(std::make_unique<Worker>(this, cpu, config_.histogram_limit_us, config_.kept_overflow_events));
  }

  // 3. One thread per CPU, with a small stack: under MCL_FUTURE the whole stack is locked.
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, config_.stack_bytes);
  std::optional<Error> create_error;
  for (auto& w : workers_) {
    int e = pthread_create(&w->thread, &attr, &Sampler::ThreadMain, w.get());
    if (e != 0) {
      create_error = MakeError("cannot create the measuring thread for CPU " + std::to_string(w->cpu), e);
      break;
    }
    w->thread_started = true;
  }
  pthread_attr_destroy(&attr);

  // 4. Wait until every started thread has set itself up (or failed to).
  int started_count = 0;
  for (auto& w : workers_) started_count += w->thread_started ? 1 : 0;
  std::optional<Error> setup_error = create_error;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return ready_ == started_count; });
    for (auto& w : workers_) {
      if (w->setup_error && !setup_error) setup_error = w->setup_error;
      if (w->fell_back) fallback_ = true;
    }
  }

  // 5. The sampler's own PM QoS note, only when asked, never under a fixture root.
  if (!setup_error && config_.hold_pm_qos_us) {
    if (!root_.IsLive()) {
      notes_.push_back("PM QoS note of " + std::to_string(*config_.hold_pm_qos_us) +
                       " µs not held: the root is a fixture, not the live system");
    } else {
      PmQosLease lease(sys_.PmQosDevice(root_));
      if (auto held = lease.Acquire(*config_.hold_pm_qos_us); !held) {
        setup_error = held.error();
      } else {
        pm_qos_.emplace(std::move(lease));
      }
    }
  }

  {
    std::lock_guard<std::mutex> lock(mu_);
    phase_ = setup_error ? 2 : 1;
  }
  cv_.notify_all();
  if (setup_error) {
    JoinAll();
    ReleaseLeases();
    workers_.clear();
    return *setup_error;
  }
  return Ok();
}

Result<void> Sampler::JoinCgroup() {
  if (config_.join_cgroup_dir.empty()) return Ok();
  if (!root_.IsLive()) {
    notes_.push_back("cgroup " + config_.join_cgroup_dir + " not joined: the root is a fixture, not the live system");
    return Ok();
  }
  if (auto w = rtagent::JoinCgroup(root_, config_.join_cgroup_dir); !w) {
    return Wrap("cannot move the measuring process into cgroup " + config_.join_cgroup_dir + ": ", w.error());
  }
  // This thread only waits and reports: keep it off the measured CPUs when the cgroup has others.
  auto allowed = sys_.GetAffinity();
  if (!allowed) return Wrap("after joining cgroup " + config_.join_cgroup_dir + ": ", allowed.error());
  const CpuSet spare = allowed->Minus(config_.cpus);
  if (!spare.Empty()) {
    if (auto r = sys_.SetAffinity(spare); !r) return Wrap("cannot keep the reporting thread off the measured CPUs: ", r.error());
  } else {
    notes_.push_back("the measuring process ran in cgroup " + config_.join_cgroup_dir +
                     ", whose CPUs are all measured: its reporting thread (one wake-up per 250 ms) shared them");
  }
  return Ok();
}

void* Sampler::ThreadMain(void* arg) {
  auto* w = static_cast<Worker*>(arg);
  w->owner->WorkerMain(*w);
  w->done.store(true, std::memory_order_release);
  return nullptr;
}

void Sampler::WorkerMain(Worker& w) {
  auto report_ready = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    ++ready_;
    cv_.notify_all();
  };
  auto fail = [&](Error e) {
    w.setup_error = std::move(e);
    report_ready();
  };
  const std::string on_cpu = "CPU " + std::to_string(w.cpu);

  // Pin to the CPU (a lease: the previous affinity comes back when the thread ends).
  auto previous_affinity = sys_.GetAffinity();
  if (!previous_affinity) return fail(Wrap(on_cpu + ": ", previous_affinity.error()));
  if (auto r = sys_.SetAffinity(CpuSet::Of({w.cpu})); !r) {
    return fail(Wrap("cannot pin the measuring thread to " + on_cpu + " (is it online?): ", r.error()));
  }
  AffinityLease affinity_lease(sys_, *previous_affinity);

  // SCHED_FIFO at the asked priority (a lease), or the allowed SCHED_OTHER fallback.
  auto previous_sched = sys_.GetScheduler();
  if (!previous_sched) return fail(Wrap(on_cpu + ": ", previous_sched.error()));
  std::optional<SchedLease> sched_lease;
  std::optional<TimerSlackLease> slack_lease;
  const SchedState fifo{SCHED_FIFO, config_.priority};
  if (auto r = sys_.SetScheduler(fifo); r) {
    sched_lease.emplace(sys_, *previous_sched);
    w.ran_at = fifo;
  } else if (config_.allow_unprivileged && r.error().err == EPERM) {
    // SCHED_OTHER gets 50 µs of timer slack by default (a real-time class gets none): ask for
    // 1 ns, as the lesson's Chapter 8 does for a normal-rulebook loop that must wake precisely.
    w.fell_back = true;
    w.ran_at = *previous_sched;
    if (auto slack = sys_.GetTimerSlack(); slack && sys_.SetTimerSlack(1)) slack_lease.emplace(sys_, *slack);
  } else {
    return fail(Wrap("cannot run the measuring thread on " + on_cpu + " as SCHED_FIFO priority " +
                         std::to_string(config_.priority) + ": ",
                     r.error(),
                     r.error().err == EPERM ? " (run as root or with CAP_SYS_NICE, or allow the "
                                              "unprivileged SCHED_OTHER fallback)"
                                            : ""));
  }

  // Pre-fault the stack and touch the histogram from this CPU.
  PrefaultStack(config_.stack_prefault_bytes);
  w.histogram.Touch();

  report_ready();
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return phase_ != 0; });
    if (phase_ != 1) return;  // another thread failed: leave without measuring
  }
  MeasureLoop(w);
}

// The hot loop. Nothing here allocates, locks, prints or makes a syscall other than the two
// clock calls: the same loop as cyclictest's timerthread() with TIMER_ABSTIME.
void Sampler::MeasureLoop(Worker& w) {
  const int64_t interval_ns = static_cast<int64_t>(config_.interval.count()) * 1000;
  const int64_t start_ns = NowNs();
  const int64_t end_ns = start_ns + static_cast<int64_t>(config_.duration.count());
  int64_t next_ns = start_ns + interval_ns;
  int64_t worst_ns = -1;
  int64_t last_ns = start_ns;
  Histogram& h = w.histogram;
  timespec next;
  timespec now;
  for (;;) {
    next.tv_sec = static_cast<time_t>(next_ns / kNsPerSec);
    next.tv_nsec = static_cast<long>(next_ns % kNsPerSec);
    int r;
    do {
      // An absolute deadline: a signal that interrupts the sleep costs nothing to retry.
      r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    } while (r == EINTR);
    if (r != 0) {
      w.loop_error = r;
      break;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * kNsPerSec + now.tv_nsec;
    const int64_t latency_ns = now_ns - next_ns;
    h.Record(latency_ns, now_ns - start_ns);
    last_ns = now_ns;
    w.samples.store(h.samples(), std::memory_order_relaxed);
    w.overflows.store(h.overflows(), std::memory_order_relaxed);
    if (latency_ns > worst_ns) {
      worst_ns = latency_ns;
      w.worst_ns.store(latency_ns, std::memory_order_relaxed);
    }
    const NextDeadline d = AdvanceDeadline(next_ns, now_ns, interval_ns, end_ns);
    next_ns = d.next_ns;
    if (d.skipped != 0) h.AddSkippedPeriods(d.skipped);
    if (next_ns > end_ns) break;
    if (stop_.load(std::memory_order_relaxed)) {
      w.stopped_early = true;
      break;
    }
  }
  w.elapsed_ns = last_ns - start_ns;
}

bool Sampler::Finished() const {
  for (const auto& w : workers_) {
    if (w->thread_started && !w->done.load(std::memory_order_acquire)) return false;
  }
  return true;
}

std::vector<CpuProgress> Sampler::Progress() const {
  std::vector<CpuProgress> out;
  for (const auto& w : workers_) {
    CpuProgress p;
    p.cpu = w->cpu;
    p.samples = w->samples.load(std::memory_order_relaxed);
    int64_t worst = w->worst_ns.load(std::memory_order_relaxed);
    if (worst >= 0) p.worst_ns = worst;
    p.overflows = w->overflows.load(std::memory_order_relaxed);
    out.push_back(p);
  }
  return out;
}

void Sampler::JoinAll() {
  for (auto& w : workers_) {
    if (w->thread_started) {
      pthread_join(w->thread, nullptr);
      w->thread_started = false;
    }
  }
}

void Sampler::ReleaseLeases() {
  if (pm_qos_) {
    pm_qos_->Release();
  }
  if (memory_locked_) {
    (void)sys_.UnlockMemory();
    memory_locked_ = false;
  }
}

Result<SamplerResult> Sampler::Wait() {
  if (!started_ || workers_.empty()) return InvalidInput("the sampler is not running");
  JoinAll();
  SamplerResult out;
  out.interval = config_.interval;
  out.duration_asked = config_.duration;
  out.priority_asked = config_.priority;
  out.memory_locked = memory_locked_;
  out.unprivileged_fallback = fallback_;
  if (pm_qos_) out.own_pm_qos_us = pm_qos_->value_us();
  out.notes = notes_;
  out.fifo = true;
  std::optional<Error> loop_error;
  for (auto& w : workers_) {
    if (w->loop_error && !loop_error) {
      loop_error = MakeError("clock_nanosleep failed on CPU " + std::to_string(w->cpu), w->loop_error);
    }
    if (w->fell_back) {
      out.fifo = false;
      out.notes.push_back("CPU " + std::to_string(w->cpu) + " ran " + SchedPolicyName(w->ran_at.policy) +
                          ", not SCHED_FIFO: the kernel refused the real-time class (EPERM)");
    }
    out.interrupted = out.interrupted || w->stopped_early;
    out.duration_actual = std::max(out.duration_actual, std::chrono::nanoseconds(w->elapsed_ns));
    out.cpus.push_back(CpuRun{w->cpu, std::move(w->histogram), w->ran_at, w->stopped_early, w->elapsed_ns});
  }
  ReleaseLeases();
  workers_.clear();
  if (loop_error) return *loop_error;
  return out;
}

Result<SamplerResult> Sampler::Run() {
  if (auto r = Start(); !r) return r.error();
  return Wait();
}

}  // namespace rtagent
