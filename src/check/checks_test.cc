// The kernel, cmdline, clock and conformance checks on the fixture trees, as a user reads
// their answers: the status, and the words and figures that say why.
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "check/check_test_support.h"
#include "check/clock_check.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/refusals.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;
using profile::testing::CheckAt;
using profile::testing::LoadYaml;
using profile::testing::Only;
using profile::testing::TempDir;

namespace {

// The arm64 board's own tuning, as a profile: what its command line and sysfs already show.
const std::string kArmMatching =
    "cores:\n"
    "  housekeeping: 0-3\n"
    "  isolated: 4-7\n"
    "kernel:\n"
    "  preempt_rt: required\n"
    "  min_version: \"6.6\"\n"
    "  rt_safety_net: isolated_only\n";

}  // namespace

TEST_CASE("kernel: PREEMPT_RT, version and the fair server on the RT board", "[check]") {
  Bench b = LoadBench(Tree("arm64-rt-8cpu"), kArmMatching);
  auto rs = b.Run("kernel");
  const auto& rt = ById(rs, "kernel.preempt_rt");
  CHECK(rt.status == Status::kPass);
  CHECK_THAT(rt.measured, Catch::Contains("PREEMPT_RT"));
  CHECK(rt.chapter == "Chapter 4 (Inside the real-time kernel)");
  CHECK(rt.mark.line == 5);
  const auto& v = ById(rs, "kernel.version");
  CHECK(v.status == Status::kPass);
  CHECK(v.measured == "6.12.43-rt12-rk3588");
  CHECK(v.limit == ">= 6.6");
  const auto& net = ById(rs, "kernel.safety_net");
  CHECK(net.status == Status::kPass);
  CHECK_THAT(net.measured, Catch::Contains("fair server") && Catch::Contains("off on CPUs 4-7"));
  CHECK(net.chapter == "Chapter 2 (Who goes first)");
}

TEST_CASE("kernel: the safety net off on isolated CPUs is a WARN when the profile says keep", "[check]") {
  Bench b = LoadBench(Tree("arm64-rt-8cpu"), "cores:\n  housekeeping: 0-3\n  isolated: 4-7\nkernel:\n  rt_safety_net: keep\n");
  const auto& net = ById(b.Run("kernel"), "kernel.safety_net");
  CHECK(net.status == Status::kWarn);
  CHECK_THAT(net.summary, Catch::Contains("profile says keep"));
  CHECK_FALSE(net.hint.empty());
}

TEST_CASE("kernel: the fair server off on a housekeeping CPU fails", "[check]") {
  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("sys/kernel/debug/sched/fair_server/cpu1/runtime", "0\n");
  Bench b = LoadBench(t.dir(), kArmMatching);
  const auto& net = ById(b.Run("kernel"), "kernel.safety_net");
  CHECK(net.status == Status::kFail);
  CHECK_THAT(net.summary, Catch::Contains("off on CPU 1") && Catch::Contains("not isolated"));
  CHECK_THAT(net.hint, Catch::Contains("fair_server"));
}

TEST_CASE("kernel: a stock kernel fails, warns or passes as the profile asks", "[check]") {
  const std::string tree = Tree("x86-ipc-4cpu");
  Bench req = LoadBench(tree, "kernel:\n  preempt_rt: required\n  min_version: \"6.6\"\n");
  auto rs = req.Run("kernel");
  const auto& rt = ById(rs, "kernel.preempt_rt");
  CHECK(rt.status == Status::kFail);
  CHECK_THAT(rt.summary, Catch::Contains("not PREEMPT_RT"));
  CHECK(rt.measured == "PREEMPT_DYNAMIC");
  CHECK_THAT(rt.hint, Catch::Contains("PREEMPT_RT"));
  const auto& v = ById(rs, "kernel.version");
  CHECK(v.status == Status::kFail);
  CHECK_THAT(v.summary, Catch::Contains("6.1.0-37-amd64 is older than the profile's minimum 6.6"));

  CHECK(ById(LoadBench(tree, "kernel:\n  preempt_rt: preferred\n").Run("kernel"), "kernel.preempt_rt").status == Status::kWarn);
  CHECK(ById(LoadBench(tree, "kernel:\n  preempt_rt: any\n").Run("kernel"), "kernel.preempt_rt").status == Status::kPass);
  // Before 6.12 the safety net is RT throttling.
  const auto& net = ById(req.Run("kernel"), "kernel.safety_net");
  CHECK(net.status == Status::kPass);
  CHECK_THAT(net.measured, Catch::Contains("RT throttling: sched_rt_runtime_us=950000"));
}

