// The live syscall layer reading this thread's own class and affinity, which needs no
// privilege and changes nothing; a thread outside the caller's process is refused first.
#include "tune/live_sched_syscalls.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/sysroot.h"
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
