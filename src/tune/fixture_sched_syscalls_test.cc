// The scheduling seam's fixture twin answering as the kernel would, and the stat rewriting it
// rests on, on a copy of the arm64 PREEMPT_RT fixture.
#include "tune/fixture_sched_syscalls.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "inspect/threads.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";

}  // namespace

TEST_CASE("stat fields are rewritten in place, comm and separators kept", "[tune][ranks]") {
  std::string stat = "1203 (ctrl (loop) 1) S 1 1200 1200 0 -1 4194560 0 0 0 0 20 9 0 0 -81 0 5 0 1228 12582912 1200 "
                     "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 6 80 1 0 0 0 0 0 0 0 0 0 0 0\n";
  auto out = RewriteStatFields(stat, {{18, "-21"}, {40, "20"}, {41, "2"}});
  REQUIRE(out.ok());
  auto st = ParseTaskStat(*out);
  REQUIRE(st.has_value());
  CHECK(st->comm == "ctrl (loop) 1");
  CHECK(st->priority == -21);
  CHECK(st->rt_priority == 20);
  CHECK(st->policy == kSchedRr);
  CHECK(out->size() == stat.size());  // same widths here: every other byte is where it was
  CHECK(RewriteStatFields(stat, {{18, "-81"}, {40, "80"}, {41, "1"}}).value() == stat);
  CHECK(RewriteStatFields(stat, {{99, "1"}}).error().err == EINVAL);
}

TEST_CASE("the fixture twin reads and writes a thread's class as the kernel shows it", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  FixtureSchedSyscalls sys(root, &root);
  const std::string stat_before = tree.Get("proc/1200/task/1203/stat");
  const std::string status_before = tree.Get("proc/1200/task/1203/status");

  TaskId loop{1200, 1203};
  CHECK(FormatSched(sys.GetAttr(loop).value()) == "fifo:80");
  CHECK(sys.GetAffinity(loop).value().ToList() == "6");

  SchedAttr rr;
  rr.policy = kSchedRr;
  rr.priority = 20;
  REQUIRE(sys.SetAttr(loop, rr).ok());
  CHECK(FormatSched(sys.GetAttr(loop).value()) == "rr:20");
  auto st = ParseTaskStat(tree.Get("proc/1200/task/1203/stat"));
  REQUIRE(st.has_value());
  CHECK(st->priority == -21);  // fs/proc/array.c: -1 - rt_priority

  REQUIRE(sys.SetAffinity(loop, CpuSet::Of({4, 5})).ok());
  CHECK(sys.GetAffinity(loop).value().ToList() == "4-5");
  CHECK(tree.Get("proc/1200/task/1203/status").find("Cpus_allowed:\t30\n") != std::string::npos);

  // Back to what it was: the files are byte for byte what they were.
  REQUIRE(sys.SetAttr(loop, ParseSched("fifo:80").value()).ok());
  REQUIRE(sys.SetAffinity(loop, CpuSet::Of({6})).ok());
  CHECK(tree.Get("proc/1200/task/1203/stat") == stat_before);
  CHECK(tree.Get("proc/1200/task/1203/status") == status_before);

  // A thread the fixture keeps no status for has every possible CPU; a status file made for
  // another set goes again when the set is all CPUs once more.
  TaskId main_thread{1200, 1200};
  CHECK(sys.GetAffinity(main_thread).value().ToList() == "0-7");
  REQUIRE(sys.SetAffinity(main_thread, CpuSet::Of({4})).ok());
  CHECK(tree.Get("proc/1200/task/1200/status") == "Cpus_allowed:\t10\nCpus_allowed_list:\t4\n");
  CHECK(sys.GetAffinity(main_thread).value().ToList() == "4");
  REQUIRE(sys.SetAffinity(main_thread, CpuSet::Range(0, 7)).ok());
  CHECK_FALSE(root.Exists("proc/1200/task/1200/status"));

  // A normal thread's nice value lands in fields 18 and 19.
  TaskId logger{1200, 1206};
  REQUIRE(sys.SetAttr(logger, ParseSched("other:nice=-5").value()).ok());
  CHECK(FormatSched(sys.GetAttr(logger).value()) == "other:nice=-5");
  CHECK(ParseTaskStat(tree.Get("proc/1200/task/1206/stat"))->priority == 15);
}

