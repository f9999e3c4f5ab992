#include "bench/notifications.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

#include "bench/signal_lease.h"

namespace rtagent::bench {
namespace {

int WriteOne(int fd) {
  const uint64_t one = 1;
  return ::write(fd, &one, sizeof one) == static_cast<ssize_t>(sizeof one) ? 0 : errno;
}

int ReadCounter(int fd) {
  uint64_t v = 0;
  for (;;) {
    if (::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v)) return 0;
    if (errno != EINTR) return errno;
  }
}

// An eventfd closed on every exit path.
struct EventFd {
  int fd = ::eventfd(0, EFD_CLOEXEC);
  ~EventFd() {
    if (fd >= 0) ::close(fd);
  }
};

Primitive EventfdPulse(std::optional<PeerKind> peer) {
  Primitive p;
  p.group = Group::kNotify;
  p.id = "notify.eventfd." + (peer ? PeerKindName(*peer) : std::string("self"));
  p.title = "eventfd " + (peer ? "to another " + PeerKindName(*peer) + " (one rank above)" : std::string("in the same thread"));
  p.calls = peer ? "write() -> the waiter returns from read()" : "write(); read()";
  p.peer = peer;
  p.run = [peer](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    EventFd e;
    if (e.fd < 0) return MakeError("eventfd", errno);
    const int fd = e.fd;
    if (!peer) {
      return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                     [fd]() -> int64_t {
                                       const int64_t t0 = NowNs();
                                       if (const int err = WriteOne(fd)) return -err;
                                       if (const int err = ReadCounter(fd)) return -err;
                                       return NowNs() - t0;
                                     }),
                         "eventfd write/read");
    }
    return WakeUpTest(
        c, s, *peer, [fd] { return ReadCounter(fd); }, [fd](Peer&) { return WriteOne(fd); }, "eventfd notification");
  };
  return p;
}

Primitive SignalPulse(std::optional<PeerKind> peer) {
  Primitive p;
  p.group = Group::kNotify;
  p.id = "notify.signal." + (peer ? PeerKindName(*peer) : std::string("self"));
  p.title = "real-time signal " +
            (peer ? "to another " + PeerKindName(*peer) + " (one rank above)" : std::string("in the same thread"));
  p.calls = peer ? "rt_tgsigqueueinfo() -> the waiter returns from sigwaitinfo()" : "rt_tgsigqueueinfo(); sigwaitinfo()";
  p.peer = peer;
  p.run = [peer](const TestContext& c, SampleBuffer& s) -> Result<TestOutcome> {
    // Blocked before any peer starts, so the peer inherits the block and the signal waits
    // for sigwaitinfo instead of killing it (the default action of a real-time signal).
    ScopedBlock block(NotifySignal());
    const sigset_t set = block.Set();
    auto wait = [set]() -> int {
      siginfo_t si;
      while (::sigwaitinfo(&set, &si) < 0) {
        if (errno != EINTR) return errno;
      }
      return 0;
    };
    if (!peer) {
      const pid_t pid = ::getpid(), tid = ::gettid();
      return LoopOutcome(MeasureLoop(c.budget, s, c.stop,
                                     [pid, tid, wait, n = 0]() mutable -> int64_t {
                                       const int64_t t0 = NowNs();
                                       if (const int err = SendRtSignal(pid, tid, NotifySignal(), ++n)) return -err;
                                       if (const int err = wait()) return -err;
                                       return NowNs() - t0;
                                     }),
                         "real-time signal to itself");
    }
    return WakeUpTest(
        c, s, *peer, wait,
        [n = 0](Peer& to) mutable { return SendRtSignal(to.Pid(), to.Tid(), NotifySignal(), ++n); },
        "real-time signal notification");
  };
  return p;
}

}  // namespace

std::vector<Primitive> NotifyTests() {
  return {EventfdPulse(std::nullopt),       EventfdPulse(PeerKind::kThread), EventfdPulse(PeerKind::kProcess),
          SignalPulse(std::nullopt),        SignalPulse(PeerKind::kThread),  SignalPulse(PeerKind::kProcess)};
}

}  // namespace rtagent::bench
