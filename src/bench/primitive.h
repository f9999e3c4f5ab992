// One benchmark test ("primitive"): what it times, where its other side runs, and the function
// that measures it; the catalog of every test, in the order of the QNX paper's tables
// (seed 003) with ipcbench's tests (seed 001) among them.
#pragma once

#include <sched.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/peer.h"
#include "bench/samples.h"
#include "latency/sampler_syscalls.h"

namespace rtagent::bench {

/// The groups `--only` selects, in report order.
enum class Group { kKernel, kSwitch, kMessage, kNotify, kSync, kTimer, kSignal, kThread };
/// "kernel", "switch", "message", "notify", "sync", "timer", "signal", "thread".
std::string GroupName(Group g);
/// The paper's heading for a group: "Kernel calls", "Context switches", ...
std::string GroupTitle(Group g);
/// The group called `name`, or nullopt.
std::optional<Group> ParseGroup(const std::string& name);
/// Every group, in report order.
const std::vector<Group>& AllGroups();
/// Their names, in report order: "kernel, switch, ..., thread" (the help text, and the list a
/// wrong --only gets).
std::string GroupNames();

/// Where and how the measuring thread runs a test. It is already pinned to `cpu` in `sched`.
struct TestContext {
  int cpu = 0;
  SchedState sched;             ///< the measuring thread's class; peers take theirs from it
  bool memory_locked = false;   ///< the measuring process holds mlockall (process peers lock too)
  Budget budget;
  int64_t timer_run_ns = 0;     ///< how long each timer-health test runs
  const std::atomic<bool>* stop = nullptr;

  /// True when the class has ranks (SCHED_FIFO or SCHED_RR), so "one rank above" means something.
  bool Ranked() const;
};

/// What a test found besides its samples.
struct TestOutcome {
  std::string skipped;  ///< why it could not run here ("" when it ran)
  // Timer health only (period_ns > 0):
  int64_t period_ns = 0;
  uint64_t wakeups = 0;   ///< wake-ups the thread got
  uint64_t overruns = 0;  ///< expirations lost between them (timer_getoverrun)
  int64_t elapsed_ns = 0;
};

/// One test of the table.
struct Primitive {
  Group group = Group::kKernel;
  std::string id;     ///< stable, for JSON and --compare: "message.pipe.process.1024"
  std::string title;  ///< a row of the table: "pipe round trip"
  std::string calls;  ///< what one sample times: "write(); read() (echo)"
  std::optional<PeerKind> peer;  ///< the other side; nullopt when the measuring thread is alone
  uint32_t payload = 0;          ///< bytes each way; 0 when the primitive carries no data
  bool quick_equal = false;      ///< measured in --quick's equal-priority phase too
  /// Measures into the buffer; an Error when the primitive failed, an outcome with
  /// `skipped` set when it cannot run here.
  std::function<Result<TestOutcome>(const TestContext&, SampleBuffer&)> run;
};

/// Every test, group by group in report order.
std::vector<Primitive> Catalog();

/// A measuring loop's end as a test's result: its errno, if any, becomes an Error naming `what`.
Result<TestOutcome> LoopOutcome(int err, const std::string& what);
/// A test that cannot run here, and why.
TestOutcome Skipped(std::string why);

/// A test of the measuring thread alone: `round` (a MeasureLoop round: the primitive between
/// two clock reads) repeated as the context's budget says.
template <typename Round>
Primitive Solo(Group group, std::string id, std::string title, std::string calls, Round round) {
  Primitive p;
  p.group = group;
  p.id = std::move(id);
  p.title = std::move(title);
  p.calls = std::move(calls);
  p.run = [round, what = p.calls](const TestContext& c, SampleBuffer& s) mutable {
    return LoopOutcome(MeasureLoop(c.budget, s, c.stop, round), what);
  };
  return p;
}

/// A test with another side: starts `serve` as a `kind` peer on the context's CPU at
/// `peer_sched`, measures the round `make_round(peer)` returns, then calls `stop(peer)` (which
/// must make `serve` return) and joins the peer. The errors name `what`.
template <typename MakeRound, typename Stop>
Result<TestOutcome> WithPeer(const TestContext& c, SampleBuffer& s, PeerKind kind, const SchedState& peer_sched,
                             std::function<int()> serve, MakeRound make_round, Stop stop, const std::string& what) {
  auto peer = Peer::Start(kind, c.cpu, peer_sched, c.memory_locked, std::move(serve));
  if (!peer) return Wrap(what + ": ", peer.error());
  const int err = MeasureLoop(c.budget, s, c.stop, make_round(**peer));
  stop(**peer);
  auto joined = (*peer)->Join();
  if (err != 0) return MakeError(what + " failed", err);
  if (!joined) return Wrap(what + ": ", joined.error());
  return TestOutcome{};
}

/// How long a measuring thread waits for its peer to answer before the test fails with
/// ETIMEDOUT (a peer that died, a lost wake-up): far above any timeslice or throttling gap.
inline constexpr int64_t kPeerTimeoutNs = int64_t{10} * 1000000000;

/// What a wake-up test's peer and measuring thread share.
struct WakeShared {
  std::atomic<uint32_t> stop{0};
  std::atomic<uint32_t> seq{0};       ///< wake-ups the peer has stamped
  std::atomic<int64_t> stamp_ns{0};   ///< when it last woke
};

/// A wake-up test: the peer, one rank above the measuring thread (so it preempts it at once
/// under SCHED_FIFO/RR), loops on `wait()` (0 or an errno) and stamps the time it woke; one
/// sample runs from just before `post(peer)` (0 or an errno) to that stamp. Outside the
/// real-time classes the measuring thread yields until the stamp is there.
template <typename Wait, typename Post>
Result<TestOutcome> WakeUpTest(const TestContext& c, SampleBuffer& s, PeerKind kind, Wait wait, Post post,
                               const std::string& what) {
  SharedBlock<WakeShared> block;
  WakeShared* w = &*block;
  auto serve = [w, wait]() mutable -> int {
    for (;;) {
      if (const int e = wait()) return e;
      const int64_t t = NowNs();
      if (w->stop.load()) return 0;
      w->stamp_ns.store(t);
      w->seq.fetch_add(1);
    }
  };
  auto round = [w, post](Peer& p) {
    return [w, post, &p, last = uint32_t{0}]() mutable -> int64_t {
      const int64_t t0 = NowNs();
      if (const int e = post(p)) return -e;
      while (w->seq.load() == last) {
        if (NowNs() - t0 > kPeerTimeoutNs) return -ETIMEDOUT;
        ::sched_yield();
      }
      last = w->seq.load();
      return w->stamp_ns.load() - t0;
    };
  };
  auto stop = [w, post](Peer& p) mutable {
    w->stop.store(1);
    (void)post(p);
  };
  return WithPeer(c, s, kind, Shifted(c.sched, +1), serve, round, stop, what);
}

/// "4 B", "64 B", "1 KiB", "16 KiB", "64 KiB".
std::string PayloadText(uint32_t bytes);
/// The payloads of the paper's and ipcbench's message tests: 4 B, 64 B, 1 KiB, 16 KiB, 64 KiB.
const std::vector<uint32_t>& MessagePayloads();

}  // namespace rtagent::bench
