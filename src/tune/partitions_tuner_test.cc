// The partitions tuner on copies of the v2 (arm64 PREEMPT_RT) and v1 (x86 IPC) fixtures:
// plan with before/after, apply, plan again with nothing pending, revert to the same bytes;
// the invalid partition's reason; injected EBUSY, EINVAL, EACCES; and, tagged [host], an
// exclusive cpuset on this machine's v1 hierarchy holding a child process.
#include "base/child_test_support.h"
#include "base/tree_test_support.h"
#include "tune/partitions_tuner.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <map>
#include <sstream>

#include "base/fault_root.h"
#include "inspect/threads.h"
#include "profile/loader.h"
#include "tune/cgroup_actuator.h"
#include "tune/file_cgroup_backend.h"
#include "tune/fixture_sched_syscalls.h"
#include "tune/journal.h"
#include "tune/sched_actuator.h"
#include "base/skip_test_support.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

profile::Profile Load(const std::string& yaml, const SysRoot& root) {
  profile::Diagnostics diags;
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus.ok());
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", *cpus, &diags);
  INFO(diags.FormatText());
  REQUIRE(p.ok());
  return std::move(*p);
}

// The plan, or the error that refused it.
Result<SectionPlan> TryPlan(const Tuner& t, const profile::Profile& p, const SysRoot& root) {
  SystemState state;
  return t.Plan(PlanContext{p, root, state});
}

SectionPlan PlanOf(const Tuner& t, const profile::Profile& p, const SysRoot& root) {
  auto plan = TryPlan(t, p, root);
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(*plan);
}

std::vector<Change> PendingOf(const SectionPlan& plan) {
  std::vector<Change> out;
  for (const auto& c : plan.items) {
    if (Pending(c)) out.push_back(c);
  }
  return out;
}

const Change* Find(const SectionPlan& plan, const std::string& key) {
  for (const auto& c : plan.items) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

std::vector<const Finding*> FindingsWith(const SectionPlan& plan, Finding::Level level, const std::string& text) {
  std::vector<const Finding*> out;
  for (const auto& f : plan.findings) {
    if (f.level == level && f.message.find(text) != std::string::npos) out.push_back(&f);
  }
  return out;
}

using rtagent::test::TreeDiff;

ApplyReport ApplyPlan(const Tuner& tuner, const SectionPlan& plan, SysRoot& root, Journal& journal) {
  Executor ex(root, journal);
  tuner.AddActuators(ex, root);
  return ex.Apply(PendingOf(plan));
}

RevertReport RevertAll(const Tuner& tuner, SysRoot& root) {
  Journal journal(root);
  REQUIRE(journal.Load().ok());
  Executor ex(root, journal);
  tuner.AddActuators(ex, root);
  return ex.Revert();
}

// The arm64 board with its /rt partition dissolved (member), so a new one may take CPUs 6-7:
// with /rt held, plan refuses them (issue 17).
void DissolveRt(const TempTree& t) {
  t.Put("sys/fs/cgroup/rt/cpuset.cpus.partition", "member\n");
  t.Put("sys/fs/cgroup/cpuset.cpus.isolated", "\n");
}

// A pristine dissolved copy, to compare a reverted tree with.
struct Dissolved {
  TempTree tree{kArm64};
  Dissolved() { DissolveRt(tree); }
  const std::string& dir() const { return tree.dir(); }
};

const char* kArmPartition = R"(version: 1
cores:
  housekeeping: 0-3
  isolated: 4-7
partitions:
  ctl:
    cpus: 6-7
    type: root
    processes: [sshd, "camera.*"]
)";

// The board's /rt partition on CPUs 4-7, declared at line 6, nothing else.
const char* kRtOnly = R"(version: 1
cores:
  housekeeping: 0-3
  isolated: 4-7
partitions:
  rt:
    cpus: 4-7
)";

}  // namespace

