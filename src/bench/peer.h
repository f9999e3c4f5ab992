// The other side of a two-party benchmark test: a thread or a forked process on the measured
// CPU at a chosen rank, and the memory both sides share (across fork too). The measuring
// thread stays the process's only thread while it forks: peers are started one at a time.
#pragma once

#include <sys/mman.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "base/result.h"
#include "latency/sampler_syscalls.h"

namespace rtagent::bench {

/// Where the other side of a test runs.
enum class PeerKind { kThread, kProcess };
/// "thread", "process".
std::string PeerKindName(PeerKind k);

/// `s` moved `delta` ranks: SCHED_FIFO/SCHED_RR priorities shift (clamped to 1..99); other
/// classes have no rank and stay as they are.
SchedState Shifted(const SchedState& s, int delta);

/// Pins the calling thread to `cpu` and gives it `s` (SCHED_OTHER also resets nice to 0),
/// through pthread_setschedparam so that glibc's idea of the thread's rank stays true. A
/// process's only thread (a forked peer) may call it too. 0 or the errno.
int PlaceCallingThread(int cpu, const SchedState& s);

/// Blocks while `*word` == `expected` (FUTEX_WAIT, shared between processes when the word
/// lives in a SharedBlock). Returns at once when it differs; spurious returns are possible.
void FutexWait(std::atomic<uint32_t>* word, uint32_t expected);
/// Wakes every waiter on `word`.
void FutexWake(std::atomic<uint32_t>* word);

/// One T in memory shared by the measuring thread and its peers, thread or forked process
/// (MAP_SHARED | MAP_ANONYMOUS, so fork(2) shares it instead of copying it). T must be
/// usable from both sides without pointers into either's private memory.
template <typename T>
class SharedBlock {
 public:
  SharedBlock() {
    void* p = ::mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    value_ = new (p) T();
  }
  ~SharedBlock() {
    value_->~T();
    ::munmap(value_, sizeof(T));
  }
  SharedBlock(const SharedBlock&) = delete;
  SharedBlock& operator=(const SharedBlock&) = delete;
  T* operator->() { return value_; }
  T& operator*() { return *value_; }

 private:
  T* value_ = nullptr;
};

/// The other side of a test: started on `cpu` at `sched`, it runs `body` once and ends with
/// the errno body returns (0 for success). Start() returns once it has placed itself, so a
/// class the kernel refuses is Start()'s error. A process peer dies with its parent
/// (PR_SET_PDEATHSIG); dropping a peer that was not joined kills a process peer and joins a
/// thread peer (whose body must then be able to end).
class Peer {
 public:
  /// `lock_memory`: a process peer calls mlockall(MCL_CURRENT | MCL_FUTURE) before placing
  /// itself, as the measuring process did (fork does not inherit the lock).
  static Result<std::unique_ptr<Peer>> Start(PeerKind kind, int cpu, const SchedState& sched, bool lock_memory,
                                             std::function<int()> body);
  ~Peer();
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  /// The peer's thread id (a process peer's only thread): where tgkill(2) reaches it.
  pid_t Tid() const;
  /// Its process id (the measuring process's own for a thread peer).
  pid_t Pid() const;
  /// Waits for its end; the error names the errno its body returned or how the process ended.
  Result<void> Join();

 private:
  struct Control;
  Peer(PeerKind kind, std::function<int()> body);
  static void* ThreadMain(void* self);
  static int Run(Control& c, int cpu, const SchedState& sched, bool lock_memory, const std::function<int()>& body);

  PeerKind kind_;
  std::function<int()> body_;
  SharedBlock<Control>* control_ = nullptr;
  unsigned long thread_ = 0;
  pid_t pid_ = 0;
  bool joined_ = true;
  int cpu_ = 0;
  SchedState sched_;
  bool lock_memory_ = false;
};

}  // namespace rtagent::bench
