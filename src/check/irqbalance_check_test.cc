// The irqbalance check on a copy of the x86 fixture board with an irqbalance process added:
// PASS when it does not run or bans every isolated CPU, FAIL naming the CPUs it may still use.
#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "check/check.h"
#include "inspect/inspect_test_support.h"
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
  testing::PutIrqbalanceProcess(t, 4242);
  t.Put(kpath::ProcEnviron(4242), env);
}

}  // namespace

TEST_CASE("the irqbalance check FAILs while irqbalance runs without the isolated CPUs banned", "[check]") {
  // As `verify` runs it (the state keeps its walk of the threads, in which the process is
  // looked for) and with a state that does not (proc/PID/stat read for each process).
  const bool keep_tasks = GENERATE(false, true);
  INFO("state keeps its task list: " << keep_tasks);
  TempTree t(kX86);
  FsRoot root(t.dir());
  auto run = [&]() {
    const profile::Profile p = Load(root);
    SystemState state = CollectSystemState(root, {}, nullptr, keep_tasks);
    REQUIRE((state.tasks != nullptr) == keep_tasks);
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
  CHECK_THAT(fail.summary, Catch::Contains("process 4242"));
  CHECK(fail.measured == "banned: 3 (the environment of process 4242)");
  CHECK_THAT(fail.hint, Catch::Contains("irqs.irqbalance"));
  AddIrqbalance(t, std::string("IRQBALANCE_BANNED_CPULIST=1-3\0", 30));
  CHECK(run().status == check::Status::kPass);
}