TEST_CASE("partitions on cgroup v2: an existing isolated partition has nothing to do", "[tune][partitions]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  auto p = Load(std::string(kRtOnly) + "    processes: [robot_ctrl]\n", root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  CHECK(plan.section == "partitions");
  REQUIRE(plan.items.size() == 5);
  CHECK(plan.items[0].key == "controller:/:cpuset");
  CHECK(plan.items[0].before == "+cpuset");
  CHECK(Find(plan, "dir:/rt")->before == "present");
  CHECK(Find(plan, "file:/rt:cpuset.cpus")->before == "4-7");
  CHECK(Find(plan, "file:/rt:cpuset.cpus.partition")->after == "isolated");
  CHECK(Find(plan, "proc:1200")->before == "/rt");
  for (const auto& c : plan.items) CHECK(c.actuator == "cgroup");
  CHECK(PendingOf(plan).empty());
  CHECK(plan.findings.empty());
  CHECK(root.writes().empty());
}

TEST_CASE("partitions on cgroup v2: create, plan again, revert to the same bytes", "[tune][partitions]") {
  TempTree tree(kArm64);
  DissolveRt(tree);
  FaultRoot root(tree.dir());
  auto p = Load(kArmPartition, root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  // Items in the order the kernel needs them: the directory before its files, the files
  // before the processes.
  std::vector<std::string> keys;
  for (const auto& c : PendingOf(plan)) keys.push_back(c.key);
  CHECK(keys == std::vector<std::string>{"dir:/ctl", "file:/ctl:cpuset.cpus", "file:/ctl:cpuset.cpus.partition",
                                         "proc:612"});
  CHECK(Find(plan, "dir:/ctl")->before == "absent");
  CHECK(Find(plan, "file:/ctl:cpuset.cpus")->before == "(absent)");
  CHECK(Find(plan, "file:/ctl:cpuset.cpus")->after == "6-7");
  CHECK(Find(plan, "file:/ctl:cpuset.cpus")->compare == Compare::kCpuList);
  CHECK(Find(plan, "file:/ctl:cpuset.cpus.partition")->after == "root");
  CHECK(Find(plan, "proc:612")->before == "/system.slice/sshd.service");
  CHECK(Find(plan, "proc:612")->after == "/ctl");
  CHECK(Find(plan, "proc:612")->what.find("sshd") != std::string::npos);
  // A name that matches no running process is a warning at its line.
  auto w = FindingsWith(plan, Finding::Level::kWarning, "no running process is named \"camera.*\"");
  REQUIRE(w.size() == 1);
  CHECK(w[0]->mark.line == 9);

  Journal journal(root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 4);
  CHECK(tree.Get("sys/fs/cgroup/ctl/cpuset.cpus") == "6-7\n");
  CHECK(tree.Get("sys/fs/cgroup/ctl/cpuset.cpus.partition") == "root\n");
  CHECK(tree.Get("sys/fs/cgroup/ctl/cgroup.procs") == "612\n");
  CHECK(PendingOf(PlanOf(tuner, p, root)).empty());

  RevertReport rev = RevertAll(tuner, root);
  CHECK(rev.complete);
  CHECK(TreeDiff(tree.dir(), Dissolved().dir()).empty());
}

TEST_CASE("partitions on cgroup v2: the cpuset controller is handed down first", "[tune][partitions]") {
  TempTree tree(kArm64);
  DissolveRt(tree);
  tree.Put("sys/fs/cgroup/cgroup.subtree_control", "cpu io memory pids\n");
  TempTree reference(tree.dir());
  FaultRoot root(tree.dir());
  auto p = Load(kArmPartition, root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto pending = PendingOf(plan);
  REQUIRE_FALSE(pending.empty());
  CHECK(pending[0].key == "controller:/:cpuset");
  CHECK(pending[0].before == "-cpuset");
  CHECK(pending[0].after == "+cpuset");
  Journal journal(root);
  REQUIRE(journal.Load().ok());
  CHECK_FALSE(ApplyPlan(tuner, plan, root, journal).rolled_back);
  CHECK(tree.Get("sys/fs/cgroup/cgroup.subtree_control") == "cpuset cpu io memory pids\n");
  CHECK(tree.Get("sys/fs/cgroup/ctl/cpuset.cpus.partition") == "root\n");
  CHECK(PendingOf(PlanOf(tuner, p, root)).empty());
  CHECK(RevertAll(tuner, root).complete);
  CHECK(TreeDiff(tree.dir(), reference.dir()).empty());
}

TEST_CASE("an invalid partition is reported with the kernel's reason and stays pending", "[tune][partitions]") {
  TempTree tree(kArm64);
  tree.Put("sys/fs/cgroup/rt/cpuset.cpus.partition", "isolated invalid (Cpu list in cpuset.cpus not exclusive)\n");
  FaultRoot root(tree.dir());
  auto p = Load(kRtOnly, root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto errors = FindingsWith(plan, Finding::Level::kError, "partition \"rt\" is invalid: Cpu list in cpuset.cpus not exclusive");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->mark.line == 6);
  CHECK(errors[0]->why.find("Chapter 6") != std::string::npos);
  const Change* type = Find(plan, "file:/rt:cpuset.cpus.partition");
  REQUIRE(type != nullptr);
  CHECK(type->before == "isolated invalid (Cpu list in cpuset.cpus not exclusive)");
  CHECK(Pending(*type));
}

TEST_CASE("partitions on a v2 kernel without cpuset.cpus.partition: an error naming the file, nothing written",
          "[tune][partitions]") {
  // A kernel older than cpuset partitions has cgroup v2 cpusets but no partition file: the
  // partition cannot be made, and the plan must say so at the partition's line.
  TempTree tree(kArm64);
  std::filesystem::remove(tree.dir() + "/sys/fs/cgroup/rt/cpuset.cpus.partition");
  FaultRoot root(tree.dir());
  auto p = Load(kRtOnly, root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto errors = FindingsWith(plan, Finding::Level::kError,
                             "partition \"rt\": this kernel has no cpuset.cpus.partition; cpuset partitions need a newer kernel");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->mark.line == 6);
  CHECK(errors[0]->why.find("Chapter 6") != std::string::npos);
  const Change* type = Find(plan, "file:/rt:cpuset.cpus.partition");
  REQUIRE(type != nullptr);
  CHECK(type->before == "(absent)");
  CHECK(root.writes().empty());
}

TEST_CASE("partitions: known refusals are outcomes, other errors roll back", "[tune][partitions]") {
  TempTree tree(kArm64);
  DissolveRt(tree);
  FaultRoot root(tree.dir());
  auto p = Load(kArmPartition, root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  Journal journal(root);
  REQUIRE(journal.Load().ok());

  SECTION("EBUSY on the partition type: unchangeable, with the reason") {
    root.FailWrites("sys/fs/cgroup/ctl/cpuset.cpus.partition", EBUSY);
    ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
    CHECK_FALSE(rep.rolled_back);
    CHECK(rep.Count(Outcome::kUnchangeable) == 1);
    for (const auto& r : rep.results) {
      if (r.outcome == Outcome::kUnchangeable) CHECK(r.detail.find("EBUSY") != std::string::npos);
    }
    CHECK(tree.Get("sys/fs/cgroup/ctl/cgroup.procs") == "612\n");
  }

  SECTION("EINVAL moving a process: unchangeable") {
    root.FailWrites("sys/fs/cgroup/ctl/cgroup.procs", EINVAL);
    ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
    CHECK_FALSE(rep.rolled_back);
    REQUIRE(rep.Count(Outcome::kUnchangeable) == 1);
    CHECK(rep.results.back().change.key == "proc:612");
    CHECK(rep.results.back().detail.find("EINVAL") != std::string::npos);
  }

  SECTION("EACCES on the CPUs fails the apply; the new cgroup is removed again") {
    root.FailWrites("sys/fs/cgroup/ctl/cpuset.cpus", EACCES);
    ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
    CHECK(rep.rolled_back);
    CHECK(rep.rollback_errors.empty());
    CHECK(rep.Count(Outcome::kFailed) == 1);
    CHECK(rep.Count(Outcome::kRolledBack) == 1);
    CHECK_FALSE(root.Exists("sys/fs/cgroup/ctl"));
    CHECK(TreeDiff(tree.dir(), Dissolved().dir()).empty());
  }
}

// Issue 17: plan made an isolated partition on CPUs the existing /rt partition held, without a word.
TEST_CASE("partitions: CPUs an existing isolated partition holds are refused in plan, naming both", "[tune][partitions]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  auto plan = TryPlan(PartitionsTuner(), Load(kArmPartition, root), root);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().err == EBUSY);
  CHECK_THAT(plan.error().message,
             Catch::StartsWith("board.yaml:6:3: partition \"ctl\" wants CPUs 6-7, but the existing isolated partition "
                               "/rt already holds CPUs 4-7 (6-7 in both); nothing was planned") &&
                 Catch::EndsWith("(echo member > /sys/fs/cgroup/rt/cpuset.cpus.partition)"));  // no strerror after it
  CHECK(root.writes().empty());
}

TEST_CASE("partitions: all the CPUs a SCHED_DEADLINE thread may run on are refused to a partition it is not in", "[tune][partitions]") {
  TempTree tree(kArm64);
  DissolveRt(tree);  // robot_ctrl (pid 1200) stays in /rt, a member cpuset on 4-7
  FaultRoot root(tree.dir());
  const std::string profile = "version: 1\ncores:\n  housekeeping: 0-3\n  isolated: 4-7\npartitions:\n  ctl:\n    cpus: 4-7\n";
  PartitionsTuner tuner;
  auto plan = TryPlan(tuner, Load(profile, root), root);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().err == EBUSY);
  CHECK_THAT(plan.error().message,
             Catch::Contains("partition \"ctl\" wants CPUs 4-7, but the SCHED_DEADLINE thread planner (tid 1205 of "
                             "robot_ctrl, pid 1200) may run only on CPUs 4-7 and is not in it; nothing was planned") &&
                 Catch::EndsWith("Add \"robot_ctrl\" to partitions.ctl.processes, or widen that thread's affinity first"));
  // Moved in with the partition, it keeps its CPUs.
  CHECK(TryPlan(tuner, Load(profile + "    processes: [robot_ctrl]\n", root), root).ok());
  CHECK(root.writes().empty());
}

TEST_CASE("partitions on cgroup v1: CPUs an exclusive cpuset holds are refused in plan", "[tune][partitions]") {
  TempTree tree(kX86);
  tree.Put("sys/fs/cgroup/cpuset/plc/cpuset.cpus", "2-3\n");
  tree.Put("sys/fs/cgroup/cpuset/plc/cpuset.cpu_exclusive", "1\n");
  FaultRoot root(tree.dir());
  auto p = Load("version: 1\ncores:\n  housekeeping: 0\n  isolated: 1-3\npartitions:\n  rt:\n    cpus: 1-3\n", root);
  PartitionsTuner tuner;
  auto plan = TryPlan(tuner, p, root);
  REQUIRE_FALSE(plan.ok());
  CHECK_THAT(plan.error().message,
             Catch::Contains("partition \"rt\" wants CPUs 1-3, but the existing exclusive cpuset /plc already holds "
                             "CPUs 2-3") &&
                 Catch::Contains("echo 0 > /sys/fs/cgroup/cpuset/plc/cpuset.cpu_exclusive"));
  // Not exclusive: a plain cpuset holds nothing apart.
  tree.Put("sys/fs/cgroup/cpuset/plc/cpuset.cpu_exclusive", "0\n");
  CHECK(TryPlan(tuner, p, root).ok());
}

TEST_CASE("partitions on cgroup v1: an exclusive cpuset without load balancing", "[tune][partitions]") {
  TempTree tree(kX86);
  FaultRoot root(tree.dir());
  auto p = Load(R"(version: 1
cores:
  housekeeping: 0
  isolated: 1-3
partitions:
  rt:
    cpus: 1-3
    processes: [plc_runtime]
)",
                root);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  std::vector<std::string> keys;
  for (const auto& c : plan.items) keys.push_back(c.key);
  CHECK(keys == std::vector<std::string>{"dir:/rt", "file:/rt:cpuset.cpus", "file:/rt:cpuset.mems",
                                         "file:/rt:cpuset.cpu_exclusive", "file:/rt:cpuset.sched_load_balance",
                                         "proc:640"});
  CHECK(Find(plan, "file:/rt:cpuset.cpu_exclusive")->after == "1");
  CHECK(Find(plan, "file:/rt:cpuset.sched_load_balance")->after == "0");
  CHECK(Find(plan, "proc:640")->before == "/");
  // The top cpuset still balances every CPU: said, not changed.
  CHECK(FindingsWith(plan, Finding::Level::kWarning, "top cpuset balances every CPU").size() == 1);
  // This fixture's top has no cpuset.mems: node 0, and a warning.
  CHECK(Find(plan, "file:/rt:cpuset.mems")->after == "0");

  Journal journal(root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 6);
  CHECK(tree.Get("sys/fs/cgroup/cpuset/rt/cpuset.cpu_exclusive") == "1\n");
  CHECK(tree.Get("sys/fs/cgroup/cpuset/rt/tasks") == "640\n642\n643\n");
  CHECK(PendingOf(PlanOf(tuner, p, root)).empty());
  CHECK(RevertAll(tuner, root).complete);
  CHECK(TreeDiff(tree.dir(), kX86).empty());
}

TEST_CASE("partitions need a cpuset hierarchy: none is an error naming why", "[tune][partitions]") {
  TempTree tree(kArm64);
  tree.Put("proc/mounts", "proc /proc proc rw 0 0\n");
  FaultRoot root(tree.dir());
  auto p = Load(kArmPartition, root);
  PartitionsTuner tuner;
  SystemState state;
  auto plan = tuner.Plan(PlanContext{p, root, state});
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().err == ENOENT);
  CHECK(plan.error().message.find("cpuset") != std::string::npos);
  // Mounts that cannot be read: the reason once, through every layer that adds its words
  // (the tuner, then the whole plan), as `rtagent plan` prints it.
  root.FailReads("proc/mounts", ENOENT);
  auto all = PlanAll(p, root);
  REQUIRE_FALSE(all.ok());
  CHECK(all.error().message == "partitions: cannot read the mounts to find the cpuset hierarchy: cannot read " +
                                   tree.dir() + "/proc/mounts: No such file or directory");
  // No partitions: nothing to find, nothing to say.
  profile::Profile none = Load("version: 1\n", root);
  CHECK(tuner.Plan(PlanContext{none, root, state}).ok());
}