TEST_CASE("kernel: a tree without uname -v or a release to read says it cannot tell", "[check]") {
  TempTree t(Tree("x86-ipc-4cpu"));
  std::filesystem::remove(t.dir() + "/" + kpath::kVersion);
  std::filesystem::remove(t.dir() + "/" + kpath::kRealtime);
  t.Put(kpath::kOsRelease, "custom-build\n");  // no number to compare
  auto rs = LoadBench(t.dir(), "kernel:\n  preempt_rt: required\n  min_version: \"6.6\"\n").Run("kernel");
  const auto& rt = ById(rs, "kernel.preempt_rt");
  CHECK(rt.status == Status::kWarn);  // not a FAIL: nothing says the kernel is not PREEMPT_RT
  CHECK(rt.summary == "cannot tell the preemption model: uname -v (proc/sys/kernel/version) is not readable");
  CHECK(rt.measured == "no preemption model in uname -v");
  CHECK_THAT(rt.hint, Catch::Contains("proc/sys/kernel/version"));
  const auto& v = ById(rs, "kernel.version");
  CHECK(v.status == Status::kWarn);
  CHECK(v.summary == "cannot read the kernel version (custom-build) to compare with 6.6");
  CHECK_THAT(v.hint, Catch::Contains("osrelease"));
  // A profile that takes any kernel has nothing to warn about.
  CHECK(ById(LoadBench(t.dir(), "kernel:\n  preempt_rt: any\n").Run("kernel"), "kernel.preempt_rt").status == Status::kPass);
}

TEST_CASE("kernel: RT throttling switched off on a stock kernel fails", "[check]") {
  TempTree t(Tree("x86-ipc-4cpu"));
  t.Put("proc/sys/kernel/sched_rt_runtime_us", "-1\n");
  const auto& net = ById(LoadBench(t.dir(), "").Run("kernel"), "kernel.safety_net");
  CHECK(net.status == Status::kFail);
  CHECK_THAT(net.hint, Catch::Contains("950000"));
}

TEST_CASE("kernel: a 6.12+ kernel without debugfs cannot show its fair server", "[check]") {
  const auto& net = ById(LoadBench(Tree("vm-x86-captured"), "").Run("kernel"), "kernel.safety_net");
  CHECK(net.status == Status::kWarn);
  CHECK_THAT(net.summary, Catch::Contains("cannot see"));
  CHECK_THAT(net.hint, Catch::Contains("debugfs"));
}

TEST_CASE("cmdline: the RT board booted with every argument and the kernel applied them", "[check]") {
  Bench b = LoadBench(Tree("arm64-rt-8cpu"), kArmMatching);
  auto rs = b.Run("cmdline");
  CHECK(ById(rs, "cmdline.boot_args").status == Status::kPass);
  CHECK_THAT(ById(rs, "cmdline.boot_args").summary, Catch::Contains("holds all"));
  const auto& iso = ById(rs, "cmdline.isolated");
  CHECK(iso.status == Status::kPass);
  CHECK(iso.measured == "4-7");
  CHECK(ById(rs, "cmdline.nohz_full").status == Status::kPass);
}

