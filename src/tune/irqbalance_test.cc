// irqs.irqbalance on copies of the x86 fixture board with an irqbalance process added: its
// environment file parsed and edited byte-exactly, `ban` planned, applied (its restart recorded
// through the runner seam), verified and reverted byte-identical, `stop` masked and put back,
// `leave` and a board without irqbalance planning nothing; the irqbalance check's answers.
#include "inspect/inspect_test_support.h"
#include "tune/irqbalance.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/tree_test_support.h"
#include "inspect/irqbalance.h"
#include "profile/loader.h"
#include "tune/boot_test_support.h"
#include "tune/irqs_tuner.h"
#include "tune/journal.h"

using namespace rtagent;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
const std::string kDebianFile =
    "# irqbalance is a daemon process that distributes interrupts across\n"
    "#IRQBALANCE_ONESHOT=\n"
    "# IRQBALANCE_BANNED_CPULIST\n"
    "#    72 CPU list which will be ignored by irqbalance\n"
    "#IRQBALANCE_BANNED_CPULIST=\n"
    "OPTIONS=\"--policyscript=/etc/irqbalance.d/x\"\n";

profile::Profile Load(const SysRoot& root, const std::string& mode) {
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus);
  profile::Diagnostics d;
  auto p = profile::LoadProfileText("cores:\n  housekeeping: 0\n  isolated: 1-3\n  bootloader: print\n"
                                    "  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
                                    "irqs:\n  default: keep\n  irqbalance: " + mode + "\n",
                                    "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p);
  return std::move(*p);
}

// A board with irqbalance running as process 4242, started with `env` (NUL-separated).
void AddIrqbalance(const TempTree& t, const std::string& env = std::string("PATH=/usr/bin\0", 14)) {
  testing::PutIrqbalanceProcess(t, 4242);
  t.Put(kpath::ProcEnviron(4242), env);
}

std::vector<Change> Irqbalance(const profile::Profile& p, const SysRoot& root) {
  SystemState state = CollectSystemState(root, PlanSections());
  auto plan = IrqsTuner().Plan(PlanContext{p, root, state});
  REQUIRE(plan);
  std::vector<Change> out;
  for (const Change& c : plan->items) {
    if (c.actuator.rfind("irqbalance", 0) == 0) out.push_back(c);
  }
  return out;
}

struct Rig {
  TempTree tree{kX86};
  FaultRoot root{tree.dir()};
  std::shared_ptr<test::FakeRunner> runner = std::make_shared<test::FakeRunner>();
  std::unique_ptr<Executor> Exec(Journal& j) {
    auto ex = std::make_unique<Executor>(root, j);
    for (const auto& t : AllTuners()) t->AddActuators(*ex, root);
    IrqsTuner(test::FactoryOf(runner)).AddActuators(*ex, root);
    return ex;
  }
  void Apply(const std::vector<Change>& changes) {
    Journal j(root);
    REQUIRE(j.Load());
    REQUIRE_FALSE(Exec(j)->Apply(changes).rolled_back);
  }
  void Revert() {
    Journal j(root);
    REQUIRE(j.Load());
    CHECK(Exec(j)->Revert().complete);
  }
};

}  // namespace

TEST_CASE("irqbalance: its environment file is read and edited byte-exactly", "[tune]") {
  CHECK(EnvFileValue(kDebianFile, "IRQBALANCE_BANNED_CPULIST") == std::nullopt);  // commented out
  CHECK(EnvFileValue("A=1\nexport IRQBALANCE_BANNED_CPULIST=\"2-3\"\n", "IRQBALANCE_BANNED_CPULIST") == "2-3");
  const std::string set = SetEnvFileValue(kDebianFile, "IRQBALANCE_BANNED_CPULIST", "1-3");
  CHECK(set == kDebianFile + "IRQBALANCE_BANNED_CPULIST=1-3\n");
  CHECK(SetEnvFileValue(set, "IRQBALANCE_BANNED_CPULIST", std::nullopt) == kDebianFile);
  const std::string quoted = "IRQBALANCE_BANNED_CPUS=\"0000000e\"\nX=1\n";
  CHECK(SetEnvFileValue(quoted, "IRQBALANCE_BANNED_CPUS", "f") == "IRQBALANCE_BANNED_CPUS=\"f\"\nX=1\n");
  CHECK(SetEnvFileValue(SetEnvFileValue(quoted, "IRQBALANCE_BANNED_CPUS", "f"), "IRQBALANCE_BANNED_CPUS", "0000000e") ==
        quoted);
}

