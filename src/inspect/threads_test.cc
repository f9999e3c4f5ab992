#include "inspect/threads.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("stat: fields 40 and 41 are rt_priority and policy", "[inspect]") {
  const char* line =
      "50 (irq/24-ACPI:Ged) S 2 0 0 0 -1 2129984 0 0 0 0 0 1 0 0 -51 0 1 0 41 0 0 18446744073709551615 0 0 0 0 0 "
      "0 0 2147483647 0 1 0 0 17 0 50 1 0 0 0 0 0 0 0 0 0 0 0\n";
  auto s = ParseTaskStat(line);
  REQUIRE(s);
  CHECK(s->tid == 50);
  CHECK(s->comm == "irq/24-ACPI:Ged");
  CHECK(s->state == 'S');
  CHECK(s->ppid == 2);
  CHECK(s->flags == 2129984);
  CHECK(s->priority == -51);
  CHECK(s->processor == 0);
  CHECK(s->rt_priority == 50);
  CHECK(s->policy == kSchedFifo);
  CHECK((s->flags & kPfKthread) != 0);
}

TEST_CASE("stat: comm may hold spaces and parentheses", "[inspect]") {
  auto s = ParseTaskStat(
      "1203 (ctrl (loop) 1) S 1 1200 1200 0 -1 4194560 0 0 0 0 20 9 0 0 -81 0 5 0 1228 12582912 1200 "
      "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 6 80 1 0 0 0 0 0 0 0 0 0 0 0");
  REQUIRE(s);
  CHECK(s->comm == "ctrl (loop) 1");
  CHECK(s->rt_priority == 80);
  CHECK(s->processor == 6);
  auto pam = ParseTaskStat(
      "780 ((sd-pam)) S 779 779 779 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 805 0 0 18446744073709551615 0 0 0 0 0 0 0 "
      "0 0 0 0 0 17 2 0 0 0 0 0 0 0 0 0 0 0 0 0");
  REQUIRE(pam);
  CHECK(pam->comm == "(sd-pam)");
  CHECK(pam->policy == kSchedOther);
}

TEST_CASE("stat: truncated or garbled lines are refused", "[inspect]") {
  CHECK_FALSE(ParseTaskStat("").has_value());
  CHECK_FALSE(ParseTaskStat("12 (x) S 1 2 3").has_value());
  CHECK_FALSE(ParseTaskStat("12 x S").has_value());
}

TEST_CASE("policy names", "[inspect]") {
  CHECK(PolicyName(kSchedFifo) == "fifo");
  CHECK(PolicyName(kSchedDeadline) == "deadline");
  CHECK(PolicyName(42) == "policy42");
  CHECK(IsRealtimePolicy(kSchedRr));
  CHECK_FALSE(IsRealtimePolicy(kSchedBatch));
}

TEST_CASE("deadline parameters from the sched file", "[inspect]") {
  auto d = ParseSchedDeadline(
      "planner (1205, #threads: 1)\n-----\npolicy                                       :                    6\n"
      "dl.runtime                                   :              2000000\n"
      "dl.deadline                                  :             10000000\n");
  CHECK(d.runtime_ns == 2000000);
  CHECK(d.deadline_ns == 10000000);
}

TEST_CASE("thread patterns fold CPU and instance numbers", "[inspect]") {
  CHECK(ThreadPattern("ksoftirqd/3") == "ksoftirqd/N");
  CHECK(ThreadPattern("ktimers/127") == "ktimers/N");
  CHECK(ThreadPattern("kworker/3:1H-kblockd") == "kworker/N");
  CHECK(ThreadPattern("kworker/u16:2") == "kworker/uN");
  CHECK(ThreadPattern("kworker/R-mm_percpu_wq") == "kworker/R");
  CHECK(ThreadPattern("irq/45-eth0") == "irq/N-eth0");
  CHECK(ThreadPattern("rcu_preempt") == "rcu_preempt");
}
