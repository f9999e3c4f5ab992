#include "bench/switches.h"

#include <sched.h>

namespace rtagent::bench {
namespace {

struct YieldShared {
  std::atomic<uint32_t> stop{0};
  std::atomic<uint32_t> seq{0};     // switches the other side has stamped
  std::atomic<int64_t> stamp_ns{0};  // when it last came back from sched_yield
};

// One sample: from just before our sched_yield() to the other side's return from its own
// (it was queued behind us at the same rank on the same CPU, so it runs next). Outside
// SCHED_FIFO/RR the kernel may pick us again: we yield until it has run.
Primitive YieldTo(PeerKind kind) {
  Primitive p;
  p.group = Group::kSwitch;
  p.id = "switch.yield." + PeerKindName(kind);
  p.title = kind == PeerKind::kThread ? "thread to thread switch" : "process to process switch";
  p.calls = "sched_yield() -> the other side returns from sched_yield()";
  p.peer = kind;
  p.quick_equal = kind == PeerKind::kThread;
  p.run = [kind](const TestContext& c, SampleBuffer& s) {
    SharedBlock<YieldShared> sh;
    YieldShared* y = &*sh;
    auto serve = [y] {
      for (;;) {
        ::sched_yield();
        if (y->stop.load()) return 0;
        y->stamp_ns.store(NowNs());
        y->seq.fetch_add(1);
      }
    };
    auto round = [y](Peer&) {
      return [y, last = uint32_t{0}]() mutable -> int64_t {
        const int64_t t0 = NowNs();
        int64_t stamp = 0;
        // Outside SCHED_FIFO/RR the other side may run on between our rounds and stamp before
        // this round's t0: only a return from sched_yield() after t0 is this round's sample (a
        // negative difference would read as an errno).
        do {
          if (NowNs() - t0 > kPeerTimeoutNs) return -ETIMEDOUT;
          ::sched_yield();
          stamp = y->stamp_ns.load();
        } while (y->seq.load() == last || stamp < t0);
        last = y->seq.load();
        return stamp - t0;
      };
    };
    return WithPeer(c, s, kind, c.sched, serve, round, [y](Peer&) { y->stop.store(1); }, "sched_yield switch");
  };
  return p;
}

}  // namespace

std::vector<Primitive> SwitchTests() {
  return {
      Solo(Group::kSwitch, "switch.yield", "virtual switch (yield with no one to yield to)", "sched_yield()",
           [] {
             const int64_t t0 = NowNs();
             ::sched_yield();
             return NowNs() - t0;
           }),
      YieldTo(PeerKind::kThread),
      YieldTo(PeerKind::kProcess),
  };
}

}  // namespace rtagent::bench
