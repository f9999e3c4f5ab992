// The catalog, and every primitive measured for real at SCHED_OTHER with a tiny budget (no
// privilege, no real-time class: the tests that need one say so and skip).
#include "bench/primitive.h"

#include <sched.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <set>

#include "bench/timers.h"

using namespace rtagent;
using namespace rtagent::bench;

TEST_CASE("the catalog: unique ids, every group, the paper's payloads, the quick equal-phase subset", "[bench]") {
  const std::vector<Primitive> all = Catalog();
  std::set<std::string> ids;
  std::set<Group> groups;
  int quick_equal = 0;
  for (const Primitive& p : all) {
    CHECK(ids.insert(p.id).second);
    groups.insert(p.group);
    CHECK_FALSE(p.title.empty());
    CHECK_FALSE(p.calls.empty());
    CHECK(p.run);
    quick_equal += p.quick_equal;
  }
  CHECK(groups.size() == AllGroups().size());
  for (const char* id : {"kernel.getppid", "switch.yield", "switch.yield.thread", "switch.yield.process",
                         "message.pipe.process.65536", "message.unix.thread.4", "message.mqueue.process.16384",
                         "message.eventfd.thread", "message.futex.process", "notify.signal.process",
                         "sync.mutex.handoff.inherit", "sync.sem.named.wake.process", "timer.health.2ms",
                         "timer.health.10ms", "signal.thread", "thread.fork_wait"}) {
    CHECK(ids.count(id) == 1);
  }
  CHECK(quick_equal == 4);  // the two timers, the thread switch, the 4 B pipe round trip
  CHECK(ParseGroup("message") == Group::kMessage);
  CHECK_FALSE(ParseGroup("messages"));
  CHECK(PayloadText(4) == "4 B");
  CHECK(PayloadText(16384) == "16 KiB");
}

TEST_CASE("every primitive measures here at SCHED_OTHER, or says why it cannot", "[bench]") {
  TestContext c;
  c.cpu = ::sched_getcpu();
  c.sched = {SCHED_OTHER, 0};
  c.budget = {/*warmup=*/2, /*min_samples=*/3, /*max_samples=*/20, /*max_ns=*/1000000};
  c.timer_run_ns = 30000000;
  SampleBuffer s(1000);
  for (const Primitive& p : Catalog()) {
    INFO(p.id);
    s.Clear();
    auto out = p.run(c, s);
    REQUIRE(out);
    if (!out->skipped.empty()) {
      // Only what needs a real-time rank, or a queue this user may not make, may skip.
      const bool ranked = p.id.rfind("sync.mutex.handoff.", 0) == 0 || p.id == "sync.mutex.lock_unlock.protect";
      CHECK((ranked || p.id.rfind("message.mqueue.", 0) == 0));
      CHECK(s.size() == 0);
      continue;
    }
    CHECK(s.size() >= 3);
    for (int64_t v : s.Copy()) CHECK(v >= 0);
    if (p.id.rfind("timer.health.", 0) == 0) {
      CHECK(out->period_ns > 0);
      CHECK(out->wakeups == s.size());
      CHECK(out->elapsed_ns > 0);
    }
  }
}

TEST_CASE("a primitive that fails says what failed, with the errno", "[bench]") {
  CHECK_FALSE(LoopOutcome(0, "x").value().skipped.size());
  auto failed = LoopOutcome(EPIPE, "pipe round trip");
  REQUIRE_FALSE(failed);
  CHECK(failed.error().err == EPIPE);
  CHECK_THAT(failed.error().message, Catch::StartsWith("pipe round trip failed"));
  CHECK(TimerHealthPeriodsNs() == std::vector<int64_t>{2000000, 10000000});
}
