#include "bench/timers.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "bench/signal_lease.h"

namespace rtagent::bench {
namespace {

timespec Ts(int64_t ns) { return {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)}; }

// A timer deleted on every exit path.
struct Timer {
  timer_t id{};
  int err = 0;
  explicit Timer(sigevent& sev) {
    if (::timer_create(CLOCK_MONOTONIC, &sev, &id) != 0) err = errno;
  }
  ~Timer() {
    if (err == 0) ::timer_delete(id);
  }
};

sigevent NoSignal() {
  sigevent sev{};
  sev.sigev_notify = SIGEV_NONE;
  return sev;
}

Primitive CreateDelete() {
  return Solo(Group::kTimer, "timer.create_delete", "timer create + delete", "timer_create(CLOCK_MONOTONIC); timer_delete()",
              []() -> int64_t {
                sigevent sev = NoSignal();
                timer_t t;
                const int64_t t0 = NowNs();
                if (::timer_create(CLOCK_MONOTONIC, &sev, &t) != 0) return -errno;
                if (::timer_delete(t) != 0) return -errno;
                return NowNs() - t0;
              });
}

Primitive SetTime() {
  Primitive p;
  p.group = Group::kTimer;
  p.id = "timer.settime";
  p.title = "timer arm";
  p.calls = "timer_settime() (one second ahead, re-armed each time)";
  p.run = [](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    sigevent sev = NoSignal();
    Timer t(sev);
    if (t.err != 0) return MakeError("timer_create", t.err);
    const timer_t id = t.id;
    return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                   [id]() -> int64_t {
                                     itimerspec its{};
                                     its.it_value = Ts(1000000000);
                                     const int64_t t0 = NowNs();
                                     if (::timer_settime(id, 0, &its, nullptr) != 0) return -errno;
                                     return NowNs() - t0;
                                   }),
                       "timer_settime");
  };
  return p;
}

// A periodic timer aimed at this thread (SIGEV_THREAD_ID) for `c.timer_run_ns`. Each sample
// is |interval - period| between two wake-ups, the first measured from the arming.
Primitive Health(int64_t period_ns) {
  Primitive p;
  p.group = Group::kTimer;
  p.id = "timer.health." + std::to_string(period_ns / 1000000) + "ms";
  p.title = "periodic timer every " + std::to_string(period_ns / 1000000) + " ms: interval error";
  p.calls = "timer_settime(interval); sigtimedwait(); |interval - period|";
  p.quick_equal = true;
  p.run = [period_ns](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    ScopedBlock block(TimerSignal());
    sigevent sev{};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = TimerSignal();
    sev._sigev_un._tid = ::gettid();  // sigev_notify_thread_id (sigevent(3type)); glibc 2.36 lacks the macro
    Timer t(sev);
    if (t.err != 0) return MakeError("timer_create(SIGEV_THREAD_ID)", t.err);
    TestOutcome o;
    o.period_ns = period_ns;
    itimerspec its{};
    its.it_value = Ts(period_ns);
    its.it_interval = Ts(period_ns);
    const sigset_t& set = block.Set();
    const int64_t start = NowNs();
    if (::timer_settime(t.id, 0, &its, nullptr) != 0) return MakeError("timer_settime", errno);
    int64_t prev = start;
    for (;;) {
      siginfo_t si;
      // Bounded: on PREEMPT_RT a POSIX timer expires in the ktimers thread (SCHED_FIFO 1), so
      // a real-time load on this CPU, at any rank above it, holds every expiry back while it
      // runs. A wait past kTimerStallNs ends the run with that wait as its last sample and the
      // expirations it covered counted as lost, instead of waiting on the load for ever.
      const int64_t left = prev + period_ns + kTimerStallNs - NowNs();
      const timespec limit = Ts(std::max<int64_t>(left, 0));
      if (::sigtimedwait(&set, &si, &limit) < 0) {
        if (errno == EINTR && c.stop != nullptr && c.stop->load(std::memory_order_relaxed)) break;
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return MakeError("sigtimedwait", errno);
        const int64_t now = NowNs();
        const StalledWait stalled = JudgeStalledWait(prev, now, period_ns);
        s.Record(stalled.last_sample_ns);
        o.overruns += stalled.lost;
        prev = now;
        break;
      }
      const int64_t now = NowNs();
      s.Record(std::llabs(now - prev - period_ns));
      prev = now;
      ++o.wakeups;
      const int over = ::timer_getoverrun(t.id);
      if (over > 0) o.overruns += static_cast<uint64_t>(over);
      if (now - start >= c.timer_run_ns || s.size() >= s.capacity()) break;
      if (c.stop != nullptr && c.stop->load(std::memory_order_relaxed)) break;
    }
    o.elapsed_ns = prev - start;
    return o;
  };
  return p;
}

}  // namespace

StalledWait JudgeStalledWait(int64_t prev_ns, int64_t now_ns, int64_t period_ns) {
  StalledWait w;
  w.last_sample_ns = now_ns - prev_ns - period_ns;
  w.lost = period_ns > 0 && now_ns > prev_ns ? static_cast<uint64_t>((now_ns - prev_ns) / period_ns) : 0;
  return w;
}

const std::vector<int64_t>& TimerHealthPeriodsNs() {
  static const std::vector<int64_t> periods = {2000000, 10000000};
  return periods;
}

std::vector<Primitive> TimerTests() {
  std::vector<Primitive> out = {CreateDelete(), SetTime()};
  for (int64_t period : TimerHealthPeriodsNs()) out.push_back(Health(period));
  return out;
}

}  // namespace rtagent::bench