TEST_CASE("partitions on this machine: a v1 exclusive cpuset holding a child process", "[tune][partitions][host]") {
  auto live = OpenRoot("/");
  REQUIRE(live.ok());
  auto h = FindCpusetHierarchy(**live);
  if (::geteuid() != 0 || !h || h->version != 1) {
    RTAGENT_SKIP("needs root and a cgroup v1 cpuset hierarchy");
  }
  auto cpus = profile::ReadSystemCpus(**live);
  REQUIRE(cpus.ok());
  if (cpus->online.Count() < 2) {
    RTAGENT_SKIP("needs two online CPUs");
  }
  const int last = cpus->online.Max();
  const std::string name = "rtagent-test-" + std::to_string(::getpid());
  const std::string comm = "rtaP" + std::to_string(::getpid() % 100000);
  const std::string dir = "/" + h->Dir() + "/" + name;

  // Whatever happens, the child dies (declared after, so first) and then the cpuset goes (an
  // empty cpuset rmdirs cleanly).
  struct RemoveDir {
    std::string dir;
    ~RemoveDir() { ::rmdir(dir.c_str()); }
  } remove_dir{dir};
  rtagent::test::NamedChild child(comm);
  REQUIRE(child.pid() > 0);

  auto p = Load("version: 1\ncores:\n  housekeeping: 0-" + std::to_string(last - 1) + "\n  isolated: " +
                    std::to_string(last) + "\npartitions:\n  " + name + ":\n    cpus: " + std::to_string(last) +
                    "\n    processes: [" + comm + "]\n",
                **live);
  PartitionsTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, **live);
  REQUIRE(Find(plan, "dir:/" + name) != nullptr);
  CHECK(Find(plan, "dir:/" + name)->before == "absent");
  REQUIRE(Find(plan, "proc:" + std::to_string(child.pid())) != nullptr);
  CHECK(Find(plan, "proc:" + std::to_string(child.pid()))->before == "/");
  REQUIRE(PendingOf(plan).size() == 6);

  // The journal goes to a scratch tree: the live /run/rtagent is not ours to touch.
  TempTree scratch;
  FsRoot journal_root(scratch.dir());
  Journal journal(journal_root);
  REQUIRE(journal.Load().ok());
  Executor ex(**live, journal);
  tuner.AddActuators(ex, **live);
  ApplyReport rep = ex.Apply(PendingOf(plan));
  std::string log;
  for (const auto& r : rep.results) log += r.change.key + ": " + std::string(OutcomeName(r.outcome)) + " " + r.detail + "\n";
  INFO(log + rep.rollback_errors);
  REQUIRE_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 6);

  auto read = [&](const std::string& file) { return (*live)->ReadTrimmed(h->Dir() + "/" + name + "/" + file).value_or("?"); };
  CHECK(read(h->Cpuset("cpus")) == std::to_string(last));
  CHECK(read(h->Cpuset("cpu_exclusive")) == "1");
  CHECK(read(h->Cpuset("sched_load_balance")) == "0");
  CHECK(read("tasks") == std::to_string(child.pid()));
  CHECK(PendingOf(PlanOf(tuner, p, **live)).empty());

  RevertReport rev = ex.Revert();
  std::string rlog;
  for (const auto& r : rev.results) rlog += r.change.key + ": " + std::string(OutcomeName(r.outcome)) + " " + r.detail + "\n";
  INFO(rlog);
  CHECK(rev.complete);
  CHECK_FALSE((*live)->Exists(h->Dir() + "/" + name));
  auto back = (*live)->Read("proc/" + std::to_string(child.pid()) + "/cgroup").value_or("");
  CHECK(back.find(":cpuset:/\n") != std::string::npos);
}