TEST_CASE("cmdline: another isolation than the booted one is a pending reboot", "[check]") {
  Bench b = LoadBench(Tree("arm64-rt-8cpu"), "cores:\n  housekeeping: 0-5\n  isolated: 6-7\n");
  auto rs = b.Run("cmdline");
  const auto& args = ById(rs, "cmdline.boot_args");
  CHECK(args.status == Status::kWarn);
  CHECK_THAT(args.summary, Catch::StartsWith("reboot required"));
  CHECK_THAT(args.measured, Catch::Contains("nohz_full=6-7 (now nohz_full=4-7)"));
  CHECK_THAT(args.hint, Catch::Contains("rtagent apply"));
  const auto& iso = ById(rs, "cmdline.isolated");
  CHECK(iso.status == Status::kWarn);
  CHECK(iso.summary == "reboot required: /sys/devices/system/cpu/isolated is 4-7, the profile's isolcpus=6-7 is not "
                      "booted yet");
  CHECK(iso.measured == "4-7");
  CHECK(iso.limit == "6-7");
  CHECK(iso.mark.line == 3);
}

TEST_CASE("cmdline: nohz_full on the command line that the kernel did not apply fails", "[check]") {
  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("sys/devices/system/cpu/nohz_full", "(null)\n");
  auto rs = LoadBench(t.dir(), kArmMatching).Run("cmdline");
  const auto& nohz = ById(rs, "cmdline.nohz_full");
  CHECK(nohz.status == Status::kFail);
  CHECK_THAT(nohz.summary, Catch::Contains("did not apply"));
  CHECK(nohz.measured == "none");
  CHECK_THAT(nohz.hint, Catch::Contains("CONFIG_NO_HZ_FULL"));
  CHECK(ById(rs, "cmdline.isolated").status == Status::kPass);
}

TEST_CASE("cmdline: a board with no isolation yet needs a reboot", "[check]") {
  Bench b = LoadFile(Tree("x86-ipc-4cpu"), ProfileFile("x86-ipc.yaml"));
  auto rs = b.Run("cmdline");
  const auto& args = ById(rs, "cmdline.boot_args");
  CHECK(args.status == Status::kWarn);
  CHECK_THAT(args.measured, Catch::Contains("isolcpus=nohz,domain,managed_irq,1-3") &&
                                Catch::Contains("intel_idle.max_cstate=1"));
  CHECK(ById(rs, "cmdline.nohz_full").status == Status::kWarn);
}

TEST_CASE("cmdline: an unreadable /proc/cmdline is a SKIP with the reason", "[check]") {
  TempTree t(Tree("x86-ipc-4cpu"));
  std::filesystem::remove(t.dir() + "/proc/cmdline");
  auto rs = LoadBench(t.dir(), "").Run("cmdline");
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("not readable"));
}

TEST_CASE("clock: the captured VM is a virtual machine and says its figures are VM figures", "[check]") {
  auto rs = LoadBench(Tree("vm-x86-captured"), "").Run("clock");
  const auto& vm = ById(rs, "clock.hypervisor");
  CHECK(vm.status == Status::kWarn);
  CHECK_THAT(vm.summary, Catch::Contains("virtual machine") && Catch::Contains("not the board's real-time figure"));
  CHECK_THAT(vm.measured, Catch::Contains("hypervisor"));
  const auto& src = ById(rs, "clock.source");
  CHECK(src.status == Status::kPass);
  CHECK_THAT(src.measured, Catch::Contains("tsc (available: tsc kvm-clock)"));
  // A fixture's clock cannot be measured: this machine's is not the fixture's.
  const auto& res = ById(rs, "clock.resolution");
  CHECK(res.status == Status::kSkip);
  CHECK_THAT(res.summary, Catch::Contains("fixture"));
}

