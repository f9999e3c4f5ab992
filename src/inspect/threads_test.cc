#include "inspect/threads.h"

#include <unistd.h>

#include <algorithm>

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "inspect/inspect_test_support.h"

using namespace rtagent;
using rtagent::testing::StatLine;

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

TEST_CASE("stat: parent, process group and CPU past a comm holding \") R 1 1 (\"", "[inspect]") {
  auto st = ParseTaskStat(StatLine({.tid = 4242, .comm = "evil) R 1 1 (name", .ppid = 17, .pgrp = 4200, .cpu = 3}));
  REQUIRE(st);
  CHECK(st->tid == 4242);
  CHECK(st->comm == "evil) R 1 1 (name");
  CHECK(st->ppid == 17);
  CHECK(st->pgrp == 4200);
  CHECK(st->processor == 3);
  CHECK_FALSE(ParseTaskStat("12 (short) S 1 1 1 0 -1").has_value());  // no field 39: not CPU 0

  // A real line from this kernel parses too.
  FsRoot live("/");
  auto self = live.Read("proc/self/stat");
  REQUIRE(self.ok());
  auto mine = ParseTaskStat(*self);
  REQUIRE(mine);
  CHECK(mine->tid == ::getpid());
  CHECK(mine->processor >= 0);
}

TEST_CASE("thread listing: every thread, each process's main thread, one process's threads", "[inspect]") {
  TempTree t;
  auto put = [&](int pid, int tid, const std::string& comm, unsigned long flags, int policy, unsigned prio) {
    t.Put("proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat",
          StatLine({.tid = tid, .comm = comm, .ppid = pid == tid ? 1 : pid, .pgrp = pid, .flags = flags, .cpu = tid % 4,
                    .rt_priority = prio, .policy = policy}));
  };
  put(2, 2, "kthreadd", kPfKthread, kSchedOther, 0);
  put(186, 186, "irq/85-eth0", kPfKthread, kSchedFifo, 50);
  put(999, 999, "robot", 0, kSchedOther, 0);
  put(999, 1000, "ctrl (loop) 1", 0, kSchedFifo, 80);
  put(999, 1001, "gone", 0, kSchedFifo, 80);
  t.Put("proc/999/task/1001/stat", "1001 (gone) S 1");  // exiting: a short line, skipped
  static const char kArgs[] = "/opt/robot\0--rate\0" "1000";
  t.Put("proc/999/cmdline", std::string(kArgs, sizeof kArgs));
  t.Put("proc/2/cmdline", "");
  // A process whose main thread has exited: its name is still in proc/PID/stat.
  put(1500, 1502, "worker", 0, kSchedOther, 0);
  t.Put("proc/1500/stat", StatLine({.tid = 1500, .comm = "server", .pgrp = 1500}));
  t.Put("proc/self/stat", "not a process");
  FsRoot root(t.dir());

  auto all = ListTasks(root, true);
  REQUIRE(all.size() == 5);
  CHECK(all[0].comm == "kthreadd");
  CHECK(all[1].IrqThread());
  CHECK(all[1].rt_priority == 50);
  CHECK(all[2].tid == 999);  // by number, not by name: 999 before 1000
  CHECK(all[3].comm == "ctrl (loop) 1");
  CHECK(all[3].process_comm == "robot");
  CHECK(all[3].cmdline == "/opt/robot --rate 1000");
  CHECK(all[3].processor == 0);
  CHECK(all[3].ppid == 999);
  CHECK(all[4].process_comm == "server");
  CHECK(all[0].cmdline.empty());
  for (const auto& v : ListTasks(root, false)) CHECK(v.cmdline.empty());

  auto procs = ListProcesses(root);
  REQUIRE(procs.size() == 3);  // 1500's main thread is gone
  CHECK(procs[2].pid == 999);
  CHECK(procs[2].tid == 999);

  auto robot = ListProcessThreads(root, 999);
  REQUIRE(robot.size() == 2);
  CHECK(robot[1].tid == 1000);
  CHECK(robot[1].process_comm == "robot");
  CHECK(ListProcessThreads(root, 4242).empty());
}