namespace {

// The file twin, plus what kernel/cgroup/cpuset.c does to task placements on cgroup v2 (6.1):
// when a partition takes or returns CPUs, every thread of a cgroup that is not a partition gets
// the top's effective CPUs (all CPUs less those of the valid partitions), whatever it had; a
// process moved into a cgroup gets that cgroup's CPUs. Only threads the fixture keeps a status
// for are re-placed, so the rest of the tree stays byte for byte as it was.
class ReplacingBackend : public FileCgroupBackend {
 public:
  ReplacingBackend(const SysRoot& reads, SysRoot* writes, const CpusetHierarchy& h)
      : FileCgroupBackend(reads, writes, h), reads_(reads), sys_(reads, writes) {}

  Result<void> Set(const std::string& cgroup, const std::string& file, const std::string& value) override {
    auto r = FileCgroupBackend::Set(cgroup, file, value);
    if (!r || file != "cpuset.cpus.partition") return r;
    for (const TaskView& t : ListTasks(reads_, false)) {
      if (t.PerCpuKthread() || !reads_.Exists(kpath::TaskStatus(t.pid, t.tid))) continue;
      auto cg = CgroupOf(t.pid);
      if (cg && IsPartition(*cg)) continue;
      if (auto w = sys_.SetAffinity({t.pid, t.tid}, TopEffective()); !w) return w;
    }
    return Ok();
  }

