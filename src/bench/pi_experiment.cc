#include "bench/pi_experiment.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "bench/peer.h"
#include "bench/samples.h"
#include "report/format.h"

namespace rtagent::bench {
namespace {

// The first period starts this long after the threads are made, so all three wait for it.
constexpr int64_t kStartDelayNs = 50000000;

void SleepUntil(int64_t t_ns) {
  const timespec ts{static_cast<time_t>(t_ns / 1000000000), static_cast<long>(t_ns % 1000000000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// Between two clock reads a burn spins this many rounds, doubled while a round trip takes
// less than kChunkMinNs and halved above kChunkMaxNs: a clock read every 5-20 µs, well inside
// WorkMeter::kMaxGapNs. Where the clock is a device (HPET under QEMU, each read a trip into the
// emulator), reading it without pause made the device's lock the busiest thing in the guest.
constexpr int64_t kChunkMinNs = 5000;
constexpr int64_t kChunkMaxNs = 20000;

// `ns` of this thread's time on the CPU (the codelab's calibrated loop, measured instead of
// calibrated); `progress`, when given, adds up what every burn of this thread counted. True when
// the wall-clock cap ended it first.
bool Burn(int64_t ns, std::atomic<int64_t>* progress = nullptr) {
  WorkMeter meter(ns, NowNs());
  int64_t counted = 0;
  int64_t last = NowNs();
  uint32_t rounds = 1;
  for (;;) {
    for (uint32_t i = 0; i < rounds; ++i) asm volatile("" ::: "memory");  // kept: a round the compiler cannot drop
    const int64_t now = NowNs();
    const int64_t gap = now - last;
    last = now;
    if (gap < kChunkMinNs && rounds < (1u << 24)) {
      rounds *= 2;
    } else if (gap > kChunkMaxNs && gap <= WorkMeter::kMaxGapNs && rounds > 1) {
      rounds /= 2;
    }
    const bool done = meter.Observe(now);
    if (progress != nullptr && meter.worked_ns() != counted) {
      progress->fetch_add(meter.worked_ns() - counted, std::memory_order_relaxed);
      counted = meter.worked_ns();
    }
    if (done) return meter.capped();
  }
}

struct Period {
  bool ran = false;
  bool contended = false;  // the high thread's trylock found the mutex held
  int64_t response_ns = 0;
  int64_t block_ns = 0;
  int64_t medium_ns = 0;
};

// Whether the caller asked the experiment to stop (Ctrl-C).
bool StopAsked(const PiOptions& o) { return o.stop != nullptr && o.stop->load(); }

// The three threads of one mode's run and what they share: the mutex, the periods' start
// (t0), each period's figures and the medium thread's CPU clock.
struct PiRun {
  const PiOptions& o;
  pthread_mutex_t& m;
  int64_t t0;
  std::vector<Period> periods;
  std::atomic<int64_t> medium_work{0};  // the medium thread's work so far (WorkMeter)
  std::atomic<int> low_tid{0};
  std::atomic<int> capped{0};  // burns the cap ended, all three threads'

  bool Stopped() const { return StopAsked(o); }
  int64_t PeriodStart(int k) const { return t0 + k * o.timing.period_ns; }

  // Takes the mutex at each period's start and holds it for its work.
  int Low() {
    ::prctl(PR_SET_NAME, "rtagent-pi-low");
    low_tid.store(static_cast<int>(::gettid()));
    for (int k = 0; k < o.periods && !Stopped(); ++k) {
      SleepUntil(PeriodStart(k));
      if (const int e = pthread_mutex_lock(&m)) return e;
      if (Burn(o.timing.low_work_ns)) ++capped;
      pthread_mutex_unlock(&m);
    }
    return 0;
  }
  // Burns the CPU from a moment after the low thread took the mutex, needing no lock.
  int Medium() {
    ::prctl(PR_SET_NAME, "rtagent-pi-mid");
    for (int k = 0; k < o.periods && !Stopped(); ++k) {
      SleepUntil(PeriodStart(k) + o.timing.medium_start_ns);
      if (Burn(o.timing.medium_work_ns, &medium_work)) ++capped;
    }
    return 0;
  }
  // Wants the mutex while the low thread holds it; measures its wait and how long the medium
  // thread ran meanwhile.
  int High() {
    ::prctl(PR_SET_NAME, "rtagent-pi-high");
    for (int k = 0; k < o.periods && !Stopped(); ++k) {
      SleepUntil(PeriodStart(k) + o.timing.high_start_ns);
      const int64_t asked = NowNs();
      const int64_t medium_before = medium_work.load(std::memory_order_relaxed);
      // A try first tells a contended request from one that found the mutex free (the low
      // thread already done): only the first kind tests the protocol.
      const int tried = pthread_mutex_trylock(&m);
      const bool contended = tried == EBUSY;
      if (tried != 0 && tried != EBUSY) return tried;
      if (contended) {
        if (const int e = pthread_mutex_lock(&m)) return e;
      }
      const int64_t got = NowNs();
      const int64_t medium_after = medium_work.load(std::memory_order_relaxed);
      if (Burn(o.timing.high_work_ns)) ++capped;
      pthread_mutex_unlock(&m);
      Period& p = periods[static_cast<size_t>(k)];
      p.ran = true;
      p.contended = contended;
      p.response_ns = NowNs() - asked;
      p.block_ns = got - asked;
      p.medium_ns = medium_after - medium_before;
    }
    return 0;
  }
};

// The periods that ran, counted and their worst figures kept.
void Summarize(const std::vector<Period>& periods, const PiTiming& t, PiModeResult& r) {
  for (const Period& p : periods) {
    if (!p.ran) continue;
    ++r.periods;
    if (p.response_ns > t.deadline_ns) ++r.misses;
    if (p.medium_ns > 0) ++r.inversions;
    if (p.contended) ++r.contended;
    r.worst_response_ns = std::max(r.worst_response_ns, p.response_ns);
    r.worst_block_ns = std::max(r.worst_block_ns, p.block_ns);
    r.worst_medium_ns = std::max(r.worst_medium_ns, p.medium_ns);
  }
}

Result<PiModeResult> RunMode(const PiOptions& o, int protocol) {
  PiModeResult r;
  r.protocol = protocol == PTHREAD_PRIO_INHERIT ? "inherit" : "none";
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setprotocol(&attr, protocol);
  pthread_mutex_t m;
  const int init = pthread_mutex_init(&m, &attr);
  pthread_mutexattr_destroy(&attr);
  if (init != 0) return MakeError("pthread_mutex_init (" + r.protocol + ")", init);

  PiRun run{o, m, NowNs() + kStartDelayNs, std::vector<Period>(static_cast<size_t>(o.periods))};
  // Lowest first: each one placed before the next, none running before t0.
  std::vector<std::unique_ptr<Peer>> threads;
  int rank = o.priority - 2;
  Error failed;
  const std::function<int()> bodies[] = {[&run] { return run.Low(); }, [&run] { return run.Medium(); },
                                         [&run] { return run.High(); }};
  for (const auto& body : bodies) {
    auto p = Peer::Start(PeerKind::kThread, o.cpu, {SCHED_FIFO, rank++}, false, body);
    if (!p) {
      failed = p.error();
      break;
    }
    threads.push_back(std::move(*p));
  }
  Result<void> joined = Ok();
  for (auto& th : threads) {
    if (auto j = th->Join(); !j && joined.ok()) joined = j;
  }
  pthread_mutex_destroy(&m);
  if (threads.size() < 3) return failed;
  if (!joined) return joined.error();

  r.low_tid = run.low_tid.load();
  r.low_tids = {r.low_tid};
  r.attempts = 1;
  r.capped = run.capped.load();
  Summarize(run.periods, o.timing, r);
  return r;
}

std::string ModeLine(const PiModeResult& m, const PiTiming& t) {
  return std::to_string(m.misses) + " of " + std::to_string(m.periods) + " requests missed the " +
         FormatNsShort(t.deadline_ns) + " deadline (slowest " + FormatNsShort(m.worst_response_ns) + ", waited for the lock up to " +
         FormatNsShort(m.worst_block_ns) + "; the medium thread ran during the wait in " + std::to_string(m.inversions) +
         " of them, up to " + FormatNsShort(m.worst_medium_ns) + ")";
}

}  // namespace

int64_t WorkMeter::CapNs(int64_t work_ns) {
  constexpr int64_t kFloorNs = 1000000000;
  return std::max(kFloorNs, 100 * work_ns);
}

WorkMeter::WorkMeter(int64_t work_ns, int64_t start_ns)
    : work_(work_ns), start_(start_ns), cap_(CapNs(work_ns)), last_(start_ns) {}

bool WorkMeter::Observe(int64_t now_ns) {
  const int64_t gap = now_ns - last_;
  if (gap > 0 && gap <= kMaxGapNs) worked_ += gap;
  if (now_ns > last_) last_ = now_ns;
  return worked_ >= work_ || last_ - start_ >= cap_;
}

std::string VerdictName(PiJudgement::Verdict v) {
  switch (v) {
    case PiJudgement::Verdict::kPass: return "PASS";
    case PiJudgement::Verdict::kFail: return "FAIL";
    case PiJudgement::Verdict::kInconclusive: return "INCONCLUSIVE";
  }
  return "?";
}

void MergePiRuns(PiModeResult& into, const PiModeResult& more) {
  into.periods += more.periods;
  into.misses += more.misses;
  into.inversions += more.inversions;
  into.contended += more.contended;
  into.attempts += more.attempts;
  into.capped += more.capped;
  into.worst_response_ns = std::max(into.worst_response_ns, more.worst_response_ns);
  into.worst_block_ns = std::max(into.worst_block_ns, more.worst_block_ns);
  into.worst_medium_ns = std::max(into.worst_medium_ns, more.worst_medium_ns);
  if (into.low_tid == 0) into.low_tid = more.low_tid;
  into.low_tids.insert(into.low_tids.end(), more.low_tids.begin(), more.low_tids.end());
}

PiJudgement JudgePi(const PiResult& r) {
  using V = PiJudgement::Verdict;
  const std::string none = "plain mutex: " + ModeLine(r.none, r.timing);
  const std::string inherit = "PTHREAD_PRIO_INHERIT: " + ModeLine(r.inherit, r.timing);
  if (r.none.out_of_time || r.inherit.out_of_time) {
    return {V::kInconclusive,
            "the experiment's time limit of " + FormatNsShort(r.time_limit_ns) +
                " ended its repeated runs before a period found the lock held, after " +
                std::to_string(r.none.periods) + (r.none.periods == 1 ? " period" : " periods") +
                " with the plain mutex and " + std::to_string(r.inherit.periods) +
                " with PTHREAD_PRIO_INHERIT: its periods of " + FormatNsShort(r.timing.period_ns) +
                " ran far longer (the slowest request took " +
                FormatNsShort(std::max(r.none.worst_response_ns, r.inherit.worst_response_ns)) + "), so on CPU " +
                std::to_string(r.cpu) + " the threads' wake-ups lagged or something else held the CPU (on a "
                "virtual machine, the hypervisor). " + none + "; " + inherit};
  }
  if (r.inherit.periods == 0 || r.none.periods == 0) {
    return {V::kInconclusive, "the experiment did not run to a single period (interrupted)"};
  }
  for (const PiModeResult* m : {&r.none, &r.inherit}) {
    if (m->contended == 0) {
      return {V::kInconclusive,
              "with the " + std::string(m == &r.none ? "plain mutex" : "PTHREAD_PRIO_INHERIT mutex") +
                  ", the high thread never found the lock held in " + std::to_string(m->periods) + " periods (" +
                  std::to_string(m->attempts) + " runs): the low thread was always done first, so the protocol "
                  "was never tested (late timer wake-ups, as on an emulated CPU, do this). " + none + "; " + inherit};
    }
  }
  if (r.inherit.inversions > 0) {
    return {V::kFail, "priority inheritance did not hold: the medium thread still ran while the high one waited. " +
                          inherit + "; " + none};
  }
  if (r.none.capped > 0 || r.inherit.capped > 0) {
    return {V::kInconclusive,
            std::to_string(r.none.capped + r.inherit.capped) + " of the threads' burns ran into their wall-clock cap "
            "(100 times their work, at least 1 s) before their work was counted: on CPU " + std::to_string(r.cpu) +
            " the clock reads came more than " + FormatNsShort(WorkMeter::kMaxGapNs) + " apart, so no thread's "
            "time on the CPU could be told from time it waited. " + none + "; " + inherit};
  }
  if (r.none.inversions == 0) {
    return {V::kInconclusive,
            "no inversion happened without inheritance either, so the experiment could not show what inheritance "
            "prevents (were all three threads SCHED_FIFO on one CPU?). " + none + "; " + inherit};
  }
  if (r.inherit.misses > 0) {
    return {V::kInconclusive,
            "inheritance held (the medium thread never ran during a wait), yet deadlines were missed: something "
            "else delayed the high thread (on a virtual machine, the hypervisor). " + inherit + "; " + none};
  }
  return {V::kPass, "priority inheritance works: " + inherit + "; " + none};
}

Result<void> ValidatePiOptions(const PiOptions& o) {
  if (o.priority < 3 || o.priority > 99) {
    return InvalidInput("priority " + std::to_string(o.priority) +
                            " leaves no room for the medium and low threads two ranks below: use 3..99");
  }
  if (o.periods < 1) return InvalidInput("at least one period is needed");
  if (o.cpu < 0) return InvalidInput("CPU " + std::to_string(o.cpu) + " does not exist");
  return Ok();
}

int64_t PiTimeLimitNs(int periods, const PiTiming& timing) {
  constexpr int64_t kFloorNs = 5000000000;
  const int64_t own = 2 * static_cast<int64_t>(std::max(periods, 1)) * timing.period_ns;
  return std::max(kFloorNs, 20 * own);
}

Result<PiResult> RunPiExperiment(const PiOptions& o) {
  if (auto ok = ValidatePiOptions(o); !ok) return ok.error();
  PiResult r;
  r.cpu = o.cpu;
  r.priority = o.priority;
  r.timing = o.timing;
  r.time_limit_ns = o.time_limit_ns > 0 ? o.time_limit_ns : PiTimeLimitNs(o.periods, o.timing);
  for (auto [protocol, into] : {std::pair{PTHREAD_PRIO_NONE, &r.none}, std::pair{PTHREAD_PRIO_INHERIT, &r.inherit}}) {
    const int64_t deadline = NowNs() + r.time_limit_ns / 2;
    for (;;) {
      auto run = RunMode(o, protocol);
      if (!run) return run.error();
      if (into->attempts == 0) {
        *into = *run;
      } else {
        MergePiRuns(*into, *run);
      }
      if (into->contended > 0 || into->attempts >= kPiMaxAttempts || StopAsked(o)) break;
      // No further run begins past the protocol's half of the limit; a run in hand finishes.
      if (NowNs() >= deadline) {
        into->out_of_time = true;
        break;
      }
    }
  }
  r.interrupted = o.stop != nullptr && o.stop->load();
  return r;
}

}  // namespace rtagent::bench
