// The live syscall layer reading this thread's own class and affinity, which needs no
// privilege and changes nothing; a thread outside the caller's process is refused first; a
// thread of the test's own whose stat line says what sched_getattr says.
#include "tune/live_sched_syscalls.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "inspect/threads.h"
#include "tune/fixture_sched_syscalls.h"

using namespace rtagent;

TEST_CASE("the live layer reads this thread's own class and affinity, a thread not of its process is ESRCH",
          "[tune][ranks]") {
  FsRoot live("/");
  auto sys = DefaultSchedFactory()(live, nullptr);
  CHECK(dynamic_cast<FixtureSchedSyscalls*>(sys.get()) == nullptr);
  const TaskId me{::getpid(), static_cast<int>(::syscall(SYS_gettid))};
  auto attr = sys->GetAttr(me);
  REQUIRE(attr.ok());
  CHECK_FALSE(FormatSched(*attr).empty());
  auto cpus = sys->GetAffinity(me);
  REQUIRE(cpus.ok());
  CHECK_FALSE(cpus->Empty());
  // PID 1's thread group never holds this thread: checked before any syscall.
  CHECK(sys->GetAttr({1, me.tid}).error().err == ESRCH);
  CHECK(MakeLiveSchedSyscalls(live)->SetAffinity({1, me.tid}, CpuSet::Of({0})).error().err == ESRCH);
}

TEST_CASE("a thread's stat line carries what sched_getattr reports, for every class but deadline", "[tune][ranks]") {
  // The ranks tuner takes a thread's class from the walk's stat line instead of asking the
  // kernel again: checked here against the kernel, on a thread of this test's own that goes
  // through the classes and then exits (nothing outlives the test).
  FsRoot live("/");
  auto sys = DefaultSchedFactory()(live, &live);
  struct Seen {
    std::string set, syscall, stat;
  };
  std::vector<Seen> seen;
  std::string failure;
  std::thread worker([&] {
    const TaskId me{::getpid(), static_cast<int>(::syscall(SYS_gettid))};
    std::vector<SchedAttr> classes(4);
    classes[0].policy = kSchedOther, classes[0].nice = 7;
    classes[1].policy = kSchedBatch, classes[1].nice = 9;
    classes[2].policy = kSchedIdle;
    classes[3].policy = kSchedFifo, classes[3].priority = 3;  // root only: EPERM otherwise
    for (const SchedAttr& a : classes) {
      if (auto w = sys->SetAttr(me, a); !w) {
        if (w.error().err == EPERM && a.policy == kSchedFifo) continue;
        failure = w.error().message;
        return;
      }
      auto got = sys->GetAttr(me);
      auto text = live.Read(kpath::TaskStat(me.pid, me.tid));
      auto st = text ? ParseTaskStat(*text) : std::nullopt;
      auto from_stat = st ? SchedAttrOfStat(*st) : std::nullopt;
      if (!got || !from_stat) {
        failure = "cannot read the class of " + TaskKey(me);
        return;
      }
      seen.push_back({FormatSched(a), FormatSched(*got), FormatSched(*from_stat)});
    }
  });
  worker.join();
  INFO(failure);
  REQUIRE(failure.empty());
  REQUIRE(seen.size() >= 3);
  for (const Seen& s : seen) {
    INFO("set " << s.set);
    CHECK(s.syscall == s.set);
    CHECK(s.stat == s.syscall);
  }
}

TEST_CASE("the live layer refuses a class it cannot give, naming the thread and the class, and the class stays",
          "[tune][ranks]") {
  // This thread's own class, asked for something no one may have: nothing changes.
  FsRoot live("/");
  auto sys = MakeLiveSchedSyscalls(live);
  const TaskId me{::getpid(), static_cast<int>(::syscall(SYS_gettid))};
  auto before = sys->GetAttr(me);
  REQUIRE(before.ok());
  // A deadline class whose period was never known (a journal's "period=?"): refused before the
  // kernel is asked.
  auto unknown = sys->SetAttr(me, ParseSched("deadline:runtime=200000,deadline=1000000,period=?").value());
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().err == EINVAL);
  CHECK_THAT(unknown.error().message,
             Catch::Equals("deadline parameters of thread " + TaskKey(me) + " are not all known"));
  // A runtime longer than its deadline: the kernel refuses it (__checkparam_dl), root or not.
  auto refused = sys->SetAttr(me, ParseSched("deadline:runtime=2000000,deadline=1000000,period=1000000").value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().err == EINVAL);
  CHECK(refused.error().message == "sched_setattr(" + std::to_string(me.tid) +
                                       ", deadline:runtime=2000000,deadline=1000000,period=1000000): Invalid argument");
  CHECK(FormatSched(sys->GetAttr(me).value()) == FormatSched(*before));
}
