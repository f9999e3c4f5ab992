// Rank order: what outranks what, the declared order on rules and on threads, and the loop
// against the IRQ threads, where the ranks tuner, the ranks check and the lint once disagreed.
#include "tune/rank_order.h"

#include <catch2/catch.hpp>

#include "profile/loader.h"
#include "profile/test_support.h"

using namespace rtagent;

namespace {

profile::Profile Load(const std::string& yaml) {
  profile::Diagnostics diags;
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", profile::testing::Cpus(4), &diags);
  INFO(diags.FormatText());
  REQUIRE(p.ok());
  return std::move(*p);
}

TaskView Thread(int tid, const std::string& comm, int policy, unsigned prio, bool kthread) {
  TaskView t;
  t.pid = kthread ? tid : 1000;
  t.tid = tid;
  t.comm = comm;
  t.process_comm = kthread ? comm : "plc";
  t.policy = policy;
  t.rt_priority = prio;
  t.flags = kthread ? kPfKthread : 0;
  return t;
}

ThreadOrder Judge(const profile::Profile& p, const std::vector<TaskView>& tasks) {
  std::vector<Rank> rank;
  for (const auto& t : tasks) rank.push_back(LiveRank(t));
  return JudgeThreadOrder(p.ranks, tasks, MatchRanks(p.ranks.rules, tasks), rank);
}

// A PLC's loop at FIFO 70, its comms thread at RR 20 and an HMI at FIFO 10 below it, and an
// Ethernet IRQ thread at the kernel's FIFO 50.
const char* kPlc = R"(version: 1
ranks:
  rules:
    plc: {threads: plc_task, policy: fifo, priority: 70}
    comms: {threads: plc_comm, policy: rr, priority: 20}
    hmi: {threads: hmi, policy: fifo, priority: 10}
  order: [plc, comms, hmi]
)";

}  // namespace

TEST_CASE("what outranks what: deadline, then FIFO/RR by priority, then the fair class", "[tune][ranks]") {
  CHECK(RankOf(kSchedDeadline, 0).Outranks(RankOf(kSchedFifo, 99)));
  CHECK(RankOf(kSchedFifo, 99).Outranks(RankOf(kSchedRr, 98)));
  CHECK(RankOf(kSchedRr, 1).Outranks(RankOf(kSchedOther, 0)));
  CHECK_FALSE(RankOf(kSchedFifo, 80).Outranks(RankOf(kSchedRr, 80)));  // equal is not ahead
  CHECK_FALSE(RankOf(kSchedDeadline, 0).Outranks(RankOf(kSchedDeadline, 0)));
  // SCHED_OTHER, SCHED_BATCH and SCHED_IDLE share the fair class: none outranks another. (The
  // tuner and the check once put idle below other; the lint and the profile validator did not.)
  for (int a : {kSchedOther, kSchedBatch, kSchedIdle}) {
    for (int b : {kSchedOther, kSchedBatch, kSchedIdle}) CHECK_FALSE(RankOf(a, 0).Outranks(RankOf(b, 0)));
  }
  CHECK(RankOf(kSchedFifo, 80).text == "fifo 80");
  CHECK(RankOf(kSchedRr, 20).text == "rr 20");
  CHECK(RankOf(kSchedDeadline, 0).text == "deadline");
  CHECK(RankOf(kSchedIdle, 0).text == "idle");
}

TEST_CASE("a rule's rank, and which rules are IRQ threads and loops", "[tune][ranks]") {
  auto p = Load(R"(version: 1
ranks:
  rules:
    sensor: {threads: "irq/[0-9]+-eth0", policy: fifo, priority: 85}
    loop: {process: robot, policy: fifo, priority: 80}
    planner: {process: planner, policy: deadline, runtime: 2ms, period: 10ms}
    timers: {threads: "ktimers/[0-9]+", policy: fifo, priority: 2}
    pinned: {threads: logger, cpus: 0}
)");
  const auto& r = p.ranks.rules;
  CHECK(RuleRank(r[0])->text == "fifo 85");
  CHECK(RuleRank(r[2])->text == "deadline");
  CHECK_FALSE(RuleRank(r[4]).has_value());
  CHECK(IsIrqRule(r[0]));
  CHECK_FALSE(IsIrqRule(r[1]));
  CHECK(IsLoopRule(r[1]));
  CHECK_FALSE(IsLoopRule(r[0]));  // a kernel thread pattern
  CHECK_FALSE(IsLoopRule(r[2]));  // deadline: booked, not ranked
  CHECK_FALSE(IsLoopRule(r[3]));
  CHECK_FALSE(IsLoopRule(r[4]));  // no policy
}

