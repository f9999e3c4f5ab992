// Which syscall layer a root gets: the fixture twin for any tree, the live syscalls only for
// the running system, and the live layer reading this process's own class, which needs no
// privilege and changes nothing.
#include "tune/sched_syscalls.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "inspect/threads.h"
#include "tune/fixture_sched_syscalls.h"
#include "tune/live_sched_syscalls.h"

using namespace rtagent;

TEST_CASE("a fixture root gets the twin, whose numbers never reach live processes", "[tune][ranks]") {
  TempTree tree(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu");
  FaultRoot root(tree.dir());
  auto plan_only = DefaultSchedFactory()(root, nullptr);
  auto writing = DefaultSchedFactory()(root, &root);
  CHECK(dynamic_cast<FixtureSchedSyscalls*>(plan_only.get()) != nullptr);
  CHECK(dynamic_cast<FixtureSchedSyscalls*>(writing.get()) != nullptr);
  CHECK(FormatSched(plan_only->GetAttr({186, 186}).value()) == "fifo:50");  // irq/85-eth0 in the tree
}

TEST_CASE("the live layer reads this thread's own class and affinity; a thread not of its process is ESRCH",
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
