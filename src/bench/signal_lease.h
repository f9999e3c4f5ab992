// Signals borrowed by the notification, signal and timer tests, and given back: a signal
// blocked in the calling thread, a handler installed process-wide, and queued real-time
// signals aimed at one thread (leases, STYLE.md).
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace rtagent::bench {

/// The real-time signals the tests use: SIGRTMIN + 1 for notifications, + 2 for timers,
/// + 3 for handler delivery (glibc keeps the ones below SIGRTMIN for itself).
int NotifySignal();
int TimerSignal();
int HandlerSignal();

/// Blocks `sig` in the calling thread (threads and processes started from it inherit the
/// block) and puts the thread's previous mask back when it ends.
class ScopedBlock {
 public:
  explicit ScopedBlock(int sig);
  ~ScopedBlock();
  ScopedBlock(const ScopedBlock&) = delete;
  ScopedBlock& operator=(const ScopedBlock&) = delete;
  /// The set holding only the blocked signal (for sigwaitinfo).
  const sigset_t& Set() const { return set_; }

 private:
  sigset_t set_;
  sigset_t old_;
};

/// Installs `handler` for `sig` process-wide (SA_RESTART) and puts the previous action back
/// when it ends.
class ScopedHandler {
 public:
  ScopedHandler(int sig, void (*handler)(int));
  ~ScopedHandler();
  ScopedHandler(const ScopedHandler&) = delete;
  ScopedHandler& operator=(const ScopedHandler&) = delete;
  /// 0, or the errno sigaction(2) refused it with.
  int Error() const { return err_; }

 private:
  int sig_;
  struct sigaction old_ {};
  int err_ = 0;
};

/// Queues `sig` carrying `value` to thread `tid` of process `pid` (rt_tgsigqueueinfo(2), as
/// pthread_sigqueue does but for any process): 0 or the errno.
int SendRtSignal(pid_t pid, pid_t tid, int sig, int value);

}  // namespace rtagent::bench
