#include "bench/sync_primitives.h"

#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#include <cerrno>

namespace rtagent::bench {
namespace {

std::string ProtocolName(int protocol) {
  switch (protocol) {
    case PTHREAD_PRIO_INHERIT: return "inherit";
    case PTHREAD_PRIO_PROTECT: return "protect";
    default: return "none";
  }
}

std::string ProtocolText(int protocol) {
  switch (protocol) {
    case PTHREAD_PRIO_INHERIT: return "PTHREAD_PRIO_INHERIT";
    case PTHREAD_PRIO_PROTECT: return "PTHREAD_PRIO_PROTECT";
    default: return "no protocol";
  }
}

// A mutex of one protocol, destroyed on every exit path. A PROTECT mutex's ceiling is one
// rank above the measuring thread, so both sides of a hand-off may lock it.
struct Mutex {
  pthread_mutex_t m;
  int err = 0;
  Mutex(int protocol, int ceiling) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    err = pthread_mutexattr_setprotocol(&a, protocol);
    if (err == 0 && protocol == PTHREAD_PRIO_PROTECT) err = pthread_mutexattr_setprioceiling(&a, ceiling);
    if (err == 0) err = pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
  }
  ~Mutex() {
    if (err == 0) pthread_mutex_destroy(&m);
  }
};

// Waits (yielding) until `seq` moves past `last`; false after kPeerTimeoutNs.
bool AwaitSeq(const std::atomic<uint32_t>& seq, uint32_t last, int64_t since) {
  while (seq.load() == last) {
    if (NowNs() - since > kPeerTimeoutNs) return false;
    ::sched_yield();
  }
  return true;
}

Primitive TryLockHeld() {
  Primitive p;
  p.group = Group::kSync;
  p.id = "sync.mutex.trylock";
  p.title = "mutex trylock of a locked mutex";
  p.calls = "pthread_mutex_trylock() -> EBUSY";
  p.run = [](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    Mutex m(PTHREAD_PRIO_NONE, 0);
    if (m.err != 0) return MakeError("pthread_mutex_init", m.err);
    pthread_mutex_lock(&m.m);
    const int err = MeasureLoop(c.budget, s, c.stop, [&m]() -> int64_t {
      const int64_t t0 = NowNs();
      const int r = pthread_mutex_trylock(&m.m);
      const int64_t t1 = NowNs();
      return r == EBUSY ? t1 - t0 : -(r == 0 ? EDEADLK : r);
    });
    pthread_mutex_unlock(&m.m);
    return LoopOutcome(err, "pthread_mutex_trylock");
  };
  return p;
}

Primitive LockUnlock(int protocol) {
  Primitive p;
  p.group = Group::kSync;
  p.id = "sync.mutex.lock_unlock." + ProtocolName(protocol);
  p.title = "mutex lock + unlock, uncontended (" + ProtocolText(protocol) + ")";
  p.calls = "pthread_mutex_lock(); pthread_mutex_unlock()";
  p.run = [protocol](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    if (protocol == PTHREAD_PRIO_PROTECT && !c.Ranked()) {
      return Skipped("PTHREAD_PRIO_PROTECT raises the holder to a real-time ceiling: it needs SCHED_FIFO (run as root)");
    }
    Mutex m(protocol, Shifted(c.sched, +1).priority);
    if (m.err != 0) return MakeError("pthread_mutex_init with " + ProtocolText(protocol), m.err);
    return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                   [&m]() -> int64_t {
                                     const int64_t t0 = NowNs();
                                     if (const int r = pthread_mutex_lock(&m.m)) return -r;
                                     if (const int r = pthread_mutex_unlock(&m.m)) return -r;
                                     return NowNs() - t0;
                                   }),
                       "pthread_mutex_lock/unlock");
  };
  return p;
}

struct HandoffShared {
  std::atomic<uint32_t> stop{0};
  std::atomic<uint32_t> seq{0};       // hand-offs of the mutex the waiter has stamped
  std::atomic<uint32_t> gate_seq{0};  // times it took the gate
  std::atomic<int64_t> stamp_ns{0};
};

