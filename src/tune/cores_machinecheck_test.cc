// cores.runtime.machinecheck_ignore_ce, TuneD realtime's [sysfs] machinecheck*/ignore_ce: one
// item per CPU's machine-check device of the x86 fixture board, applied, verified and reverted
// byte-identical; a note and nothing planned where the kernel has no machine-check devices;
// every way it goes wrong (a bad value, an unreadable device, a refused write) as a user sees it.
// No live case: the development VM has no /sys/devices/system/machinecheck.
#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/shell_test_support.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/cores_tuner.h"
#include "tune/tuner_test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;

namespace {

const std::string kSysroots = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/";

// Only machine-check polling: no other runtime knob, no IRQ, no boot loader file.
std::string McProfile(const std::string& value) {
  return "cores:\n  housekeeping: 0\n  isolated: 1-3\n  bootloader: print\n"
         "  runtime:\n    workqueue_cpumask: keep\n    default_smp_affinity: keep\n    machinecheck_ignore_ce: " +
         value + "\nirqs:\n  default: keep\n  irqbalance: leave\n";
}

profile::Profile LoadOn(const SysRoot& root, const std::string& yaml) {
  profile::Diagnostics d;
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus);
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p);
  return std::move(*p);
}

SectionPlan CoresPlan(const profile::Profile& p, const SysRoot& root) { return tune_testing::PlanWith(CoresTuner(), p, root); }

std::vector<Change> McItems(const SectionPlan& plan) {
  std::vector<Change> out;
  for (const Change& c : plan.items) {
    if (c.what.find("machine-check") != std::string::npos) out.push_back(c);
  }
  return out;
}

std::string Ce(const TempTree& t, int cpu) { return t.Get(kpath::MachinecheckIgnoreCe("machinecheck" + std::to_string(cpu))); }

}  // namespace

TEST_CASE("machinecheck_ignore_ce: one item per CPU's device, applied, verified and reverted byte-identical", "[tune]") {
  TempTree t(kSysroots + "x86-ipc-4cpu");
  FaultRoot root(t.dir());
  const profile::Profile p = LoadOn(root, McProfile("true"));
  std::vector<Change> items = McItems(CoresPlan(p, root));
  REQUIRE(items.size() == 4);
  for (int cpu = 0; cpu < 4; ++cpu) {
    const Change& c = items[static_cast<size_t>(cpu)];
    CHECK(c.key == kpath::MachinecheckIgnoreCe("machinecheck" + std::to_string(cpu)));
    CHECK(c.what == "machine-check machinecheck" + std::to_string(cpu) + " ignore_ce");
    CHECK(c.before == "0");
    CHECK(c.after == "1");
    CHECK(c.compare == Compare::kInteger);
    CHECK_FALSE(c.reboot);
    CHECK(Pending(c));
  }

  const auto before = test::SnapshotTree(t.dir(), true, "run");
  auto applied = ApplyProfile(p, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  for (int cpu = 0; cpu < 4; ++cpu) CHECK(Ce(t, cpu) == "1\n");
  for (const Change& c : McItems(CoresPlan(p, root))) CHECK_FALSE(Pending(c));  // verify: nothing left to do
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::SnapshotTree(t.dir(), true, "run") == before);
}

TEST_CASE("machinecheck_ignore_ce: false turns the polling back on, keep and absent leave it", "[tune]") {
  TempTree t(kSysroots + "x86-ipc-4cpu");
  for (int cpu = 0; cpu < 4; ++cpu) t.Put(kpath::MachinecheckIgnoreCe("machinecheck" + std::to_string(cpu)), "1\n");
  FsRoot root(t.dir());
  std::vector<Change> off = McItems(CoresPlan(LoadOn(root, McProfile("false")), root));
  REQUIRE(off.size() == 4);
  CHECK(off[0].before == "1");
  CHECK(off[0].after == "0");
  CHECK(McItems(CoresPlan(LoadOn(root, McProfile("keep")), root)).empty());
  CHECK(McItems(CoresPlan(LoadOn(root, "cores:\n  housekeeping: 0\n  bootloader: print\n"), root)).empty());
  // already 1 where the profile wants true: planned, nothing pending
  for (const Change& c : McItems(CoresPlan(LoadOn(root, McProfile("true")), root))) CHECK_FALSE(Pending(c));
}

TEST_CASE("machinecheck_ignore_ce: no machine-check devices (this VM, arm64) is a note and nothing planned", "[tune]") {
  for (const char* tree : {"vm-x86-captured", "arm64-rt-8cpu"}) {
    FsRoot root(kSysroots + tree);
    REQUIRE_FALSE(root.Exists(kpath::kMachinecheckDir));
    const SectionPlan plan = CoresPlan(LoadOn(root, "cores:\n  runtime:\n    machinecheck_ignore_ce: true\n"), root);
    CHECK(McItems(plan).empty());
    const Finding* note = nullptr;
    for (const Finding& f : plan.findings) {
      if (f.message.find("machine-check polling") != std::string::npos) note = &f;
    }
    INFO(tree);
    REQUIRE(note != nullptr);
    CHECK(note->level == Finding::Level::kInfo);
    CHECK_THAT(note->message, Catch::Contains("not x86, or a kernel without CONFIG_X86_MCE") &&
                                  Catch::Contains("machinecheck_ignore_ce left alone"));
    CHECK(note->mark.line == 3);
  }
}

