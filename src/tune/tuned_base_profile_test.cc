// profiles/base/tuned-realtime.yaml, TuneD's realtime defaults as rtagent settings: it loads
// against a fixture board (its sysctls checked against the tree), plans what TuneD's profile
// writes, and apply + revert leave the board byte-identical.
#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/tuner.h"

using namespace rtagent;
using namespace rtagent::profile::testing;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
const std::string kBase = std::string(RTAGENT_SOURCE_DIR) + "/profiles/base/tuned-realtime.yaml";

// A board profile a TuneD user writes: the base, then housekeeping CPU 0.
Loaded LoadBoard(const TempDir& dir, const SysRoot& root) {
  std::string path = dir.Write("board.yaml", "include: [" + kBase + "]\nname: board\ncores:\n  housekeeping: 0\n  isolated: 1-3\n");
  profile::Diagnostics d;
  auto r = profile::LoadProfile(path, root, &d);
  return Loaded{std::move(r), std::move(d), path};
}

const Change* Item(const FullPlan& plan, const std::string& key) {
  for (const SectionPlan& s : plan.sections) {
    for (const Change& c : s.items) {
      if (c.key == key) return &c;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("tuned-realtime base: validates on a fixture board and plans TuneD's realtime settings", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto l = LoadBoard(dir, root);
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  CHECK(l.diags.WarningCount() == 0);
  auto plan = PlanAll(*l.result, root);
  REQUIRE(plan);
  for (const SectionPlan& s : plan->sections) {
    for (const Finding& f : s.findings) {
      INFO(s.section + ": " + f.message);
      CHECK(f.level != Finding::Level::kError);
    }
  }
  // network-latency and latency-performance's sysctls, THP, the workqueue mask, the governor.
  const std::vector<std::pair<std::string, std::string>> want = {
      {kpath::Sysctl("net.core.busy_read"), "50"},        {kpath::Sysctl("net.core.busy_poll"), "50"},
      {kpath::Sysctl("kernel.hung_task_timeout_secs"), "600"}, {kpath::Sysctl("vm.swappiness"), "10"},
      {kpath::Sysctl("vm.dirty_ratio"), "10"},            {kpath::Sysctl("vm.stat_interval"), "10"},
      {kpath::Sysctl("kernel.nmi_watchdog"), "0"},        {kpath::kTimerMigration, "0"},
      {kpath::kThpEnabled, "never"},                      {kpath::kWorkqueueCpumask, "1"},
      {kpath::CpuFreqFile(3, kpath::kScalingGovernor), "performance"},
      {kpath::MachinecheckIgnoreCe("machinecheck0"), "1"}, {kpath::MachinecheckIgnoreCe("machinecheck3"), "1"},
  };
  for (const auto& [key, value] : want) {
    INFO(key);
    const Change* c = Item(*plan, key);
    REQUIRE(c != nullptr);
    CHECK(SameValue(c->compare, value, c->after));
    CHECK(Pending(*c));
  }
  // RT throttling is kept (TuneD writes -1): nothing plans the runtime.
  CHECK(Item(*plan, kpath::kSchedRtRuntime) == nullptr);
  // The boot line TuneD's realtime profile renders, less what rtagent leaves to the board.
  const Change* isolcpus = Item(*plan, kpath::kCmdline + "#isolcpus");
  REQUIRE(isolcpus != nullptr);
  CHECK(isolcpus->reboot);
  CHECK_THAT(isolcpus->after, Catch::Contains("managed_irq") && Catch::Contains("domain") && Catch::Contains("1-3") &&
                                  !Catch::Contains("nohz"));
  CHECK(Item(*plan, kpath::kCmdline + "#nosoftlockup") != nullptr);
  const Change* nohz_full = Item(*plan, kpath::kCmdline + "#nohz_full");  // realtime leaves the tick alone
  CHECK((nohz_full == nullptr || !Pending(*nohz_full)));
}

TEST_CASE("tuned-realtime base: apply then revert on a fixture board leaves it byte-identical", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadBoard(dir, root);
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  for (const ChangeResult& r : applied->report.results) {
    INFO(r.change.what + ": " + r.detail);
    CHECK(r.outcome != Outcome::kFailed);
  }
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(t.Get(kpath::Sysctl("net.core.busy_poll")) == "50\n");
  auto again = PlanAll(*l.result, root);
  REQUIRE(again);
  for (const Change& c : again->PendingChanges()) CHECK(c.reboot);  // verify: only the boot line waits
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::TreeDiff(kX86, t.dir()).empty());
}
