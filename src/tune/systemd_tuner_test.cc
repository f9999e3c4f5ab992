// The systemd section: CPUAffinity= written as a drop-in under the root, said to need a
// daemon-reexec, journaled so revert removes a drop-in it created; fixture trees only.
#include "tune/systemd_tuner.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/plan_render.h"
#include "tune/tuner_test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;
using namespace rtagent::tune_testing;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
const std::string kOnly =
    "cores:\n  housekeeping: 0-1\n  isolated: 2-3\n  bootloader: print\n"
    "  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
    "irqs:\n  default: keep\n  irqbalance: leave\n";

SectionPlan PlanOf(const profile::Profile& p, const SysRoot& root) { return PlanWith(SystemdTuner(), p, root); }

// A fixture tree that answers as the running system does, so the plan asks PID 1 where it runs.
class LiveLikeRoot : public FsRoot {
 public:
  using FsRoot::FsRoot;
  bool IsLive() const override { return true; }
};

}  // namespace

TEST_CASE("systemd: CPUAffinity= is planned as a drop-in and says it needs a daemon-reexec", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: housekeeping\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.items.size() == 1);
  const Change& c = plan.items[0];
  CHECK(c.key == kSystemdDropIn);
  CHECK(c.actuator == "dropin");
  CHECK(c.before == "no-file");
  CHECK_THAT(c.after, Catch::Contains("[Manager]\nCPUAffinity=0-1\n"));
  REQUIRE(plan.findings.size() == 1);
  CHECK_THAT(plan.findings[0].message, Catch::Contains("systemctl daemon-reexec"));

  auto none = LoadOn(dir, root, kOnly);
  REQUIRE(none.result);
  CHECK(PlanOf(*none.result, root).items.empty());
}

TEST_CASE("systemd: the plan's row shows CPUAffinity=, not the drop-in's comment", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: housekeeping\n");
  REQUIRE(l.result);
  FullPlan full;
  full.sections.push_back(PlanOf(*l.result, root));
  const std::string text = RenderPlanText(full, false);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("CPUAffinity=0-1"));
  CHECK_THAT(text, !Catch::Contains("# Written by"));
  CHECK_THAT(text, Catch::Contains("no-file"));
}

TEST_CASE("systemd: isolated CPUs in CPUAffinity= warn, a word that is no CPU list is an error", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto iso = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: 1-2\n");
  REQUIRE(iso.result);
  const profile::Diagnostic& w = Only(iso, "systemd.cpu_affinity includes isolated CPU 2");
  CHECK(w.severity == profile::Severity::kWarning);
  CheckAt(w, iso.path, 10, 17);
  auto bad = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: services\n");
  REQUIRE_FALSE(bad.result);
  Only(bad, "'systemd.cpu_affinity'");
}

TEST_CASE("systemd: apply writes the drop-in, revert removes it", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: housekeeping\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK_THAT(t.Get(kSystemdDropIn), Catch::EndsWith("[Manager]\nCPUAffinity=0-1\n"));
  SectionPlan again = PlanOf(*l.result, root);
  REQUIRE(again.items.size() == 1);
  CHECK_FALSE(Pending(again.items[0]));
  CHECK(again.findings.empty());  // a fixture has no PID 1 to ask
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  // The file is gone; the directories made for it stay, empty (systemd reads nothing there).
  for (const std::string& d : test::TreeDiff(kX86, t.dir())) CHECK(d.back() == '/');
  CHECK(t.Get(kSystemdDropIn).empty());
}

TEST_CASE("systemd: a drop-in that was there is put back as it was", "[tune]") {
  TempTree t(kX86);
  const std::string old = "[Manager]\nCPUAffinity=0-3\n";
  t.Put(kSystemdDropIn, old);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: 0\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_THAT(t.Get(kSystemdDropIn), Catch::Contains("CPUAffinity=0\n"));
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(t.Get(kSystemdDropIn) == old);
}

TEST_CASE("systemd: a drop-in that cannot be read is an error of the plan, and nothing is planned", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "systemd:\n  cpu_affinity: housekeeping\n");
  REQUIRE(l.result);
  root.FailReads(kSystemdDropIn, EACCES);  // ENOENT would be "no drop-in yet", planned as new
  SectionPlan plan = PlanOf(*l.result, root);
  CHECK(plan.items.empty());
  REQUIRE(plan.findings.size() == 1);
  CHECK(plan.findings[0].level == Finding::Level::kError);
  CHECK_THAT(plan.findings[0].message, Catch::Contains(std::string(kSystemdDropIn) + " cannot be read: ") &&
                                           Catch::Contains("Permission denied"));
  CHECK(plan.findings[0].mark.line == 10);  // cpu_affinity's line, after kOnly's eight
}

TEST_CASE("systemd: a drop-in written but not read by PID 1 yet warns, with the command that reads it", "[tune]") {
  TempTree t(kX86);
  t.Put(kSystemdDropIn, SystemdDropInText("0-1"));
  t.Put(kpath::TaskStatus(1, 1), "Name:\tsystemd\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n");
  LiveLikeRoot live(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, live, kOnly + "systemd:\n  cpu_affinity: housekeeping\n");
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, live);
  REQUIRE(plan.items.size() == 1);
  CHECK(plan.items[0].before == plan.items[0].after);  // the drop-in is as the profile wants it
  REQUIRE(plan.findings.size() == 1);
  CHECK(plan.findings[0].level == Finding::Level::kWarning);
  CHECK(plan.findings[0].message ==
        "systemd (PID 1) still runs on CPUs 0-3, not CPUs 0-1: the drop-in is written but not read yet");
  CHECK_THAT(plan.findings[0].why, Catch::Contains("systemctl daemon-reexec"));
  CHECK(plan.findings[0].mark.line == 10);

  // Once PID 1 has re-executed and runs where the drop-in says: nothing to say.
  t.Put(kpath::TaskStatus(1, 1), "Name:\tsystemd\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n");
  CHECK(PlanOf(*l.result, live).findings.empty());
  // A fixture tree is not asked: its PID 1 runs nowhere.
  t.Put(kpath::TaskStatus(1, 1), "Name:\tsystemd\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n");
  CHECK(PlanOf(*l.result, FsRoot(t.dir())).findings.empty());
}
