// The tuners end to end on copies of the fixture boards: plan, apply, plan again, revert.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "profile/loader.h"
#include "tune/apply_profile.h"
#include "tune/cores_tuner.h"
#include "tune/tuner.h"

using namespace rtagent;

namespace {

const std::string kArm = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kIpc = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

profile::Profile Load(const SysRoot& root, const std::string& yaml) {
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus.ok());
  profile::Diagnostics d;
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  return std::move(*p);
}

const Change* Find(const FullPlan& plan, const std::string& key) {
  for (const auto& s : plan.sections) {
    for (const auto& c : s.items) {
      if (c.key == key) return &c;
    }
  }
  return nullptr;
}

const char* kBoard = R"(
cores:
  housekeeping: 0-3
  isolated: 4-7
  bootloader: print
  runtime:
    timer_migration: false
irqs:
  default: housekeeping
  rules:
    eth:
      action: "eth0"
      cpus: 1
    nothing:
      action: "no-such-device"
      cpus: 0
power:
  cpus: isolated
  max_exit_latency_us: 100
  governor: performance
memory:
  thp:
    enabled: madvise
    defrag: never
  sysctl:
    vm.stat_interval: 10
)";

}  // namespace

TEST_CASE("plan reads the board and lists every change by section", "[tune][plan]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  auto p = Load(root, kBoard);
  auto plan = PlanAll(p, root);
  REQUIRE(plan.ok());
  // IRQ rule by action name, default for the rest.
  const Change* eth = nullptr;
  for (const auto& s : plan->sections) {
    for (const auto& c : s.items) {
      if (c.what.find("(eth0)") != std::string::npos) eth = &c;
    }
  }
  REQUIRE(eth);
  CHECK(eth->after == "1");
  CHECK_THAT(eth->why, Catch::Contains("eth"));
  // Per-CPU interrupts are findings, never changes.
  bool per_cpu_noted = false, unused_rule = false;
  for (const auto& s : plan->sections) {
    for (const auto& f : s.findings) {
      per_cpu_noted |= f.message.find("arch_timer") != std::string::npos;
      unused_rule |= f.message.find("\"nothing\" matches no IRQ") != std::string::npos;
    }
  }
  CHECK(per_cpu_noted);
  CHECK(unused_rule);
  // The cpuidle state above 100 us is disabled on isolated CPUs only.
  const Change* deep = Find(*plan, kpath::CpuIdleState(5, 2) + "/disable");
  REQUIRE(deep);
  CHECK(deep->after == "1");
  CHECK(Find(*plan, kpath::CpuIdleState(1, 2) + "/disable") == nullptr);
  // The board already boots with isolcpus for 4-7: nothing pending at reboot for it.
  const Change* iso = Find(*plan, kpath::kCmdline + "#isolcpus");
  REQUIRE(iso);
  CHECK_FALSE(Pending(*iso));
  // THP defrag compared by the bracketed choice.
  const Change* defrag = Find(*plan, kpath::kThpDefrag);
  REQUIRE(defrag);
  CHECK(defrag->after == "never");
}

TEST_CASE("apply, then plan again: nothing left, revert puts the board back", "[tune][plan]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  const std::string irq85 = t.Get(kpath::ProcIrq(85) + "/smp_affinity_list");
  const std::string thp = t.Get(kpath::kThpEnabled);
  auto p = Load(root, kBoard);
  auto plan = PlanAll(p, root);
  REQUIRE(plan.ok());
  size_t pending = plan->PendingChanges().size();
  REQUIRE(pending > 5);

  Journal journal(root);
  auto ex = MakeTuningExecutor(root, journal);
  ApplyReport rep = ex->Apply(plan->PendingChanges());
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kFailed) == 0);

  auto again = PlanAll(p, root);
  REQUIRE(again.ok());
  for (const auto& c : again->PendingChanges()) {
    INFO(c.what << ": " << c.before << " -> " << c.after);
    CHECK(c.reboot);  // only boot-time items can remain
  }
  CHECK(t.Get(kpath::ProcIrq(85) + "/smp_affinity_list") == "1\n");

  Journal reload(root);
  REQUIRE(reload.Load().ok());
  auto ex2 = MakeTuningExecutor(root, reload);
  RevertReport rev = ex2->Revert();
  CHECK(rev.complete);
  CHECK(t.Get(kpath::ProcIrq(85) + "/smp_affinity_list") == irq85);
  CHECK(t.Get(kpath::kThpEnabled).find("never") != std::string::npos);
  (void)thp;
}

TEST_CASE("a governor the board does not offer is an error per CPU naming the ones it has, and nothing is planned for it", "[tune][plan]") {
  FsRoot root(kIpc);
  auto plan = PlanAll(Load(root, "cores:\n  housekeeping: 0\n  isolated: 1-3\npower:\n  cpus: isolated\n  governor: schedutil\n"), root);
  REQUIRE(plan.ok());
  int errors = 0;
  for (const auto& s : plan->sections) {
    for (const auto& f : s.findings) {
      if (f.level != Finding::Level::kError) continue;
      ++errors;
      CHECK(s.section == "power");
      CHECK_THAT(f.message, Catch::EndsWith("has no cpufreq governor \"schedutil\" (available: performance, powersave)"));
      CHECK(f.mark.line == 6);
    }
  }
  CHECK(errors == 3);  // CPUs 1, 2 and 3
  for (int cpu = 1; cpu <= 3; ++cpu) CHECK(Find(*plan, kpath::CpuFreqDir(cpu) + "/scaling_governor") == nullptr);
}