TEST_CASE("thread listing by process: a main thread read, the other threads of a user process listed by id", "[inspect]") {
  TempTree t;
  auto put = [&](int pid, int tid, const std::string& comm, unsigned long flags) {
    t.Put("proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat",
          StatLine({.tid = tid, .comm = comm, .ppid = 1, .pgrp = pid, .flags = flags}));
  };
  put(12, 12, "ksoftirqd/0", kPfKthread | kPfNoSetaffinity);
  put(999, 999, "robot", 0);
  put(999, 1000, "ctrl", 0);
  // Never read: a user process's other threads are listed only (a garbled line would drop it).
  t.Put("proc/999/task/1003/stat", "garbled");
  // A process whose main thread has exited: read thread by thread, as ListTasks does.
  put(1500, 1502, "worker", 0);
  t.Put("proc/1500/stat", StatLine({.tid = 1500, .comm = "server", .pgrp = 1500}));
  t.Put("proc/1600/task/1600/stat", "garbled");  // unreadable main thread, no other: gone
  FsRoot root(t.dir());

  auto all = ListTasksByProcess(root);
  REQUIRE(all.size() == 5);
  CHECK(all[0].tid == 12);
  CHECK(all[0].PerCpuKthread());
  CHECK(all[1].tid == 999);
  CHECK(all[1].comm == "robot");
  // By number, not by name, and known by their ids: no name of their own, not kernel threads.
  CHECK(all[2].tid == 1000);
  CHECK(all[3].tid == 1003);
  for (int i : {2, 3}) {
    CHECK(all[i].pid == 999);
    CHECK(all[i].comm.empty());
    CHECK(all[i].process_comm == "robot");
    CHECK_FALSE(all[i].Kthread());
  }
  CHECK(all[4].tid == 1502);
  CHECK(all[4].comm == "worker");
  CHECK(all[4].process_comm == "server");
  // The same threads as the full walk, save the one whose garbled line the full walk drops.
  std::vector<std::pair<int, int>> by_process, every;
  for (const auto& v : all) by_process.push_back({v.pid, v.tid});
  for (const auto& v : ListTasks(root, false)) every.push_back({v.pid, v.tid});
  every.insert(every.begin() + 3, {999, 1003});
  CHECK(by_process == every);
}

TEST_CASE("real-time threads: every affinity for inspect, a deadline thread's only for planning", "[inspect]") {
  TempTree t;
  auto put = [&](int tid, const std::string& comm, int policy, unsigned prio, const std::string& cpus) {
    t.Put(kpath::TaskStat(tid, tid), StatLine({.tid = tid, .comm = comm, .pgrp = tid, .rt_priority = prio, .policy = policy}));
    t.Put(kpath::TaskStatus(tid, tid), "Name:\t" + comm + "\nCpus_allowed_list:\t" + cpus + "\n");
  };
  put(300, "loop", kSchedFifo, 80, "2-3");
  put(301, "planner", kSchedDeadline, 0, "0-3");
  t.Put(kpath::TaskSched(301, 301), "dl.runtime                                   :               500000\n"
                                     "dl.deadline                                  :             10000000\n");
  put(302, "shell", kSchedOther, 0, "0-3");
  FsRoot root(t.dir());
  const std::vector<TaskView> tasks = ListTasks(root, false);
  REQUIRE(tasks.size() == 3);

  const ThreadState all = ThreadsFromTasks(root, tasks);
  REQUIRE(all.realtime.size() == 2);
  CHECK(all.realtime[0].affinity == CpuSet::Of({2, 3}));
  CHECK(all.realtime[1].affinity == CpuSet::Of({0, 1, 2, 3}));
  REQUIRE(all.realtime[1].deadline);
  CHECK(all.realtime[1].deadline->runtime_ns == 500000);

  // Planning reads a deadline thread's affinity (the partitions tuner's test) and nothing
  // else's: the FIFO thread's status is there, and left unread.
  const ThreadState planning = ThreadsFromTasks(root, tasks, RealtimeDetail::kDeadlineOnly);
  REQUIRE(planning.realtime.size() == 2);
  CHECK_FALSE(planning.realtime[0].affinity);
  CHECK(planning.realtime[0].priority == 80);
  CHECK(planning.realtime[1].affinity == CpuSet::Of({0, 1, 2, 3}));
  REQUIRE(planning.realtime[1].deadline);
  CHECK(planning.realtime[1].deadline->deadline_ns == 10000000);
  CHECK(planning.threads == 3);
  CHECK(planning.by_policy.at("deadline") == 1);
}

TEST_CASE("thread listing: processes of many threads each, in order, none lost while the list grows", "[inspect]") {
  // Most processes have one thread, a few have hundreds, as on a large server: the list grows
  // past its first guess (one per process) several times, by more than one process at once.
  TempTree t;
  std::vector<std::pair<int, int>> want;
  for (int pid = 100; pid < 400; ++pid) {
    const int threads = pid % 50 == 0 ? 150 : 1;
    for (int k = 0; k < threads; ++k) {
      const int tid = k == 0 ? pid : 10000 + pid * 200 + k;
      t.Put(kpath::TaskStat(pid, tid), StatLine({.tid = tid, .comm = "w", .pgrp = pid}));
      want.emplace_back(pid, tid);
    }
  }
  std::sort(want.begin(), want.end());
  FsRoot root(t.dir());
  const std::vector<TaskView> all = ListTasks(root, false);
  std::vector<std::pair<int, int>> got;
  for (const TaskView& v : all) got.emplace_back(v.pid, v.tid);
  CHECK(got.size() == 300 - 6 + 6 * 150);
  CHECK(got == want);
}

