// The "sched" and "affinity" actuators over the syscall seam, on a copy of the arm64 fixture.
#include "tune/sched_actuator.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";

}  // namespace

TEST_CASE("the sched and affinity actuators speak canonical text over the seam", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  std::shared_ptr<SchedSyscalls> sys = DefaultSchedFactory()(root, &root);
  SchedActuator policy(sys, SchedActuator::Kind::kPolicy);
  SchedActuator affinity(sys, SchedActuator::Kind::kAffinity);
  CHECK(policy.Read("186/186").value() == "fifo:50");
  CHECK(affinity.Read("186/186").value() == "2");
  REQUIRE(policy.Write("186/186", "fifo:85").ok());
  REQUIRE(affinity.Write("186/186", "2-3").ok());
  CHECK(policy.Read("186/186").value() == "fifo:85");
  CHECK(affinity.Read("186/186").value() == "2-3");
  CHECK(policy.Write("186/186", "fast").error().err == EINVAL);
  CHECK(affinity.Write("186/186", "x").error().err == EINVAL);
  CHECK(policy.Read("garbage").error().err == EINVAL);
}