TEST_CASE("clock: the industrial PC is bare metal, hpet as clocksource warns", "[check]") {
  auto rs = LoadBench(Tree("x86-ipc-4cpu"), "").Run("clock");
  CHECK(ById(rs, "clock.hypervisor").status == Status::kPass);
  CHECK(ById(rs, "clock.source").status == Status::kPass);

  TempTree t(Tree("x86-ipc-4cpu"));
  t.Put("sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
  const auto& src = ById(LoadBench(t.dir(), "").Run("clock"), "clock.source");
  CHECK(src.status == Status::kWarn);
  CHECK_THAT(src.summary, Catch::Contains("hpet"));
  CHECK_THAT(src.hint, Catch::Contains("tsc"));
}

TEST_CASE("clock: a coarse clock warns that the figures are not real-time figures", "[check]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "");
  CheckEnv env{b.profile, *b.root, b.state, b.suite, [](Duration) { return true; }, nullptr};
  ClockFacts coarse;
  coarse.resolution_ns = 4000000;  // a 250 Hz jiffies clock
  coarse.read_cost_ns = 30;
  const auto& r = ById(ClockResults(env, coarse, ""), "clock.resolution");
  CHECK(r.status == Status::kWarn);
  CHECK_THAT(r.summary, Catch::StartsWith("coarse clock") && Catch::Contains("not the board's real-time figures"));
  CHECK_THAT(r.measured, Catch::Contains("clock_getres 4000 us"));

  ClockFacts fine;
  fine.resolution_ns = 1;
  fine.read_cost_ns = 25;
  const auto& ok = ById(ClockResults(env, fine, ""), "clock.resolution");
  CHECK(ok.status == Status::kPass);
  CHECK(ok.measured == "clock_getres 1 ns, one read 25 ns");
}

TEST_CASE("clock: on this machine it says virtual machine", "[check][host]") {
  Bench b = LoadBench("/", "");
  auto rs = b.Run("clock");
  const auto& vm = ById(rs, "clock.hypervisor");
  if (vm.status == Status::kPass) {
    WARN("this host shows no hypervisor (" << vm.measured << "): the development VM is expected");
  }
  CHECK(vm.status == Status::kWarn);
  CHECK_THAT(vm.summary, Catch::Contains("virtual machine"));
  // The live clock is measured, never skipped.
  const auto& res = ById(rs, "clock.resolution");
  CHECK(res.status != Status::kSkip);
  CHECK_THAT(res.measured, Catch::Contains("clock_getres"));
}

TEST_CASE("conformance: every drifted setting is named by section, boot items wait for a reboot", "[check]") {
  Bench b = LoadFile(Tree("arm64-rt-8cpu"), ProfileFile("generic-4core.yaml"));
  auto rs = b.Run("conformance");
  const auto& irqs = ById(rs, "conformance.irqs");
  CHECK(irqs.status == Status::kFail);
  CHECK_THAT(irqs.measured, Catch::Contains("IRQ 85 (eth0) affinity: 0-3 (wants 0-1)"));
  CHECK_THAT(irqs.hint, Catch::Contains("rtagent apply"));
  CHECK(irqs.chapter == "Chapter 6 (A core of its own)");
  const auto& reboot = ById(rs, "conformance.reboot");
  CHECK(reboot.status == Status::kWarn);
  CHECK_THAT(reboot.summary, Catch::StartsWith("reboot required"));
}

TEST_CASE("conformance: a setting the kernel refused at apply is a WARN with its reason, until it drifts", "[check]") {
  // nvme0q3 (IRQ 99) is a managed queue vector: the kernel answers EPERM to moving it.
  TempTree tree(Tree("arm64-rt-8cpu"));
  const std::string irq99 = kpath::ProcIrq(99) + "/smp_affinity_list";
  {
    Bench b = LoadFile(tree.dir(), ProfileFile("generic-4core.yaml"));
    FaultRoot root(tree.dir());
    root.FailWrites(irq99, EPERM);
    auto plan = PlanAll(b.profile, root);
    REQUIRE(plan);
    Journal journal(root);
    REQUIRE(journal.Load().ok());
    ApplyReport rep = MakeTuningExecutor(root, journal)->Apply(plan->PendingChanges());
    REQUIRE_FALSE(rep.rolled_back);
    REQUIRE(rep.Count(Outcome::kUnchangeable) == 1);
  }
  auto irqs = [&] { return ById(LoadFile(tree.dir(), ProfileFile("generic-4core.yaml")).Run("conformance"), "conformance.irqs"); };
  const CheckResult kept = irqs();
  CHECK(kept.status == Status::kWarn);
  CHECK_THAT(kept.summary, Catch::EndsWith(" match the profile; the kernel refused 1 when `rtagent apply` wrote it "
                                           "and keeps its value"));
  CHECK(kept.measured == "IRQ 99 (nvme0q3) affinity: 4-5 (wants 0-1), refused by the kernel");
  CHECK_THAT(kept.hint, Catch::StartsWith("the kernel's reason: a managed IRQ") && Catch::Contains("EPERM") &&
                            Catch::Contains("isolcpus=managed_irq"));
  CHECK_THAT(kept.hint, !Catch::Contains("`rtagent apply` sets them"));

  // Something else moves it: no longer the kernel's refusal, a difference apply would fix.
  tree.Put(irq99, "2-3\n");
  const CheckResult moved = irqs();
  CHECK(moved.status == Status::kFail);
  CHECK_THAT(moved.measured, Catch::Contains("IRQ 99 (nvme0q3) affinity: 2-3 (wants 0-1)"));
  CHECK_THAT(moved.hint, Catch::StartsWith("`rtagent apply` sets them"));

  // Back where the kernel kept it, and another IRQ drifted: a FAIL that still tells them apart.
  tree.Put(irq99, "4-5\n");
  tree.Put(kpath::ProcIrq(85) + "/smp_affinity_list", "0-3\n");
  const CheckResult both = irqs();
  CHECK(both.status == Status::kFail);
  CHECK_THAT(both.summary, Catch::StartsWith("1 of ") &&
                               Catch::EndsWith(" differs from the profile; the kernel refused 1 when `rtagent apply` "
                                               "wrote it and keeps its value"));
  CHECK(both.measured == "IRQ 85 (eth0) affinity: 0-3 (wants 0-1) and "
                         "IRQ 99 (nvme0q3) affinity: 4-5 (wants 0-1), refused by the kernel");

  // A record verify cannot read: the FAIL says it cannot tell the refused ones apart.
  tree.Put(RefusalRecord::Path(), "{");
  const CheckResult unread = irqs();
  CHECK(unread.status == Status::kFail);
  CHECK_THAT(unread.measured, Catch::Contains("IRQ 99 (nvme0q3) affinity: 4-5 (wants 0-1)") &&
                                  !Catch::Contains("refused"));
  CHECK_THAT(unread.hint, Catch::Contains("which of them the kernel refused is not known: " + tree.dir() + "/" +
                                          RefusalRecord::Path() + ": "));
}

TEST_CASE("conformance: one setting is counted in the singular, matching or not", "[check]") {
  const std::string tree = Tree("x86-ipc-4cpu");  // vm.stat_interval is 1 there
  Bench same = LoadBench(tree, "cores:\n  housekeeping: 0\n  isolated: 1-3\nmemory:\n  sysctl:\n    vm.stat_interval: 1\n");
  const auto& ok = ById(same.Run("conformance"), "conformance.memory");
  CHECK(ok.status == Status::kPass);
  CHECK(ok.summary == "the 1 memory setting matches the profile");
  Bench other = LoadBench(tree, "cores:\n  housekeeping: 0\n  isolated: 1-3\nmemory:\n  sysctl:\n    vm.stat_interval: 10\n");
  const auto& off = ById(other.Run("conformance"), "conformance.memory");
  CHECK(off.status == Status::kFail);
  CHECK(off.summary == "1 of 1 memory setting differs from the profile");
}

TEST_CASE("conformance: a profile that cannot be planned is one FAIL with the planner's reason", "[check]") {
  // The arm64 board's /rt partition holds CPUs 4-7: a partition on 6-7 cannot be planned.
  Bench b = LoadBench(Tree("arm64-rt-8cpu"), "cores:\n  housekeeping: 0-3\n  isolated: 4-7\n"
                                        "partitions:\n  ctl:\n    cpus: 6-7\n    type: root\n");
  auto rs = b.Run("conformance");
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].id == "conformance");
  CHECK(rs[0].status == Status::kFail);
  CHECK_THAT(rs[0].summary, Catch::StartsWith("cannot plan the profile: ") &&
                                Catch::Contains("partition \"ctl\" wants CPUs 6-7, but the existing isolated partition /rt "
                                                "already holds CPUs 4-7"));
  CHECK(rs[0].hint == "run `rtagent plan` for the details");
}