TEST_CASE("an IRQ the kernel refuses to move is unchangeable, and apply goes on", "[tune][plan]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  // nvme0q3 is a managed queue vector: the kernel answers EIO.
  root.FailWrites(kpath::ProcIrq(99) + "/smp_affinity_list", EIO);
  auto p = Load(root, kBoard);
  auto plan = PlanAll(p, root);
  REQUIRE(plan.ok());
  Journal journal(root);
  auto ex = MakeTuningExecutor(root, journal);
  ApplyReport rep = ex->Apply(plan->PendingChanges());
  CHECK_FALSE(rep.rolled_back);
  bool found = false;
  for (const auto& r : rep.results) {
    if (r.change.key == kpath::ProcIrq(99) + "/smp_affinity_list") {
      found = true;
      CHECK(r.outcome == Outcome::kUnchangeable);
      CHECK_THAT(r.detail, Catch::Contains("managed"));
    }
  }
  CHECK(found);
}

TEST_CASE("an IRQ whose domain answers EPERM to root is unchangeable too, and apply goes on", "[tune][plan]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  // A hypervisor's MSI-X queue line that refuses any affinity with EPERM (seen on this VM).
  root.FailWrites(kpath::ProcIrq(99) + "/smp_affinity_list", EPERM);
  auto p = Load(root, kBoard);
  auto plan = PlanAll(p, root);
  REQUIRE(plan.ok());
  Journal journal(root);
  auto ex = MakeTuningExecutor(root, journal);
  ApplyReport rep = ex->Apply(plan->PendingChanges());
  CHECK_FALSE(rep.rolled_back);
  int unchangeable = 0, failed = 0;
  for (const auto& r : rep.results) {
    if (r.outcome == Outcome::kFailed) ++failed;
    if (r.change.key == kpath::ProcIrq(99) + "/smp_affinity_list") {
      CHECK(r.outcome == Outcome::kUnchangeable);
      CHECK_THAT(r.detail, Catch::Contains("EPERM"));
      ++unchangeable;
    }
  }
  CHECK(unchangeable == 1);
  CHECK(failed == 0);
}

TEST_CASE("a failure in the middle of apply rolls every section back", "[tune][plan]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  root.FailWrites(kpath::kThpEnabled, EACCES);
  const std::string wq = t.Get(kpath::kWorkqueueCpumask);
  const std::string thp = t.Get(kpath::kThpEnabled);
  // cores (the workqueue mask, timer_migration) runs before memory, whose THP write fails.
  auto p = Load(root, R"(
cores:
  housekeeping: 0-1
  isolated: 2-7
  runtime:
    workqueue_cpumask: 0-1
    timer_migration: true
memory:
  thp:
    enabled: madvise
irqs:
  default: 0-1
)");
  auto plan = PlanAll(p, root);
  REQUIRE(plan.ok());
  Journal journal(root);
  auto ex = MakeTuningExecutor(root, journal);
  ApplyReport rep = ex->Apply(plan->PendingChanges());
  CHECK(rep.rolled_back);
  CHECK(rep.Count(Outcome::kRolledBack) >= 2);
  CHECK(rep.Count(Outcome::kFailed) == 1);
  CHECK(t.Get(kpath::kWorkqueueCpumask) == wq);
  CHECK(t.Get(kpath::kTimerMigration) == "0\n");
  CHECK(t.Get(kpath::kThpEnabled) == thp);
  CHECK(t.Get(kpath::ProcIrq(85) + "/smp_affinity_list") != "0-1\n");  // irqs come after memory: never reached
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("boot arguments are rendered into the board's boot loader file", "[tune][boot]") {
  TempTree t(kIpc);
  t.Put("etc/default/grub", "GRUB_DEFAULT=0\n");
  FaultRoot root(t.dir());
  auto p = Load(root, R"(
cores:
  housekeeping: 0
  isolated: 1-3
  bootloader: auto
)");
  auto plan = PlanAll(p, root);
  REQUIRE(plan.ok());
  const Change* dropin = Find(*plan, "etc/default/grub.d/90-rtagent.cfg");
  REQUIRE(dropin);
  CHECK(dropin->actuator == "bootfile+update-grub");
  CHECK(dropin->before.empty());
  CHECK_THAT(dropin->after, Catch::Contains("isolcpus=nohz,domain,managed_irq,1-3"));
  CHECK_FALSE(plan->RebootRequired().empty());

  Journal journal(root);
  auto ex = MakeTuningExecutor(root, journal);
  ApplyReport rep = ex->Apply(plan->PendingChanges());
  CHECK(rep.Count(Outcome::kRebootRequired) > 0);
  CHECK_THAT(t.Get("etc/default/grub.d/90-rtagent.cfg"), Catch::Contains("GRUB_CMDLINE_LINUX="));
  // Reverting removes the drop-in rtagent created.
  auto ex2 = MakeTuningExecutor(root, journal);
  CHECK(ex2->Revert().complete);
  CHECK_FALSE(root.Exists("etc/default/grub.d/90-rtagent.cfg"));
}

TEST_CASE("canonical boot values compare by meaning", "[tune][boot]") {
  CHECK(CanonicalBootValue("isolcpus", std::string("managed_irq,nohz,domain,2,3"), 4) == "domain,managed_irq,nohz,2-3");
  CHECK(CanonicalBootValue("isolcpus", std::string("2-3"), 4) == "domain,2-3");
  CHECK(CanonicalBootValue("nohz_full", std::string("3,2"), 4) == "2-3");
  CHECK(CanonicalBootValue("rcu_nocb_poll", std::nullopt, 4) == "on");
}