// A contended hand-off to a waiter one rank above: we hold the mutex, it waits in
// pthread_mutex_lock(); one sample runs from our unlock to its return from lock. A second,
// plain mutex (the gate) holds it back while we take the mutex again for the next round.
Primitive Handoff(int protocol) {
  Primitive p;
  p.group = Group::kSync;
  p.id = "sync.mutex.handoff." + ProtocolName(protocol);
  p.title = "mutex hand-off to a higher-ranked waiter (" + ProtocolText(protocol) + ")";
  p.calls = "pthread_mutex_unlock() -> the waiter returns from pthread_mutex_lock()";
  p.peer = PeerKind::kThread;
  p.run = [protocol](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    if (!c.Ranked()) {
      return Skipped("a hand-off to a higher-ranked waiter needs SCHED_FIFO or SCHED_RR ranks (run as root)");
    }
    Mutex m(protocol, Shifted(c.sched, +1).priority), gate(PTHREAD_PRIO_NONE, 0);
    if (m.err != 0) return MakeError("pthread_mutex_init with " + ProtocolText(protocol), m.err);
    if (gate.err != 0) return MakeError("pthread_mutex_init", gate.err);
    HandoffShared h;
    pthread_mutex_lock(&m.m);
    pthread_mutex_lock(&gate.m);
    auto serve = [&m, &gate, &h]() -> int {
      for (;;) {
        if (const int r = pthread_mutex_lock(&m.m)) return r;
        const int64_t t = NowNs();
        if (h.stop.load()) return pthread_mutex_unlock(&m.m);
        h.stamp_ns.store(t);
        h.seq.fetch_add(1);
        pthread_mutex_unlock(&m.m);
        pthread_mutex_lock(&gate.m);
        h.gate_seq.fetch_add(1);
        pthread_mutex_unlock(&gate.m);
      }
    };
    auto round = [&m, &gate, &h](Peer&) {
      return [&m, &gate, &h]() -> int64_t {
        const uint32_t last = h.seq.load(), last_gate = h.gate_seq.load();
        const int64_t t0 = NowNs();
        if (const int r = pthread_mutex_unlock(&m.m)) return -r;
        if (!AwaitSeq(h.seq, last, t0)) return -ETIMEDOUT;
        const int64_t sample = h.stamp_ns.load() - t0;
        if (const int r = pthread_mutex_lock(&m.m)) return -r;
        pthread_mutex_unlock(&gate.m);
        if (!AwaitSeq(h.gate_seq, last_gate, NowNs())) return -ETIMEDOUT;
        pthread_mutex_lock(&gate.m);
        return sample;
      };
    };
    auto stop = [&m, &h](Peer&) {
      h.stop.store(1);
      pthread_mutex_unlock(&m.m);
    };
    auto r = WithPeer(c, s, PeerKind::kThread, Shifted(c.sched, +1), serve, round, stop, "mutex hand-off");
    pthread_mutex_unlock(&gate.m);
    return r;
  };
  return p;
}

// A semaphore at 0, unnamed (in memory a forked peer shares) or named (sem_open, the name
// unlinked at once), given back on every exit path.
struct Semaphore {
  SharedBlock<sem_t> block;
  sem_t* sem = nullptr;
  bool named = false;
  int err = 0;
  Semaphore(bool is_named, bool pshared) : named(is_named) {
    if (!named) {
      if (::sem_init(&*block, pshared ? 1 : 0, 0) == 0) sem = &*block;
      else err = errno;
      return;
    }
    const std::string name = "/rtagent-bench-" + std::to_string(::getpid());
    sem = ::sem_open(name.c_str(), O_CREAT | O_EXCL, 0600, 0);
    if (sem == SEM_FAILED) {
      err = errno;
      sem = nullptr;
    }
    ::sem_unlink(name.c_str());
  }
  ~Semaphore() {
    if (sem == nullptr) return;
    if (named) ::sem_close(sem);
    else ::sem_destroy(sem);
  }
};

int SemWait(sem_t* sem) {
  while (::sem_wait(sem) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

Primitive Sem(bool named, const std::string& what, std::optional<PeerKind> peer) {
  const std::string kind = named ? "named" : "unnamed";
  Primitive p;
  p.group = Group::kSync;
  p.id = "sync.sem." + kind + "." + what + (peer ? "." + PeerKindName(*peer) : "");
  p.peer = peer;
  if (what == "trywait") {
    p.title = kind + " semaphore trywait at 0";
    p.calls = "sem_trywait() -> EAGAIN";
  } else if (what == "post_wait") {
    p.title = kind + " semaphore post + wait in one thread";
    p.calls = "sem_post(); sem_wait()";
  } else {
    p.title = kind + " semaphore wake-up of a higher-ranked " + PeerKindName(*peer);
    p.calls = "sem_post() -> the waiter returns from sem_wait()";
  }
  p.run = [named, what, peer](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    Semaphore sem(named, peer == PeerKind::kProcess);
    if (sem.sem == nullptr) return MakeError(std::string(named ? "sem_open" : "sem_init"), sem.err);
    sem_t* sp = sem.sem;
    if (what == "trywait") {
      return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                     [sp]() -> int64_t {
                                       const int64_t t0 = NowNs();
                                       const int r = ::sem_trywait(sp);
                                       const int e = errno;
                                       const int64_t t1 = NowNs();
                                       return r != 0 && e == EAGAIN ? t1 - t0 : -(r == 0 ? EDEADLK : e);
                                     }),
                         "sem_trywait");
    }
    if (what == "post_wait") {
      return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                     [sp]() -> int64_t {
                                       const int64_t t0 = NowNs();
                                       if (::sem_post(sp) != 0) return -errno;
                                       if (const int e = SemWait(sp)) return -e;
                                       return NowNs() - t0;
                                     }),
                         "sem_post/sem_wait");
    }
    return WakeUpTest(
        c, s, *peer, [sp] { return SemWait(sp); }, [sp](Peer&) { return ::sem_post(sp) == 0 ? 0 : errno; },
        "semaphore wake-up");
  };
  return p;
}

}  // namespace

std::vector<Primitive> SyncTests() {
  std::vector<Primitive> out;
  out.push_back(TryLockHeld());
  for (int protocol : {PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT, PTHREAD_PRIO_PROTECT}) out.push_back(LockUnlock(protocol));
  for (int protocol : {PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT, PTHREAD_PRIO_PROTECT}) out.push_back(Handoff(protocol));
  for (bool named : {false, true}) {
    out.push_back(Sem(named, "trywait", std::nullopt));
    out.push_back(Sem(named, "post_wait", std::nullopt));
    out.push_back(Sem(named, "wake", PeerKind::kThread));
    out.push_back(Sem(named, "wake", PeerKind::kProcess));
  }
  return out;
}

}  // namespace rtagent::bench