  Result<void> Move(int pid, const std::string& cgroup) override {
    auto r = FileCgroupBackend::Move(pid, cgroup);
    if (!r) return r;
    CpuSet cpus = TopEffective();
    if (IsPartition(cgroup)) cpus = *CpuSet::ParseList(*Get(cgroup, "cpuset.cpus"));
    for (const TaskView& t : ListTasks(reads_, false)) {
      if (t.pid != pid || !reads_.Exists(kpath::TaskStatus(t.pid, t.tid))) continue;
      if (auto w = sys_.SetAffinity({t.pid, t.tid}, cpus); !w) return w;
    }
    return Ok();
  }

 private:
  bool IsPartition(const std::string& cgroup) const {
    if (cgroup == "/") return false;
    auto type = Get(cgroup, "cpuset.cpus.partition");
    return type && (*type == "root" || *type == "isolated");
  }
  CpuSet TopEffective() const {
    CpuSet all = *CpuSet::ParseList("0-7");
    auto names = reads_.List("sys/fs/cgroup");
    REQUIRE(names.ok());
    for (const auto& name : *names) {
      const std::string cg = "/" + name;
      if (!reads_.IsDir("sys/fs/cgroup/" + name) || !IsPartition(cg)) continue;
      all = all.Minus(*CpuSet::ParseList(*Get(cg, "cpuset.cpus")));
    }
    return all;
  }
  const SysRoot& reads_;
  FixtureSchedSyscalls sys_;
};

CgroupFactory ReplacingFactory() {
  return [](const SysRoot& reads, SysRoot* writes, const CpusetHierarchy& h) -> Result<std::unique_ptr<CgroupBackend>> {
    return std::unique_ptr<CgroupBackend>(new ReplacingBackend(reads, writes, h));
  };
}

std::string AffinityOf(const SysRoot& root, int pid, int tid) {
  FixtureSchedSyscalls sys(root, nullptr);
  auto cpus = sys.GetAffinity({pid, tid});
  return cpus ? cpus->ToList() : "error: " + cpus.error().message;
}

}  // namespace