TEST_CASE("irqbalance: found as a process, with what its environment bans", "[tune]") {
  TempTree t(kX86);
  FsRoot root(t.dir());
  CHECK_FALSE(DetectIrqbalance(root).running);
  AddIrqbalance(t, std::string("A=1\0IRQBALANCE_BANNED_CPULIST=2-3\0", 34));
  IrqbalanceInfo info = DetectIrqbalance(root);
  CHECK(info.running);
  CHECK(info.pid == 4242);
  CHECK(info.how == "process 4242");
  REQUIRE(info.banned);
  CHECK(info.banned->ToList() == "2-3");
  CHECK(info.banned_from == "the environment of process 4242");
  CHECK(info.ban_var == kBannedCpulistVar);
}

TEST_CASE("irqbalance: an environment it may not read falls back to the file, and says so", "[tune]") {
  // rtagent-verify.service has no CAP_SYS_PTRACE: root's irqbalance's environ is EACCES to it.
  TempTree t(kX86);
  FaultRoot root(t.dir());
  AddIrqbalance(t, std::string("IRQBALANCE_BANNED_CPULIST=2-3\0", 31));
  root.FailReads(kpath::ProcEnviron(4242), EACCES);
  t.Put(kpath::kIrqbalanceDefault, kDebianFile + "IRQBALANCE_BANNED_CPULIST=1-3\n");
  IrqbalanceInfo info = DetectIrqbalance(root);
  CHECK(info.running);
  REQUIRE(info.banned);
  CHECK(info.banned->ToList() == "1-3");  // the file's, not the environment's it could not read
  CHECK(info.banned_from == kpath::kIrqbalanceDefault +
                                "; the environment of process 4242 could not be read (Permission denied), and "
                                "irqbalance reads this file only when it starts");
  // A file that bans nothing: no CPU is known to be banned, and the reason is still named.
  t.Put(kpath::kIrqbalanceDefault, kDebianFile);
  info = DetectIrqbalance(root);
  CHECK_FALSE(info.banned);
  CHECK_THAT(info.banned_from, Catch::StartsWith(kpath::kIrqbalanceDefault + " bans none; the environment of process "
                                                                               "4242 could not be read (Permission denied)"));
  // Read as before once it can be.
  FaultRoot open_root(t.dir());
  CHECK(DetectIrqbalance(open_root).banned_from == "the environment of process 4242");
}

TEST_CASE("irqbalance: found in a walk of the threads already made, as by reading /proc", "[tune]") {
  TempTree t(kX86);
  FsRoot root(t.dir());
  {
    const std::vector<TaskView> tasks = ListTasks(root, false);
    CHECK_FALSE(DetectIrqbalance(root, &tasks).running);
  }
  AddIrqbalance(t, std::string("A=1\0IRQBALANCE_BANNED_CPULIST=2-3\0", 34));
  const std::vector<TaskView> tasks = ListTasks(root, false);
  const IrqbalanceInfo read = DetectIrqbalance(root);
  const IrqbalanceInfo walked = DetectIrqbalance(root, &tasks);
  CHECK(walked.running);
  CHECK(walked.pid == read.pid);
  CHECK(walked.how == read.how);
  CHECK(walked.banned == read.banned);
  CHECK(walked.banned_from == read.banned_from);
  CHECK(walked.config == read.config);
  CHECK(walked.ban_var == read.ban_var);
  // The walk is what it looks in: proc/PID/stat is not read again.
  std::filesystem::remove(t.dir() + "/" + kpath::ProcStat(4242));
  CHECK(DetectIrqbalance(root, &tasks).pid == 4242);
  CHECK_FALSE(DetectIrqbalance(root).running);
}

