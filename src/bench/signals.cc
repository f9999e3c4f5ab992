#include "bench/signals.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "bench/signal_lease.h"

namespace rtagent::bench {
namespace {

void EmptyHandler(int) {}

int Tgkill(pid_t pid, pid_t tid, int sig) { return ::syscall(SYS_tgkill, pid, tid, sig) == 0 ? 0 : errno; }

// Waits in sigsuspend with the handler's signal let through; it stays blocked otherwise, so
// a signal sent while this thread is not waiting is kept until it is.
int SuspendForHandler() {
  sigset_t waiting;
  ::pthread_sigmask(SIG_BLOCK, nullptr, &waiting);
  sigdelset(&waiting, HandlerSignal());
  ::sigsuspend(&waiting);  // returns -1 EINTR once the handler ran
  return 0;
}

Primitive Delivery(std::optional<PeerKind> peer) {
  Primitive p;
  p.group = Group::kSignal;
  p.id = "signal." + (peer ? PeerKindName(*peer) : std::string("self"));
  p.title = peer ? "signal to a handler in another " + PeerKindName(*peer) + " (one rank above)"
                 : std::string("signal to a handler in the same thread");
  p.calls = peer ? "tgkill() -> the handler ran and sigsuspend() returned" : "tgkill() to itself, handler run on return";
  p.peer = peer;
  p.run = [peer](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    ScopedHandler handler(HandlerSignal(), &EmptyHandler);
    if (handler.Error() != 0) return MakeError("sigaction", handler.Error());
    if (!peer) {
      const pid_t pid = ::getpid(), tid = ::gettid();
      return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                     [pid, tid]() -> int64_t {
                                       const int64_t t0 = NowNs();
                                       if (const int e = Tgkill(pid, tid, HandlerSignal())) return -e;
                                       return NowNs() - t0;
                                     }),
                         "signal to itself");
    }
    // Blocked here before the peer starts: the peer inherits the block and lets the signal in
    // only inside sigsuspend.
    ScopedBlock block(HandlerSignal());
    return WakeUpTest(
        c, s, *peer, &SuspendForHandler, [](Peer& to) { return Tgkill(to.Pid(), to.Tid(), HandlerSignal()); },
        "signal delivery");
  };
  return p;
}

}  // namespace

std::vector<Primitive> SignalTests() {
  return {Delivery(std::nullopt), Delivery(PeerKind::kThread), Delivery(PeerKind::kProcess)};
}

}  // namespace rtagent::bench
