// Which syscall layer a root gets: the fixture twin for any tree, the live syscalls only for
// the running system (live_sched_syscalls_test.cc).
#include "tune/sched_syscalls.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "inspect/threads.h"
#include "tune/fixture_sched_syscalls.h"

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