TEST_CASE("partitions on cgroup v2: revert puts back the placements the kernel changed", "[tune][partitions]") {
  TempTree tree(kArm64);
  DissolveRt(tree);
  tree.Put("sys/fs/cgroup/rt/cpuset.cpus.partition", "member\n");  // the top has every CPU
  // init and sshd on the housekeeping CPUs, as isolcpus=domain leaves every task at boot
  tree.Put("proc/1/task/1/status", "Name:\tsystemd\nCpus_allowed:\t0f\nCpus_allowed_list:\t0-3\n");
  tree.Put("proc/612/task/612/status", "Name:\tsshd\nCpus_allowed:\t0f\nCpus_allowed_list:\t0-3\n");
  TempTree reference(tree.dir());
  FaultRoot root(tree.dir());
  auto p = Load(kArmPartition, root);
  PartitionsTuner tuner(ReplacingFactory());
  SectionPlan plan = PlanOf(tuner, p, root);
  Journal journal(root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
  CHECK_FALSE(rep.rolled_back);
  CHECK(AffinityOf(root, 1, 1) == "0-5");      // the partition took 6-7 from the top's tasks
  CHECK(AffinityOf(root, 612, 612) == "6-7");  // sshd moved in

  // init's placement is journaled before the partition write, so revert restores it after
  // undoing that write (newest first); sshd's before it was moved.
  auto pos = [&](const std::string& actuator, const std::string& key) {
    const auto& e = journal.entries();
    for (size_t i = 0; i < e.size(); ++i) {
      if (e[i].actuator == actuator && e[i].key == key) return static_cast<long>(i);
    }
    return -1L;
  };
  const long init = pos("affinity", "1/1"), partition = pos("cgroup", "file:/ctl:cpuset.cpus.partition");
  REQUIRE(init >= 0);
  CHECK(init < partition);
  CHECK(journal.entries()[init].before == "0-3");
  CHECK(journal.entries()[init].side_effect_of == "file:/ctl:cpuset.cpus.partition");
  CHECK(pos("affinity", "612/612") < partition);  // kept once, at the first write that moves it
  CHECK(pos("affinity", "12/12") == -1);           // a per-CPU kernel thread: the kernel leaves it
  CHECK(PendingOf(PlanOf(tuner, p, root)).empty());

  RevertReport rev = RevertAll(tuner, root);
  CHECK(rev.complete);
  CHECK(AffinityOf(root, 1, 1) == "0-3");
  CHECK(AffinityOf(root, 612, 612) == "0-3");
  CHECK(TreeDiff(tree.dir(), reference.dir()).empty());
}

TEST_CASE("partitions on cgroup v2: a later failure puts back the placements too", "[tune][partitions]") {
  TempTree tree(kArm64);
  DissolveRt(tree);
  tree.Put("sys/fs/cgroup/rt/cpuset.cpus.partition", "member\n");
  tree.Put("proc/1/task/1/status", "Name:\tsystemd\nCpus_allowed:\t0f\nCpus_allowed_list:\t0-3\n");
  TempTree reference(tree.dir());
  FaultRoot root(tree.dir());
  root.FailWrites("sys/fs/cgroup/ctl/cgroup.procs", EACCES);  // moving sshd in fails
  auto p = Load(kArmPartition, root);
  PartitionsTuner tuner(ReplacingFactory());
  SectionPlan plan = PlanOf(tuner, p, root);
  Journal journal(root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = ApplyPlan(tuner, plan, root, journal);
  CHECK(rep.rolled_back);
  CHECK(rep.rollback_errors.empty());
  CHECK(AffinityOf(root, 1, 1) == "0-3");
  CHECK(TreeDiff(tree.dir(), reference.dir()).empty());
}

TEST_CASE("the cgroup actuator names the placements a write disturbs", "[tune][partitions]") {
  SECTION("cgroup v2") {
    TempTree tree(kArm64);
    FaultRoot root(tree.dir());
    CgroupActuator a(root, DefaultCgroupFactory());
    auto keys = [&](const std::string& key) {
      std::vector<std::string> out;
      auto s = a.SideEffects(key, "isolated");
      REQUIRE(s.ok());
      for (const auto& e : *s) {
        CHECK(e.actuator == "affinity");
        CHECK(e.compare == Compare::kCpuList);
        out.push_back(e.key);
      }
      return out;
    };
    auto part = keys("file:/ctl:cpuset.cpus.partition");
    CHECK(std::count(part.begin(), part.end(), "1/1") == 1);
    // A process's other threads are listed, not read: the journal names them by their process.
    {
      auto s = a.SideEffects("file:/ctl:cpuset.cpus.partition", "isolated");
      REQUIRE(s.ok());
      std::map<std::string, std::string> what;
      for (const auto& e : *s) what[e.key] = e.what;
      CHECK(what["1200/1200"].rfind("affinity of robot_ctrl (1200/1200), kept: the kernel re-places it when /ctl's", 0) == 0);
      CHECK(what["1200/1203"].rfind("affinity of a thread of robot_ctrl (1200/1203), kept: ", 0) == 0);
    }
    CHECK(std::count(part.begin(), part.end(), "612/612") == 1);
    CHECK(std::count(part.begin(), part.end(), "12/12") == 0);  // per-CPU kthread
    // The threads already inside the partition are not the parent's.
    auto rt = keys("file:/rt:cpuset.cpus.partition");
    CHECK(std::count(rt.begin(), rt.end(), "1200/1203") == 0);
    CHECK(std::count(rt.begin(), rt.end(), "1/1") == 1);
    // A partition's CPUs concern its parent; a member's do not.
    CHECK_FALSE(keys("file:/rt:cpuset.cpus").empty());
    CHECK(keys("file:/system.slice:cpuset.cpus").empty());
    CHECK(keys("dir:/ctl").empty());
    auto moved = keys("proc:1200");
    std::sort(moved.begin(), moved.end());
    CHECK(moved == std::vector<std::string>{"1200/1200", "1200/1203", "1200/1204", "1200/1205", "1200/1206"});
    CHECK(keys("proc:99999").empty());  // gone: the move itself will say so
    auto bad = a.SideEffects("nonsense", "x");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().err == EINVAL);
  }
  SECTION("cgroup v1: exclusive cpusets leave the parent's tasks alone") {
    TempTree tree(kX86);
    FaultRoot root(tree.dir());
    CgroupActuator a(root, DefaultCgroupFactory());
    auto s = a.SideEffects("file:/rt:cpuset.cpu_exclusive", "1");
    REQUIRE(s.ok());
    CHECK(s->empty());
  }
  SECTION("no cpuset hierarchy") {
    TempTree tree;
    tree.Put("proc/mounts", "");
    FaultRoot root(tree.dir());
    CgroupActuator a(root, DefaultCgroupFactory());
    CHECK_FALSE(a.SideEffects("file:/rt:cpuset.cpus.partition", "isolated").ok());
  }
}