TEST_CASE("irqbalance ban: planned, applied with a restart, verified, reverted byte-identical", "[tune]") {
  Rig r;
  AddIrqbalance(r.tree);
  r.tree.Put(kpath::kIrqbalanceDefault, kDebianFile);
  const auto before = test::SnapshotTree(r.tree.dir(), true, "run");
  const profile::Profile p = Load(r.root, "ban");
  std::vector<Change> items = Irqbalance(p, r.root);
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == kpath::kIrqbalanceDefault + "#IRQBALANCE_BANNED_CPULIST");
  CHECK(items[0].before == "absent");
  CHECK(items[0].after == "1-3");
  CHECK(items[0].compare == Compare::kCpuList);
  CHECK(items[0].what == "irqbalance banned CPUs (process 4242)");

  r.Apply(items);
  CHECK(r.tree.Get(kpath::kIrqbalanceDefault) == kDebianFile + "IRQBALANCE_BANNED_CPULIST=1-3\n");
  REQUIRE(r.runner->ran.size() == 1);
  CHECK(r.runner->ran[0] == std::vector<std::string>{"systemctl", "try-restart", "irqbalance.service"});
  CHECK_FALSE(Pending(Irqbalance(p, r.root).at(0)));  // verify

  r.Revert();
  CHECK(r.runner->ran.size() == 2);  // restarted again with the old file
  CHECK(test::SnapshotTree(r.tree.dir(), true, "run") == before);
}

TEST_CASE("irqbalance ban: revert restarts irqbalance unbanned before it puts the IRQs back", "[tune]") {
  // Applied in plan order (the ban, then the IRQs off the isolated CPUs); put back newest
  // first, the IRQs would return to CPUs 1-3 while the banning irqbalance still ran and could
  // move them off again on its next pass (seen in the rt-tuned guest).
  Rig r;
  AddIrqbalance(r.tree);
  r.tree.Put(kpath::kIrqbalanceDefault, kDebianFile);
  const auto before = test::SnapshotTree(r.tree.dir(), true, "run");
  auto cpus = profile::ReadSystemCpus(r.root);
  REQUIRE(cpus);
  profile::Diagnostics d;
  auto p = profile::LoadProfileText("cores:\n  housekeeping: 0\n  isolated: 1-3\n  bootloader: print\n"
                                    "  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
                                    "irqs:\n  default: housekeeping\n  irqbalance: ban\n",
                                    "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p);
  SystemState state = CollectSystemState(r.root, PlanSections());
  auto plan = IrqsTuner().Plan(PlanContext{*p, r.root, state});
  REQUIRE(plan);
  auto is_ban = [](const Change& c) { return c.actuator.rfind("irqbalance", 0) == 0; };
  const auto ban = std::find_if(plan->items.begin(), plan->items.end(), is_ban);
  REQUIRE(ban != plan->items.end());
  REQUIRE(ban != plan->items.end() - 1);  // IRQ moves come after it
  r.Apply(plan->items);

  Journal j(r.root);
  REQUIRE(j.Load());
  RevertReport rev = r.Exec(j)->Revert();
  CHECK(rev.complete);
  REQUIRE(rev.results.size() > 1);
  CHECK(is_ban(rev.results.front().change));
  CHECK(std::none_of(rev.results.begin() + 1, rev.results.end(), [&](const ChangeResult& x) { return is_ban(x.change); }));
  CHECK(r.runner->ran.size() == 2);  // restarted with the old file
  CHECK(test::SnapshotTree(r.tree.dir(), true, "run") == before);
}

TEST_CASE("irqbalance ban: the older mask variable when its file names only that one, a file made when none", "[tune]") {
  Rig r;
  AddIrqbalance(r.tree);
  r.tree.Put(kpath::kIrqbalanceSysconfig, "#IRQBALANCE_BANNED_CPUS=\n");
  std::vector<Change> items = Irqbalance(Load(r.root, "ban"), r.root);
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == kpath::kIrqbalanceSysconfig + "#IRQBALANCE_BANNED_CPUS");
  CHECK(items[0].after == "e");
  CHECK(items[0].compare == Compare::kCpuMask);

  Rig none;
  AddIrqbalance(none.tree);
  // Files only: the etc/default directory made for the file stays (it is there on every real system).
  const auto before = test::SnapshotTree(none.tree.dir(), false, "run");
  std::vector<Change> made = Irqbalance(Load(none.root, "ban"), none.root);
  REQUIRE(made.size() == 1);
  CHECK(made[0].before == "no-file");
  none.Apply(made);
  CHECK(none.tree.Get(kpath::kIrqbalanceDefault) == "IRQBALANCE_BANNED_CPULIST=1-3\n");
  none.Revert();
  CHECK(test::SnapshotTree(none.tree.dir(), false, "run") == before);  // the file it made is gone
}