TEST_CASE("the twin keeps deadline parameters in the sched file and takes them away", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  FixtureSchedSyscalls sys(root, &root);
  const std::string sched_before = tree.Get("proc/1200/task/1205/sched");
  TaskId planner{1200, 1205};
  // The kernel prints no period; the fixture's thread has none either.
  CHECK(FormatSched(sys.GetAttr(planner).value()) == "deadline:runtime=2000000,deadline=10000000,period=?");

  REQUIRE(sys.SetAttr(planner, ParseSched("fifo:10").value()).ok());
  CHECK(tree.Get("proc/1200/task/1205/sched").find("dl.runtime") == std::string::npos);
  REQUIRE(sys.SetAttr(planner, ParseSched("deadline:runtime=2000000,deadline=10000000,period=?").value()).ok());
  CHECK(tree.Get("proc/1200/task/1205/sched") == sched_before);

  REQUIRE(sys.SetAttr(planner, ParseSched("deadline:runtime=300000,deadline=1000000,period=1000000").value()).ok());
  CHECK(FormatSched(sys.GetAttr(planner).value()) == "deadline:runtime=300000,deadline=1000000,period=1000000");

  // A thread that never was deadline gets a sched file for its parameters, which goes again.
  TaskId logger{1200, 1206};
  REQUIRE(sys.SetAttr(logger, ParseSched("deadline:runtime=100000,deadline=500000,period=1000000").value()).ok());
  CHECK(FormatSched(sys.GetAttr(logger).value()) == "deadline:runtime=100000,deadline=500000,period=1000000");
  REQUIRE(sys.SetAttr(logger, ParseSched("other:nice=0").value()).ok());
  CHECK_FALSE(root.Exists("proc/1200/task/1206/sched"));

  // The kernel's own checks: runtime <= deadline <= period, at least 1024 ns.
  CHECK(sys.SetAttr(logger, ParseSched("deadline:runtime=500,deadline=500000,period=1000000").value()).error().err == EINVAL);
  CHECK(sys.SetAttr(logger, ParseSched("deadline:runtime=600000,deadline=500000,period=1000000").value()).error().err ==
        EINVAL);
}

TEST_CASE("the twin refuses as the kernel does", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  FixtureSchedSyscalls sys(root, &root);
  // ktimers/1 is a per-CPU kernel thread (PF_NO_SETAFFINITY): EINVAL, nothing written.
  const std::string status = tree.Get("proc/14/task/14/status");
  CHECK(sys.SetAffinity({14, 14}, CpuSet::Of({0})).error().err == EINVAL);
  CHECK(tree.Get("proc/14/task/14/status") == status);
  // Its class can still change (chrt works on ktimers/N).
  CHECK(sys.SetAttr({14, 14}, ParseSched("fifo:2").value()).ok());
  // A thread that is not there: ESRCH, as sched_setattr answers for an exited thread.
  CHECK(sys.GetAttr({1200, 1299}).error().err == ESRCH);
  CHECK(sys.GetAffinity({1200, 1299}).error().err == ESRCH);  // asked once status is not there
  CHECK(sys.SetAttr({1200, 1299}, ParseSched("fifo:2").value()).error().err == ESRCH);
  CHECK(sys.SetAffinity({1200, 1299}, CpuSet::Of({0})).error().err == ESRCH);
  // A thread id that exists in another process is not this thread.
  CHECK(sys.GetAttr({186, 1203}).error().err == ESRCH);
  CHECK(sys.GetAffinity({186, 1203}).error().err == ESRCH);
  CHECK(sys.SetAffinity({1200, 1203}, CpuSet()).error().err == EINVAL);
  // The kernel looks the thread up before it checks what it is asked: an exited thread with a
  // priority out of range, or an empty mask, is ESRCH, not EINVAL.
  CHECK(sys.SetAttr({1200, 1299}, SchedAttr{kSchedFifo, 100}).error().err == ESRCH);
  CHECK(sys.SetAffinity({1200, 1299}, CpuSet()).error().err == ESRCH);

  // A status file without its Cpus_allowed_list (a hand-made or cut tree): the twin names the
  // tree and the file, reading and writing alike, and leaves the file as it was.
  tree.Put("proc/1200/task/1203/status", "Name:\tctrl (loop) 1\nCpus_allowed:\t40\n");
  const std::string where = tree.dir() + " proc/1200/task/1203/status: no Cpus_allowed_list: ";
  auto read = sys.GetAffinity({1200, 1203});
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().err == ENOENT);
  CHECK_THAT(read.error().message, Catch::StartsWith(where));
  auto write = sys.SetAffinity({1200, 1203}, CpuSet::Of({5}));
  REQUIRE_FALSE(write.ok());
  CHECK(write.error().err == ENOENT);
  CHECK_THAT(write.error().message, Catch::StartsWith(where));
  CHECK(tree.Get("proc/1200/task/1203/status") == "Name:\tctrl (loop) 1\nCpus_allowed:\t40\n");

  // Planning never writes: a twin without a writable root answers EROFS.
  FixtureSchedSyscalls plan_only(root, nullptr);
  CHECK(plan_only.GetAttr({186, 186}).ok());
  CHECK(plan_only.SetAttr({186, 186}, ParseSched("fifo:85").value()).error().err == EROFS);
  CHECK(plan_only.SetAffinity({186, 186}, CpuSet::Of({1})).error().err == EROFS);
}