TEST_CASE("ranks settings: the window is a duration of at least 100ms, default 1s", "[check]") {
  const CheckInfo& ranks = FindCheck("ranks")->Info();
  REQUIRE(ranks.window);
  CHECK_FALSE(ranks.window->suite_min);  // no suite sets it
  TempDir dir;
  auto def = LoadYaml(dir, "checks:\n  ranks: true\n");
  REQUIRE(def.result);
  CHECK(*ranks.window->of(*def.result) == std::chrono::seconds(1));

  auto set = LoadYaml(dir, "checks:\n  ranks:\n    window: 250ms\n");
  REQUIRE(set.result);
  CHECK(*ranks.window->of(*set.result) == std::chrono::milliseconds(250));
  CHECK(ranks.window->of(*set.result).mark.line == 3);

  auto small = LoadYaml(dir, "checks:\n  ranks:\n    window: 10ms\n");
  REQUIRE_FALSE(small.result.ok());
  CheckAt(Only(small, "'checks.ranks.window' is 10ms, shorter than the minimum 100ms"), small.path, 3, 13);

  auto bad = LoadYaml(dir, "checks:\n  ranks:\n    window: 2\n");
  REQUIRE_FALSE(bad.result.ok());
  CheckAt(Only(bad, "'checks.ranks.window': invalid duration \"2\""), bad.path, 3, 13);

  auto typo = LoadYaml(dir, "checks:\n  ranks:\n    windw: 2s\n");
  REQUIRE_FALSE(typo.result.ok());
  CHECK_THAT(Only(typo, "unknown key 'windw' in 'checks.ranks'").hint, Catch::StartsWith("did you mean 'window'?"));
}

