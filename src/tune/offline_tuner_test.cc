// cpus.offline: CPU 0 and the last housekeeping CPU refused at load, the others planned as
// cpuN/online = 0, apply + revert byte-identical. Fixture trees only: this host's CPUs are
// never taken offline by a test.
#include "tune/offline_tuner.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/tuner_test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;
using namespace rtagent::tune_testing;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
const std::string kOnly =
    "cores:\n  housekeeping: 0-1\n  isolated: 2\n  bootloader: print\n"
    "  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
    "irqs:\n  default: keep\n  irqbalance: leave\n";

// x86: every CPU but the boot CPU has an online file.
void AddOnlineFiles(const TempTree& t) {
  for (int cpu : {1, 2, 3}) t.Put(kpath::Cpu(cpu) + "/online", "1\n");
}

SectionPlan PlanOf(const profile::Profile& p, const SysRoot& root) { return PlanWith(OfflineTuner(), p, root); }

}  // namespace

TEST_CASE("cpus.offline: CPU 0 and the last housekeeping CPU are refused, an isolated one warned", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto zero = LoadOn(dir, root, kOnly + "cpus:\n  offline: 0,3\n");
  REQUIRE_FALSE(zero.result);
  CheckAt(Only(zero, "cpus.offline includes CPU 0, the boot CPU"), zero.path, 10, 12);

  auto last = LoadOn(dir, root, "cores:\n  housekeeping: 1\n  isolated: 2-3\ncpus:\n  offline: 1\n");
  REQUIRE_FALSE(last.result);
  const profile::Diagnostic& d = Only(last, "cpus.offline takes the last housekeeping CPU offline (housekeeping is 1)");
  CheckAt(d, last.path, 5, 12);

  auto iso = LoadOn(dir, root, kOnly + "cpus:\n  offline: 2-3\n");
  REQUIRE(iso.result);
  CHECK(Only(iso, "cpus.offline includes isolated CPU 2").severity == profile::Severity::kWarning);

  auto word = LoadOn(dir, root, kOnly + "cpus:\n  offline: housekeeping\n");
  REQUIRE_FALSE(word.result);
  Only(word, "'cpus.offline'");
}

TEST_CASE("cpus.offline: planned as cpuN/online, a CPU without the file is an error finding", "[tune]") {
  TempTree t(kX86);
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "cpus:\n  offline: 3\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  SectionPlan none = PlanOf(*l.result, root);  // the fixture has no online files yet
  CHECK(none.items.empty());
  REQUIRE(none.findings.size() == 1);
  CHECK(none.findings[0].level == Finding::Level::kError);
  CHECK_THAT(none.findings[0].message, Catch::StartsWith("CPU 3 cannot be taken offline"));

  AddOnlineFiles(t);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.items.size() == 1);
  CHECK(plan.items[0].key == kpath::Cpu(3) + "/online");
  CHECK(plan.items[0].before == "1");
  CHECK(plan.items[0].after == "0");
  CHECK(Pending(plan.items[0]));
  CHECK(plan.findings.empty());
}

TEST_CASE("cpus.offline: apply then revert on a fixture tree leaves it byte-identical", "[tune]") {
  TempTree before(kX86);
  AddOnlineFiles(before);
  TempTree t(before.dir());
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "cpus:\n  offline: 3\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(t.Get(kpath::Cpu(3) + "/online") == "0\n");
  // The last change of the run: revert brings the CPU back first.
  REQUIRE_FALSE(applied->report.results.empty());
  CHECK(applied->report.results.back().change.section == "cpus");
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::TreeDiff(before.dir(), t.dir()).empty());
}