TEST_CASE("irqbalance ban: a restart that fails rolls the file back", "[tune]") {
  Rig r;
  AddIrqbalance(r.tree);
  r.tree.Put(kpath::kIrqbalanceDefault, kDebianFile);
  r.runner->statuses = {1};  // the restart fails; the rollback's restart succeeds
  Journal j(r.root);
  REQUIRE(j.Load());
  ApplyReport rep = r.Exec(j)->Apply(Irqbalance(Load(r.root, "ban"), r.root));
  CHECK(rep.rolled_back);
  CHECK(r.tree.Get(kpath::kIrqbalanceDefault) == kDebianFile);
  REQUIRE(r.runner->ran.size() == 2);  // restarted again on the file put back
  const auto failed = std::find_if(rep.results.begin(), rep.results.end(),
                                   [](const ChangeResult& c) { return c.outcome == Outcome::kFailed; });
  REQUIRE(failed != rep.results.end());
  CHECK_THAT(failed->detail, Catch::EndsWith("systemctl try-restart irqbalance.service: exit 1; " +
                                             std::string(kpath::kIrqbalanceDefault) + " put back"));
}

TEST_CASE("irqbalance stop masks its unit and revert starts it again, leave and no irqbalance plan nothing", "[tune]") {
  Rig r;
  AddIrqbalance(r.tree);
  std::vector<Change> items = Irqbalance(Load(r.root, "stop"), r.root);
  REQUIRE(items.size() == 1);
  CHECK(items[0].actuator == kIrqbalanceUnitActuator);
  CHECK(items[0].before == "running");
  CHECK(items[0].after == "masked");
  r.Apply(items);
  CHECK(r.runner->ran.back() == std::vector<std::string>{"systemctl", "mask", "--now", "irqbalance.service"});
  // What systemctl did on a real board: the unit masked, the process gone.
  std::filesystem::create_directories(r.tree.dir() + "/etc/systemd/system");
  std::filesystem::create_symlink("/dev/null", r.tree.dir() + "/" + kpath::SystemdUnitMask("irqbalance.service"));
  std::filesystem::remove_all(r.tree.dir() + "/" + kpath::Pid(4242));
  CHECK_FALSE(Pending(Irqbalance(Load(r.root, "stop"), r.root).at(0)));
  std::filesystem::remove(r.tree.dir() + "/" + kpath::SystemdUnitMask("irqbalance.service"));
  AddIrqbalance(r.tree);  // a revert that finds it masked would unmask and start it
  std::filesystem::create_symlink("/dev/null", r.tree.dir() + "/" + kpath::SystemdUnitMask("irqbalance.service"));
  r.Revert();
  REQUIRE(r.runner->ran.size() == 3);
  CHECK(r.runner->ran[1] == std::vector<std::string>{"systemctl", "unmask", "irqbalance.service"});
  CHECK(r.runner->ran[2] == std::vector<std::string>{"systemctl", "start", "irqbalance.service"});

  CHECK(Irqbalance(Load(r.root, "leave"), r.root).empty());
  Rig quiet;  // no irqbalance on the board
  CHECK(Irqbalance(Load(quiet.root, "ban"), quiet.root).empty());
  CHECK(Irqbalance(Load(quiet.root, "stop"), quiet.root).empty());
}

TEST_CASE("kill: irqbalance's file rewritten or put back takes away the temporary twin a killed apply left",
          "[tune]") {
  // The kill sweep's finding in the journal and the boot files (kill_test.cc) holds for this
  // whole-file write too: a power cut inside its WriteDurable leaves FILE.tmp.PID.
  Rig r;
  AddIrqbalance(r.tree);
  r.tree.Put(kpath::kIrqbalanceDefault, kDebianFile);
  const auto before = test::SnapshotTree(r.tree.dir(), true, "run");
  const profile::Profile p = Load(r.root, "ban");
  std::vector<Change> items = Irqbalance(p, r.root);
  REQUIRE(items.size() == 1);
  r.tree.Put(kpath::kIrqbalanceDefault + ".tmp.4242", "# half of a");
  r.Apply(items);
  CHECK_FALSE(r.root.Exists(kpath::kIrqbalanceDefault + ".tmp.4242"));
  r.tree.Put(kpath::kIrqbalanceDefault + ".tmp.4243", "");
  r.Revert();
  CHECK(test::SnapshotTree(r.tree.dir(), true, "run") == before);
}
