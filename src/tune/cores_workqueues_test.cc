// cores.runtime.workqueue_cpumask on the WQ_SYSFS workqueues' own masks (writeback,
// blkcg_punt_bio): planned beside the global mask, applied and reverted byte-identical on a
// copy of a fixture board, the kernel's EINVAL for an ordered workqueue an outcome; and the
// same on this machine's writeback workqueue ([host]).
#include <unistd.h>

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/skip_test_support.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "tune/apply_profile.h"
#include "tune/cores_tuner.h"
#include "tune/journal.h"
#include "tune/plan_render.h"

using namespace rtagent;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

// Only the workqueue masks: no boot loader file, no IRQ, no default IRQ affinity.
const std::string kProfile =
    "cores:\n  housekeeping: 0\n  isolated: 1-3\n  bootloader: print\n"
    "  runtime: {workqueue_cpumask: housekeeping, default_smp_affinity: keep}\nirqs:\n  default: keep\n  irqbalance: leave\n";

profile::Profile Load(const SysRoot& root, const std::string& yaml = kProfile) {
  profile::Diagnostics d;
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus);
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p);
  return std::move(*p);
}

std::vector<Change> WorkqueueItems(const profile::Profile& p, const SysRoot& root) {
  SystemState state = CollectSystemState(root, PlanSections());
  auto plan = CoresTuner().Plan(PlanContext{p, root, state});
  REQUIRE(plan);
  std::vector<Change> out;
  for (const Change& c : plan->items) {
    if (c.what.find("workqueue") != std::string::npos) out.push_back(c);
  }
  return out;
}

// The x86 board with two unbound WQ_SYSFS workqueues and a per-CPU one (no cpumask file).
void AddWorkqueues(const TempTree& t) {
  t.Put(kpath::WorkqueueCpumask("writeback"), "f\n");
  t.Put(kpath::WorkqueueCpumask("blkcg_punt_bio"), "f\n");
  t.Put(kpath::kWorkqueueDevices + "/kintegrityd/per_cpu", "1\n");
}

}  // namespace

TEST_CASE("workqueue_cpumask sets every unbound WQ_SYSFS workqueue's own mask beside the global one", "[tune]") {
  TempTree t(kX86);
  AddWorkqueues(t);
  FaultRoot root(t.dir());
  const profile::Profile p = Load(root);
  std::vector<Change> items = WorkqueueItems(p, root);
  REQUIRE(items.size() == 3);
  CHECK(items[0].key == kpath::kWorkqueueCpumask);
  CHECK(items[1].key == kpath::WorkqueueCpumask("blkcg_punt_bio"));
  CHECK(items[2].key == kpath::WorkqueueCpumask("writeback"));
  CHECK(items[2].what == "workqueue writeback cpumask");
  CHECK(items[2].compare == Compare::kCpuMask);
  CHECK(items[2].after == "1");
  CHECK(Pending(items[2]));

  const auto before = test::SnapshotTree(t.dir(), true, "run");
  auto applied = ApplyProfile(p, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(t.Get(kpath::WorkqueueCpumask("writeback")) == "1\n");
  CHECK(t.Get(kpath::WorkqueueCpumask("blkcg_punt_bio")) == "1\n");
  for (const Change& c : WorkqueueItems(p, root)) CHECK_FALSE(Pending(c));  // verify: nothing left
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::SnapshotTree(t.dir(), true, "run") == before);
}

TEST_CASE("workqueue_cpumask keep leaves the workqueues' own masks alone too", "[tune]") {
  TempTree t(kX86);
  AddWorkqueues(t);
  FsRoot root(t.dir());
  const profile::Profile p = Load(root, "cores:\n  housekeeping: 0\n  bootloader: print\n  runtime: {workqueue_cpumask: keep}\n");
  CHECK(WorkqueueItems(p, root).empty());
}