TEST_CASE("docs/checks.md lists every check with the chapters and needs it declares", "[check]") {
  std::ifstream in(std::string(RTAGENT_SOURCE_DIR) + "/docs/checks.md");
  std::map<std::string, std::vector<std::string>> rows;  // "| `name` | what | chapter | needs |"
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0 || line.find("` | ") == std::string::npos) continue;
    std::vector<std::string> cells;
    for (size_t from = 2, bar; (bar = line.find(" |", from)) != std::string::npos; from = bar + 3) {
      cells.push_back(line.substr(from, bar - from));
    }
    rows.emplace(cells.front().substr(1, cells.front().size() - 2), cells);
  }
  for (const auto& c : AllChecks()) {
    const CheckInfo& info = c->Info();
    INFO(info.name);
    REQUIRE(rows.count(info.name) == 1);
    const auto& cells = rows.at(info.name);
    REQUIRE(cells.size() == 4);
    CHECK(cells[2] == info.chapters);
    std::string needs = std::string(info.needs_root ? "root" : "read only") + (info.live_window ? "; waits a window" : "");
    CHECK_THAT(cells[3], Catch::StartsWith(needs));
  }
}

TEST_CASE("conformance: a drop-in and a CPU mask read as plan shows them, not as raw file text", "[check]") {
  // The x86 board has no CPUAffinity= drop-in, and its unbound workqueues may run anywhere (f).
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "cores:\n  housekeeping: 0-1\n  isolated: 2-3\n  bootloader: print\n"
                                            "irqs:\n  default: keep\n  irqbalance: leave\n"
                                            "systemd:\n  cpu_affinity: housekeeping\n");
  auto rs = b.Run("conformance");
  const auto& systemd = ById(rs, "conformance.systemd");
  CHECK(systemd.status == Status::kFail);
  CHECK_THAT(systemd.measured, Catch::Contains("(wants CPUAffinity=0-1)"));
  CHECK_THAT(systemd.measured, !Catch::Contains("# Written by"));
  const auto& cores = ById(rs, "conformance.cores");
  CHECK(cores.status == Status::kFail);
  CHECK_THAT(cores.measured, Catch::Contains("unbound workqueue cpumask: f (CPUs 0-3) (wants 3 (CPUs 0-1))"));
}
