// The irqbalance check on a copy of the x86 fixture board with an irqbalance process added:
// PASS when it does not run or bans every isolated CPU, FAIL naming the CPUs it may still use.
#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "check/check.h"
#include "profile/loader.h"

using namespace rtagent;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

profile::Profile Load(const SysRoot& root) {
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus);
  auto p = profile::LoadProfileText("cores:\n  housekeeping: 0\n  isolated: 1-3\n", "board.yaml", ".", *cpus, nullptr);
  REQUIRE(p);
  return std::move(*p);
}

void AddIrqbalance(const TempTree& t, const std::string& env) {
  t.Put(kpath::ProcStat(4242), "4242 (irqbalance) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 2 0 123 0 0\n");
  t.Put(kpath::ProcEnviron(4242), env);
}

}  // namespace

TEST_CASE("the irqbalance check FAILs while irqbalance runs without the isolated CPUs banned", "[check]") {
  TempTree t(kX86);
  FsRoot root(t.dir());
  auto run = [&]() {
    const profile::Profile p = Load(root);
    SystemState state = CollectSystemState(root);
    check::Suite suite{"test", "", "", {"irqbalance"}, {}, ""};
    auto check = check::FindCheck("irqbalance");
    REQUIRE(check);
    check::CheckEnv env{p, root, state, suite, [](auto) { return true; }};
    auto results = check->Run(env);
    REQUIRE(results.size() == 1);
    return results[0];
  };
  CHECK(run().status == check::Status::kPass);  // not running
  AddIrqbalance(t, std::string("IRQBALANCE_BANNED_CPULIST=3\0", 28));
  check::CheckResult fail = run();
  CHECK(fail.status == check::Status::kFail);
  CHECK_THAT(fail.summary, Catch::Contains("isolated CPUs 1-2"));
  CHECK(fail.measured == "banned: 3 (the environment of process 4242)");
  CHECK_THAT(fail.hint, Catch::Contains("irqs.irqbalance"));
  AddIrqbalance(t, std::string("IRQBALANCE_BANNED_CPULIST=1-3\0", 30));
  CHECK(run().status == check::Status::kPass);
}