TEST_CASE("a workqueue that refuses a new mask with EINVAL is unchangeable and apply goes on", "[tune]") {
  TempTree t(kX86);
  AddWorkqueues(t);
  FaultRoot root(t.dir());
  root.FailWrites(kpath::WorkqueueCpumask("blkcg_punt_bio"), EINVAL);
  auto applied = ApplyProfile(Load(root), root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(applied->report.Count(Outcome::kUnchangeable) == 1);
  CHECK(t.Get(kpath::WorkqueueCpumask("writeback")) == "1\n");
  CHECK(t.Get(kpath::WorkqueueCpumask("blkcg_punt_bio")) == "f\n");
  REQUIRE(RevertJournal(root));
}

TEST_CASE("the writeback workqueue's mask applied, verified and reverted on this machine", "[tune][host]") {
  auto opened = OpenRoot("/");
  REQUIRE(opened);
  SysRoot& live = **opened;
  if (::geteuid() != 0) RTAGENT_SKIP("needs root to write workqueue masks");
  if (live.Exists(Journal::Path())) RTAGENT_SKIP("a journal of an earlier apply is on this machine; not touching it");
  const std::string wb = kpath::WorkqueueCpumask("writeback");
  auto wb_before = live.ReadTrimmed(wb);
  auto global_before = live.ReadTrimmed(kpath::kWorkqueueCpumask);
  auto online = live.ReadTrimmed(kpath::kCpuOnline);
  if (!wb_before || !global_before) RTAGENT_SKIP("this kernel has no writeback workqueue in sysfs");
  if (!online || *online == "0") RTAGENT_SKIP("needs two CPUs");
  struct Restore {
    SysRoot& live;
    std::vector<std::pair<std::string, std::string>> saved;
    ~Restore() {
      (void)RevertJournal(live);
      for (const auto& [path, value] : saved) (void)live.Write(path, value);
    }
  } guard{live, {{wb, *wb_before}, {kpath::kWorkqueueCpumask, *global_before}}};

  const profile::Profile p = Load(live, "cores:\n  housekeeping: 0\n  bootloader: print\n"
                                        "  runtime: {workqueue_cpumask: 0, default_smp_affinity: keep}\n"
                                        "irqs:\n  default: keep\n  irqbalance: leave\n");
  auto applied = ApplyProfile(p, live);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(SameValue(Compare::kCpuMask, *live.ReadTrimmed(wb), "1"));
  for (const Change& c : WorkqueueItems(p, live)) CHECK_FALSE(Pending(c));
  auto reverted = RevertJournal(live);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(*live.ReadTrimmed(wb) == *wb_before);
  CHECK(*live.ReadTrimmed(kpath::kWorkqueueCpumask) == *global_before);
}

TEST_CASE("the plan's table shows a hex mask with the CPUs it names, the JSON the kernel's text",
          "[tune]") {
  // "f -> 1" beside the IRQs' "0-3 -> 0" reads as CPU 15 moving to CPU 1.
  TempTree t(kX86);
  AddWorkqueues(t);
  t.Put(kpath::WorkqueueCpumask("blkcg_punt_bio"), "0\n");
  FaultRoot root(t.dir());
  const profile::Profile p = Load(root);
  FullPlan full;
  SectionPlan cores;
  cores.section = "cores";
  cores.items = WorkqueueItems(p, root);
  full.sections.push_back(std::move(cores));
  const std::string plan = RenderPlanText(full, false);
  INFO(plan);
  CHECK_THAT(plan, Catch::Contains("unbound workqueue cpumask         f (CPUs 0-3)  ->  1 (CPU 0)"));
  CHECK_THAT(plan, Catch::Contains("workqueue blkcg_punt_bio cpumask  0 (no CPU)    ->  1 (CPU 0)"));
  const std::string json = PlanJson(full).dump();
  CHECK_THAT(json, Catch::Contains("\"before\":\"f\""));
  CHECK_THAT(json, !Catch::Contains("(CPUs"));
}