TEST_CASE("machinecheck_ignore_ce: an unreadable device is a warning and the others are planned", "[tune]") {
  TempTree t(kSysroots + "x86-ipc-4cpu");
  FaultRoot root(t.dir());
  root.FailReads(kpath::MachinecheckIgnoreCe("machinecheck2"), EACCES);
  const SectionPlan plan = CoresPlan(LoadOn(root, McProfile("true")), root);
  std::vector<Change> items = McItems(plan);
  REQUIRE(items.size() == 3);
  CHECK(items[2].key == kpath::MachinecheckIgnoreCe("machinecheck3"));
  std::vector<Finding> about;
  for (const Finding& f : plan.findings) {
    if (f.message.find("machinecheck") != std::string::npos) about.push_back(f);
  }
  REQUIRE(about.size() == 1);
  CHECK(about[0].level == Finding::Level::kWarning);
  CHECK_THAT(about[0].message, Catch::StartsWith("machinecheck2 ignore_ce: ") && Catch::Contains("Permission denied") &&
                                   Catch::EndsWith("(left alone)"));
}

TEST_CASE("machinecheck_ignore_ce: a refused write rolls every device back", "[tune]") {
  TempTree t(kSysroots + "x86-ipc-4cpu");
  FaultRoot root(t.dir());
  root.FailWrites(kpath::MachinecheckIgnoreCe("machinecheck2"), EPERM);
  const auto before = test::SnapshotTree(t.dir(), true, "run");
  auto applied = ApplyProfile(LoadOn(root, McProfile("true")), root);
  REQUIRE(applied);
  CHECK(applied->report.rolled_back);
  for (int cpu = 0; cpu < 4; ++cpu) CHECK(Ce(t, cpu) == "0\n");
  CHECK(test::SnapshotTree(t.dir(), true, "run") == before);
}

TEST_CASE("machinecheck_ignore_ce: a value other than true, false or keep is an error at its line, with a hint", "[tune]") {
  TempDir dir;
  auto word = LoadYaml(dir, "cores:\n  runtime:\n    machinecheck_ignore_ce: maybe\n");
  REQUIRE_FALSE(word.result.ok());
  CheckAt(Only(word, "'cores.runtime.machinecheck_ignore_ce' must be true, false or keep, got \"maybe\""), word.path, 3, 29);
  CHECK_THAT(Only(word, "machinecheck_ignore_ce").hint, Catch::Contains("keep (leave the kernel's value)"));

  auto list = LoadYaml(dir, "cores:\n  runtime:\n    machinecheck_ignore_ce: [1]\n");
  REQUIRE_FALSE(list.result.ok());
  CheckAt(Only(list, "machinecheck_ignore_ce"), list.path, 3, 29);

  auto keep = LoadYaml(dir, "cores:\n  runtime:\n    machinecheck_ignore_ce: keep\n");
  REQUIRE(keep.result.ok());
  CHECK_FALSE(keep.result->cores.runtime.machinecheck_ignore_ce->has_value());
  auto yes = LoadYaml(dir, "cores:\n  runtime:\n    machinecheck_ignore_ce: yes\n");
  REQUIRE(yes.result.ok());
  CHECK(*yes.result->cores.runtime.machinecheck_ignore_ce == std::optional<bool>(true));
}

TEST_CASE("machinecheck_ignore_ce: false beside mce=ignore_ce on the command line is a warning", "[tune]") {
  TempDir dir;
  auto both = LoadYaml(dir, "cores:\n  boot:\n    extra: [mce=ignore_ce]\n  runtime:\n    machinecheck_ignore_ce: false\n");
  REQUIRE(both.result.ok());
  const profile::Diagnostic& w = Only(both, "machinecheck_ignore_ce is false but cores.boot.extra has mce=ignore_ce");
  CHECK(w.severity == profile::Severity::kWarning);
  CheckAt(w, both.path, 5, 29);
  auto agree = LoadYaml(dir, "cores:\n  boot:\n    extra: [mce=ignore_ce]\n  runtime:\n    machinecheck_ignore_ce: true\n");
  REQUIRE(agree.result.ok());
  CHECK(agree.diags.WarningCount() == 0);
}

TEST_CASE("rtagent apply, verify and revert of machinecheck_ignore_ce on the x86 fixture board", "[tune][cli]") {
  TempTree t(kSysroots + "x86-ipc-4cpu");
  const auto before = test::SnapshotTree(t.dir(), true, "run");
  profile::testing::TempDir dir;
  const std::string board = dir.Write("board.yaml", McProfile("true"));
  const std::string suite = dir.Write("suite.yaml", "name: conformance\nchecks: [conformance]\n");
  auto rt = [&](const std::string& args) {
    return rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " " + args + " --root " + t.dir() + " 2>&1");
  };
  auto plan = rt("plan " + board);
  INFO(plan.out);
  CHECK(plan.code == 0);
  CHECK_THAT(plan.out, Catch::Contains("machine-check machinecheck3 ignore_ce"));
  auto apply = rt("apply " + board);
  INFO(apply.out);
  REQUIRE(apply.code == 0);
  for (int cpu = 0; cpu < 4; ++cpu) CHECK(Ce(t, cpu) == "1\n");
  auto ok = rt("verify " + board + " --suite " + suite);
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Catch::Contains("all 4 cores settings match the profile"));  // WARN only for the boot line
  // Something turns the polling back on for one CPU: verify names that device.
  t.Put(kpath::MachinecheckIgnoreCe("machinecheck1"), "0\n");
  auto drift = rt("verify " + board + " --suite " + suite);
  INFO(drift.out);
  CHECK(drift.code == 1);
  CHECK_THAT(drift.out, Catch::Contains("FAIL conformance.cores") &&
                            Catch::Contains("machine-check machinecheck1 ignore_ce: 0 (wants 1)"));
  t.Put(kpath::MachinecheckIgnoreCe("machinecheck1"), "1\n");
  auto revert = rt("revert");
  INFO(revert.out);
  CHECK(revert.code == 0);
  CHECK(test::SnapshotTree(t.dir(), true, "run") == before);
}