namespace {

// Every field of two thread states, compared one by one so a failure names the one that differs.
void CheckSameThreads(const ThreadState& a, const ThreadState& b) {
  CHECK(a.processes == b.processes);
  CHECK(a.threads == b.threads);
  CHECK(a.kthreads == b.kthreads);
  CHECK(a.by_policy == b.by_policy);
  REQUIRE(a.realtime.size() == b.realtime.size());
  for (size_t i = 0; i < a.realtime.size(); ++i) {
    const ThreadInfo& x = a.realtime[i];
    const ThreadInfo& y = b.realtime[i];
    INFO("real-time thread " << i << ": tid " << x.tid << " against " << y.tid);
    CHECK(std::tie(x.pid, x.tid, x.comm, x.process_comm, x.policy, x.priority, x.last_cpu, x.kthread, x.per_cpu_kthread) ==
          std::tie(y.pid, y.tid, y.comm, y.process_comm, y.policy, y.priority, y.last_cpu, y.kthread, y.per_cpu_kthread));
    CHECK(x.affinity == y.affinity);
    CHECK(x.deadline.has_value() == y.deadline.has_value());
    if (x.deadline && y.deadline) {
      CHECK(x.deadline->runtime_ns == y.deadline->runtime_ns);
      CHECK(x.deadline->deadline_ns == y.deadline->deadline_ns);
    }
  }
  REQUIRE(a.per_cpu_kthreads.size() == b.per_cpu_kthreads.size());
  for (size_t i = 0; i < a.per_cpu_kthreads.size(); ++i) {
    CHECK(a.per_cpu_kthreads[i].pattern == b.per_cpu_kthreads[i].pattern);
    CHECK(a.per_cpu_kthreads[i].count == b.per_cpu_kthreads[i].count);
    CHECK(a.per_cpu_kthreads[i].by_policy == b.per_cpu_kthreads[i].by_policy);
  }
}

}  // namespace

TEST_CASE("inspect's walk a process at a time gives the state of the whole list, on every fixture", "[inspect]") {
  for (const char* name : {"x86-ipc-4cpu", "arm64-rt-8cpu", "vm-x86-captured", "debian12-rt-arm64-qemu"}) {
    INFO(name);
    FsRoot root(testing::Fixture(name));
    const ThreadState whole = ThreadsFromTasks(root, ListTasks(root, false));
    CHECK(whole.threads > 0);
    CheckSameThreads(CollectThreads(root), whole);
  }
}

TEST_CASE("inspect's walk a process at a time: real-time threads of several processes, listed out of order, kept in order", "[inspect]") {
  TempTree t;
  // Created from the highest pid down, so the directory lists them in no particular order;
  // each process has a real-time thread whose tid sorts before or after another process's.
  for (int pid : {900, 40, 500, 7}) {
    const int other = pid * 10 + 1;
    t.Put(kpath::TaskStat(pid, pid), StatLine({.tid = pid, .comm = "main" + std::to_string(pid), .pgrp = pid}));
    t.Put(kpath::TaskStat(pid, other),
          StatLine({.tid = other, .comm = "rt" + std::to_string(pid), .pgrp = pid, .rt_priority = 70, .policy = kSchedFifo}));
    t.Put(kpath::TaskStatus(pid, other), "Cpus_allowed_list:\t" + std::to_string(pid % 4) + "\n");
  }
  // A per-CPU kernel thread on each of two CPUs, one of them real-time.
  t.Put(kpath::TaskStat(2, 2), StatLine({.tid = 2, .comm = "kthreadd", .pgrp = 0, .flags = kPfKthread}));
  t.Put(kpath::TaskStat(15, 15), StatLine({.tid = 15, .comm = "ksoftirqd/0", .pgrp = 0, .flags = kPfKthread | kPfNoSetaffinity}));
  t.Put(kpath::TaskStat(16, 16), StatLine({.tid = 16, .comm = "ksoftirqd/1", .pgrp = 0, .flags = kPfKthread | kPfNoSetaffinity,
                                           .rt_priority = 1, .policy = kSchedFifo}));
  t.Put(kpath::TaskStatus(16, 16), "Cpus_allowed_list:\t1\n");
  FsRoot root(t.dir());
  const ThreadState walked = CollectThreads(root);
  CHECK(walked.processes == 7);
  CHECK(walked.threads == 11);
  REQUIRE(walked.realtime.size() == 5);
  std::vector<int> tids;
  for (const ThreadInfo& i : walked.realtime) tids.push_back(i.tid);
  CHECK(tids == std::vector<int>{71, 16, 401, 5001, 9001});
  CHECK(walked.realtime[0].process_comm == "main7");
  CHECK(walked.realtime[0].affinity == CpuSet::Of({3}));
  REQUIRE(walked.per_cpu_kthreads.size() == 1);
  CHECK(walked.per_cpu_kthreads[0].pattern == "ksoftirqd/N");
  CHECK(walked.per_cpu_kthreads[0].count == 2);
  CheckSameThreads(walked, ThreadsFromTasks(root, ListTasks(root, false)));
}