TEST_CASE("on the rules: the order, the loop above its feeder, the loop above FIFO 50", "[tune][ranks]") {
  auto p = Load(R"(version: 1
ranks:
  rules:
    sensor: {threads: "irq/[0-9]+-eth0", policy: fifo, priority: 70, cpus: 3}
    loop: {process: robot, policy: fifo, priority: 80, cpus: 3}
    logger: {process: logger, policy: fifo, priority: 40, cpus: 2}
    elsewhere: {threads: "irq/[0-9]+-can0", policy: fifo, priority: 90, cpus: 1}
  order: [loop, logger]
)");
  CHECK(BrokenRuleOrder(p.ranks).empty());
  auto fed = LoopsAtOrAboveFeeder(p.ranks);
  REQUIRE(fed.size() == 1);
  CHECK(fed[0].first->name == "loop");
  CHECK(fed[0].second->name == "sensor");
  auto low = LoopsAtOrBelowIrqThreads(p.ranks);
  REQUIRE(low.size() == 1);
  CHECK(low[0]->name == "logger");
  CHECK(OrderMark(p.ranks, 1).line == 8);

  // Flipped by hand (the validator refuses such a file): the pair is named at its order line.
  p.ranks.rules[1].priority.value = 30;
  auto broken = BrokenRuleOrder(p.ranks);
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].pos == 0);
  CHECK(broken[0].higher->name == "loop");
  CHECK(broken[0].lower->name == "logger");
}

TEST_CASE("on threads: the weakest of a rank against the strongest of the next", "[tune][ranks]") {
  auto p = Load(kPlc);
  std::vector<TaskView> tasks = {Thread(1001, "plc_task", kSchedFifo, 70, false),
                                 Thread(1002, "plc_comm", kSchedRr, 20, false),
                                 Thread(1003, "plc_comm", kSchedFifo, 75, false)};
  ThreadOrder o = Judge(p, tasks);
  REQUIRE(o.pairs.size() == 1);  // hmi matched nothing
  CHECK(o.pairs[0].pos == 0);
  CHECK(o.pairs[0].weakest == 0);
  CHECK(o.pairs[0].strongest == 2);
  CHECK_FALSE(o.pairs[0].holds);
}

TEST_CASE("the loop is the first user rank of the order, the user ranks below it may sit below the IRQ threads",
          "[tune][ranks]") {
  // The ranks tuner once held every user rank against the IRQ threads (an error for comms at
  // RR 20 here); the check held only the loop. Chapter 4 places the loop above "every other
  // interrupt thread"; a rank declared below the loop is placed by the order alone.
  auto p = Load(kPlc);
  std::vector<TaskView> tasks = {Thread(40, "irq/40-eno1", kSchedFifo, 50, true),
                                 Thread(1001, "plc_task", kSchedFifo, 70, false),
                                 Thread(1002, "plc_comm", kSchedRr, 20, false),
                                 Thread(1003, "hmi", kSchedFifo, 10, false)};
  ThreadOrder o = Judge(p, tasks);
  REQUIRE(o.loop.has_value());
  CHECK(o.loop->pos == 0);
  CHECK(o.loop->weakest == 1);
  CHECK(o.loop->offenders.empty());
  CHECK(o.pairs.size() == 2);
  for (const auto& pair : o.pairs) CHECK(pair.holds);

  // The loop below the IRQ thread: that thread is named; one declared above the loop is not.
  tasks[1].rt_priority = 45;
  o = Judge(p, tasks);
  REQUIRE(o.loop.has_value());
  CHECK(o.loop->offenders == std::vector<size_t>{0});
  auto fed = Load(R"(version: 1
ranks:
  rules:
    feeder: {threads: "irq/40-eno1", policy: fifo, priority: 50}
    plc: {threads: plc_task, policy: fifo, priority: 45}
  order: [feeder, plc]
)");
  o = Judge(fed, tasks);
  REQUIRE(o.loop.has_value());
  CHECK(o.loop->pos == 1);
  CHECK(o.loop->offenders.empty());

  // Kernel threads are no loop, and neither is a rank in the fair class.
  auto kernel_only = Load(R"(version: 1
ranks:
  rules:
    timers: {threads: "irq/.*", policy: fifo, priority: 50}
    shell: {threads: plc_comm, policy: other}
  order: [timers, shell]
)");
  tasks[2].policy = kSchedOther;
  tasks[2].rt_priority = 0;
  CHECK_FALSE(Judge(kernel_only, tasks).loop.has_value());
}
