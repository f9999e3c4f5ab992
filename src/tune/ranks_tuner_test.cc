// The ranks tuner on copies of the fixture trees: plan with before/after, apply through the
// executor, plan again with nothing pending, revert to a byte-identical tree; the rank order
// and Chapter 4 checks with the profile line; injected ESRCH, EINVAL and EPERM; proof that a
// fixture thread never reaches a live process; and, tagged [host], a real child process.
#include "base/child_test_support.h"
#include "base/tree_test_support.h"
#include "tune/ranks_tuner.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <map>
#include <sstream>

#include "base/fault_root.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/fixture_sched_syscalls.h"
#include "tune/journal.h"
#include "base/skip_test_support.h"

using namespace rtagent;

namespace {

const std::string kArm64 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";

profile::Profile Load(const std::string& yaml, const profile::SystemCpus& cpus) {
  profile::Diagnostics diags;
  auto p = profile::LoadProfileText(yaml, "board.yaml", ".", cpus, &diags);
  INFO(diags.FormatText());
  REQUIRE(p.ok());
  return std::move(*p);
}

SectionPlan PlanOf(const Tuner& t, const profile::Profile& p, const SysRoot& root) {
  SystemState state;
  auto plan = t.Plan(PlanContext{p, root, state});
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

const Change* Find(const SectionPlan& plan, const std::string& actuator, const std::string& key) {
  for (const auto& c : plan.items) {
    if (c.actuator == actuator && c.key == key) return &c;
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

const char* kBoard = R"(version: 1
cores:
  housekeeping: 0-3
  isolated: 4-7
ranks:
  rules:
    sensor-irq:
      threads: "irq/[0-9]+-eth0"
      policy: fifo
      priority: 85
      cpus: 6
    control-loop:
      process: robot_ctrl
      threads: "ctrl.*|ecat_rx"
      policy: fifo
      priority: 80
      cpus: 6
    other-irqs:
      threads: "irq/[0-9]+-.*"
      policy: fifo
      priority: 50
      cpus: housekeeping
  order:
    - sensor-irq
    - control-loop
    - other-irqs
)";

/// A syscall layer that wraps the twin and fails chosen threads with chosen errnos.
struct Injected {
  std::map<int, int> attr;      // tid -> errno for SetAttr
  std::map<int, int> affinity;  // tid -> errno for SetAffinity
  std::vector<std::string> calls;
};

class InjectingSched : public SchedSyscalls {
 public:
  InjectingSched(std::unique_ptr<SchedSyscalls> inner, Injected* inj) : inner_(std::move(inner)), inj_(inj) {}
  Result<SchedAttr> GetAttr(const TaskId& t) const override { return inner_->GetAttr(t); }
  Result<void> SetAttr(const TaskId& t, const SchedAttr& a) override {
    inj_->calls.push_back("attr " + TaskKey(t) + " " + FormatSched(a));
    if (auto it = inj_->attr.find(t.tid); it != inj_->attr.end()) return MakeError("injected", it->second);
    return inner_->SetAttr(t, a);
  }
  Result<CpuSet> GetAffinity(const TaskId& t) const override { return inner_->GetAffinity(t); }
  Result<void> SetAffinity(const TaskId& t, const CpuSet& cpus) override {
    inj_->calls.push_back("affinity " + TaskKey(t) + " " + cpus.ToList());
    if (auto it = inj_->affinity.find(t.tid); it != inj_->affinity.end()) return MakeError("injected", it->second);
    return inner_->SetAffinity(t, cpus);
  }

 private:
  std::unique_ptr<SchedSyscalls> inner_;
  Injected* inj_;
};

SchedFactory InjectingFactory(Injected* inj) {
  return [inj](const SysRoot& reads, SysRoot* writes) -> std::unique_ptr<SchedSyscalls> {
    return std::make_unique<InjectingSched>(std::make_unique<FixtureSchedSyscalls>(reads, writes), inj);
  };
}


}  // namespace

TEST_CASE("ranks plan shows each thread's class and affinity before and after", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  auto p = Load(kBoard, profile::ReadSystemCpus(root).value());
  RanksTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  CHECK(plan.section == "ranks");

  // The thread that brings the loop its data: FIFO 50 like every threaded IRQ (Chapter 4), raised to 85.
  const Change* eth0 = Find(plan, "sched", "186/186");
  REQUIRE(eth0 != nullptr);
  CHECK(eth0->before == "fifo:50");
  CHECK(eth0->after == "fifo:85");
  CHECK(eth0->compare == Compare::kExact);
  CHECK(Pending(*eth0));
  CHECK(eth0->what.find("irq/85-eth0") != std::string::npos);
  CHECK(eth0->why.find("sensor-irq") != std::string::npos);
  const Change* eth0_cpus = Find(plan, "affinity", "186/186");
  REQUIRE(eth0_cpus != nullptr);
  CHECK(eth0_cpus->before == "2");
  CHECK(eth0_cpus->after == "6");
  CHECK(eth0_cpus->compare == Compare::kCpuList);

  // The loop thread already holds FIFO 80 on CPU 6: listed, nothing to do.
  const Change* loop = Find(plan, "sched", "1200/1203");
  REQUIRE(loop != nullptr);
  CHECK(loop->before == "fifo:80");
  CHECK_FALSE(Pending(*loop));
  CHECK_FALSE(Pending(*Find(plan, "affinity", "1200/1203")));
  // ecat_rx sits at 85 today and comes down to the loop's 80.
  CHECK(Find(plan, "sched", "1200/1204")->after == "fifo:80");
  // The planner and logger threads of the same process are not named by the rule.
  CHECK(Find(plan, "sched", "1200/1205") == nullptr);

  // The other IRQ threads: the first matching rule wins, so irq/85-eth0 is not among them.
  int other_irqs = 0;
  for (const auto& c : plan.items) {
    if (c.actuator == "sched" && c.why.find("other-irqs") != std::string::npos) {
      ++other_irqs;
      CHECK(c.after == "fifo:50");
      CHECK(c.key != "186/186");
    }
  }
  CHECK(other_irqs == 14);
  // A thread's affinity comes before its class, so a raised thread never runs where it must not.
  for (size_t i = 0; i + 1 < plan.items.size(); ++i) {
    if (plan.items[i].actuator == "sched") CHECK(plan.items[i + 1].key != plan.items[i].key);
  }
  CHECK(FindingsWith(plan, Finding::Level::kError, "").empty());
  // Pinned IRQ threads follow their IRQ's affinity: said once per rule that pins them.
  CHECK(FindingsWith(plan, Finding::Level::kInfo, "pins IRQ threads").size() == 2);
  // Plan never writes.
  CHECK(root.writes().empty());
}

TEST_CASE("ranks: a thread whose affinity cannot be read is a warning, and its class is still planned", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  auto p = Load(kBoard, profile::ReadSystemCpus(root).value());
  root.FailReads(kpath::TaskStatus(186, 186), EIO);  // where the fixture keeps irq/85-eth0's allowed CPUs
  SectionPlan plan = PlanOf(RanksTuner(), p, root);
  auto warned = FindingsWith(plan, Finding::Level::kWarning, "cannot be read");
  REQUIRE(warned.size() == 1);
  CHECK_THAT(warned[0]->message, Catch::StartsWith("affinity of ") && Catch::Contains("irq/85-eth0") &&
                                     Catch::Contains("Input/output error"));
  CHECK(warned[0]->mark.line == 7);  // the rule's line (sensor-irq)
  CHECK(Find(plan, "affinity", "186/186") == nullptr);
  const Change* sched = Find(plan, "sched", "186/186");
  REQUIRE(sched != nullptr);
  CHECK(sched->after == "fifo:85");
  CHECK(Find(plan, "affinity", "1200/1203") != nullptr);  // the other threads are planned as before
}

TEST_CASE("ranks on a tree where no thread can be read: one warning naming the tree, nothing planned",
          "[tune][ranks]") {
  // A tree captured without its processes (or a /proc that is not mounted): the rules can match
  // nothing, and the plan says why instead of warning once per rule that matched nothing.
  TempTree tree(kArm64);
  for (const auto& e : std::filesystem::directory_iterator(tree.dir() + "/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") == std::string::npos) std::filesystem::remove_all(e.path());
  }
  FaultRoot root(tree.dir());
  auto p = Load(kBoard, profile::ReadSystemCpus(root).value());
  SectionPlan plan = PlanOf(RanksTuner(), p, root);
  REQUIRE(plan.findings.size() == 1);
  CHECK(plan.findings[0].level == Finding::Level::kWarning);
  CHECK(plan.findings[0].message == "no thread can be read under " + tree.dir() + "; ranks left alone");
  CHECK(plan.items.empty());
  CHECK(root.writes().empty());
}

TEST_CASE("ranks apply, plan again with nothing pending, revert to the same bytes", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  auto p = Load(kBoard, profile::ReadSystemCpus(root).value());
  RanksTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto pending = PendingOf(plan);
  REQUIRE(pending.size() >= 3);

  Journal journal(root);
  REQUIRE(journal.Load().ok());
  Executor ex(root, journal);
  tuner.AddActuators(ex, root);
  ApplyReport rep = ex.Apply(pending);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == static_cast<int>(pending.size()));
  CHECK(tree.Get("proc/186/task/186/status").find("Cpus_allowed_list:\t6") != std::string::npos);

  SectionPlan again = PlanOf(tuner, p, root);
  CHECK(PendingOf(again).empty());
  CHECK(ex.Apply(pending).Count(Outcome::kAlreadySet) == static_cast<int>(pending.size()));

  Journal reloaded(root);
  REQUIRE(reloaded.Load().ok());
  Executor ex2(root, reloaded);
  tuner.AddActuators(ex2, root);
  RevertReport rev = ex2.Revert();
  CHECK(rev.complete);
  CHECK(TreeDiff(tree.dir(), kArm64).empty());
}

TEST_CASE("ranks order is checked on the matched threads, reported at the order's line", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  auto p = Load(kBoard, profile::ReadSystemCpus(root).value());
  // The loader would refuse this profile (validate checks the rules); a profile assembled by
  // another path must still not get past the tuner: raise the loop above its sensor thread.
  for (auto& r : p.ranks.rules) {
    if (r.name == "control-loop") r.priority.value = 90;
  }
  RanksTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto errors = FindingsWith(plan, Finding::Level::kError, "ranks.order puts \"sensor-irq\" above \"control-loop\"");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->message.find("irq/85-eth0") != std::string::npos);
  CHECK(errors[0]->message.find("fifo 90") != std::string::npos);
  CHECK(errors[0]->mark.file == "board.yaml");
  CHECK(errors[0]->mark.line == 24);  // "    - sensor-irq"
  CHECK(errors[0]->why.find("Chapter 4") != std::string::npos);
}

TEST_CASE("a loop below the IRQ threads that do not feed it is a Chapter 4 error", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  // Valid as written: the sensor above the loop. But the loop at 45 sits below every other
  // threaded IRQ, which the kernel starts at FIFO 50.
  auto p = Load(R"(version: 1
cores:
  housekeeping: 0-3
  isolated: 4-7
ranks:
  rules:
    sensor-irq:
      threads: "irq/[0-9]+-eth0"
      policy: fifo
      priority: 60
    control-loop:
      process: robot_ctrl
      threads: "ctrl.*"
      policy: fifo
      priority: 45
  order:
    - sensor-irq
    - control-loop
)",
                profile::ReadSystemCpus(root).value());
  RanksTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto errors = FindingsWith(plan, Finding::Level::kError, "rank \"control-loop\" (fifo 45) does not outrank 14 IRQ threads");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->message.find("irq/21-feb50000 (fifo 50)") != std::string::npos);
  CHECK(errors[0]->message.find("irq/85-eth0") == std::string::npos);  // declared above: it feeds the loop
  CHECK(errors[0]->mark.line == 18);
  CHECK(errors[0]->why.find("Chapter 4") != std::string::npos);

  // At 55 the loop is above the rest, and the order holds.
  for (auto& r : p.ranks.rules) {
    if (r.name == "control-loop") r.priority.value = 55;
  }
  CHECK(FindingsWith(PlanOf(tuner, p, root), Finding::Level::kError, "").empty());
}

TEST_CASE("only the loop is held against the IRQ threads: a user rank declared below it may sit below them",
          "[tune][ranks]") {
  // The tuner once held every user rank against the IRQ threads and called the PLC's comms
  // thread at RR 20 a Chapter 4 error; the ranks check held only the loop. The loop, the first
  // user rank of ranks.order, is what Chapter 4 places above "every other interrupt thread".
  const std::string ipc = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
  FsRoot root(ipc);
  auto p = Load(R"(version: 1
ranks:
  rules:
    plc: {threads: plc_task, policy: fifo, priority: 70}
    comms: {threads: plc_comm, policy: rr, priority: 20}
  order: [plc, comms]
)",
                profile::ReadSystemCpus(root).value());
  RanksTuner tuner;
  CHECK(FindingsWith(PlanOf(tuner, p, root), Finding::Level::kError, "").empty());

  // The loop itself at 45 is below the IRQ threads' 50: each is named.
  for (auto& r : p.ranks.rules) {
    if (r.name == "plc") r.priority.value = 45;
  }
  SectionPlan low = PlanOf(tuner, p, root);
  auto errors = FindingsWith(low, Finding::Level::kError, "rank \"plc\" (fifo 45) does not outrank 3 IRQ threads");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->message.find("irq/132-mei_me (fifo 50)") != std::string::npos);
}

TEST_CASE("a rank that matches nothing is a warning, command lines match with spaces", "[tune][ranks]") {
  TempTree tree(kArm64);
  static const char kArgs[] = "/opt/robot/bin/robot_ctrl\0--rate\0" "1000";
  tree.Put("proc/1200/cmdline", std::string(kArgs, sizeof kArgs));  // every argument ends with a NUL
  FaultRoot root(tree.dir());
  auto p = Load(R"(version: 1
cores:
  housekeeping: 0-3
  isolated: 4-7
ranks:
  rules:
    camera:
      process: camera_saver
      policy: other
      nice: 5
    robot:
      cmdline: ".*robot_ctrl --rate 1000"
      cpus: 4-7
)",
                profile::ReadSystemCpus(root).value());
  RanksTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, root);
  auto warnings = FindingsWith(plan, Finding::Level::kWarning, "rank \"camera\" matches no thread");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0]->mark.line == 7);
  // Every thread of the process: affinity only (no policy in the rule).
  int n = 0;
  for (const auto& c : plan.items) {
    CHECK(c.actuator == "affinity");
    CHECK(c.key.rfind("1200/", 0) == 0);
    CHECK(c.after == "4-7");
    ++n;
  }
  CHECK(n == 5);
}

TEST_CASE("ranks: the kernel's known refusals are outcomes, other errors roll back", "[tune][ranks]") {
  TempTree tree(kArm64);
  FaultRoot root(tree.dir());
  std::string yaml = kBoard;
  yaml.insert(yaml.find("  order:"), R"(    timers:
      threads: "ktimers/[0-9]+"
      policy: fifo
      priority: 2
      cpus: housekeeping
)");
  auto p = Load(yaml, profile::ReadSystemCpus(root).value());

  SECTION("per-CPU kthreads refuse affinity with EINVAL: unchangeable, with the reason") {
    RanksTuner tuner;
    SectionPlan plan = PlanOf(tuner, p, root);
    Journal journal(root);
    REQUIRE(journal.Load().ok());
    Executor ex(root, journal);
    tuner.AddActuators(ex, root);
    ApplyReport rep = ex.Apply(PendingOf(plan));
    CHECK_FALSE(rep.rolled_back);
    int refused = 0;
    for (const auto& r : rep.results) {
      if (r.outcome != Outcome::kUnchangeable) continue;
      ++refused;
      CHECK(r.change.actuator == "affinity");
      CHECK(r.change.what.find("ktimers/") != std::string::npos);
      CHECK(r.detail.find("PF_NO_SETAFFINITY") != std::string::npos);
    }
    CHECK(refused == 8);  // every ktimers/N is bound to its own CPU
    // Their class did change (chrt works on them), and nothing else was lost.
    CHECK(ParseTaskStat(tree.Get("proc/46/task/46/stat"))->rt_priority == 2);
    CHECK(rep.Count(Outcome::kApplied) > 0);
  }

  SECTION("a thread that exits before its write is a refusal: ESRCH, the thread exited") {
    Injected inj;
    inj.attr[1204] = ESRCH;
    RanksTuner tuner(InjectingFactory(&inj));
    SectionPlan plan = PlanOf(tuner, p, root);
    Journal journal(root);
    REQUIRE(journal.Load().ok());
    Executor ex(root, journal);
    tuner.AddActuators(ex, root);
    ApplyReport rep = ex.Apply(PendingOf(plan));
    CHECK_FALSE(rep.rolled_back);
    bool seen = false;
    for (const auto& r : rep.results) {
      if (r.change.key == "1200/1204" && r.change.actuator == "sched") {
        CHECK(r.outcome == Outcome::kUnchangeable);
        CHECK(r.detail == "the thread exited");
        seen = true;
      }
    }
    CHECK(seen);
    // Nothing is journaled for it: revert has nothing of it to put back.
    for (const auto& e : journal.entries()) CHECK_FALSE((e.actuator == "sched" && e.key == "1200/1204"));
  }

  SECTION("EPERM (not root) fails the apply and rolls back what this run did") {
    Injected inj;
    inj.attr[1204] = EPERM;
    RanksTuner tuner(InjectingFactory(&inj));
    SectionPlan plan = PlanOf(tuner, p, root);
    Journal journal(root);
    REQUIRE(journal.Load().ok());
    Executor ex(root, journal);
    tuner.AddActuators(ex, root);
    ApplyReport rep = ex.Apply(PendingOf(plan));
    CHECK(rep.rolled_back);
    CHECK(rep.rollback_errors.empty());
    CHECK(rep.Count(Outcome::kFailed) == 1);
    CHECK(rep.Count(Outcome::kRolledBack) >= 2);  // irq/85-eth0's affinity and class, ecat_rx's affinity
    CHECK(journal.Empty());
    CHECK(TreeDiff(tree.dir(), kArm64).empty());
  }

  SECTION("EINVAL on a thread that is not per-CPU names the partition as the likely cause") {
    Injected inj;
    inj.affinity[186] = EINVAL;
    RanksTuner tuner(InjectingFactory(&inj));
    SectionPlan plan = PlanOf(tuner, p, root);
    Journal journal(root);
    REQUIRE(journal.Load().ok());
    Executor ex(root, journal);
    tuner.AddActuators(ex, root);
    ApplyReport rep = ex.Apply(PendingOf(plan));
    CHECK_FALSE(rep.rolled_back);
    for (const auto& r : rep.results) {
      if (r.change.key == "186/186" && r.change.actuator == "affinity") {
        CHECK(r.outcome == Outcome::kUnchangeable);
        CHECK(r.detail.find("outside the thread's cpuset or partition") != std::string::npos);
      }
    }
  }
}

TEST_CASE("under --root a fixture thread never reaches the live process with its number", "[tune][ranks]") {
  rtagent::test::NamedChild victim("rtagent-victim");
  REQUIRE(victim.pid() > 0);
  const int pid = victim.pid();
  const int live_policy = ::sched_getscheduler(pid);
  cpu_set_t live_cpus;
  CPU_ZERO(&live_cpus);
  REQUIRE(::sched_getaffinity(pid, sizeof live_cpus, &live_cpus) == 0);

  // A fixture whose only thread has the live child's number.
  TempTree tree;
  const std::string task = "proc/" + std::to_string(pid) + "/task/" + std::to_string(pid);
  tree.Put(task + "/stat", std::to_string(pid) +
                               " (rtagent-victim) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 "
                               "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  tree.Put(task + "/status", "Name:\trtagent-victim\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n");
  auto p = Load(R"(version: 1
cores:
  housekeeping: 0
  isolated: 1
ranks:
  rules:
    victim:
      threads: rtagent-victim
      policy: fifo
      priority: 10
      cpus: 1
)",
                profile::testing::Cpus(2));

  for (int use_fault_root = 0; use_fault_root < 2; ++use_fault_root) {
    std::unique_ptr<SysRoot> root;
    if (use_fault_root) root = std::make_unique<FaultRoot>(tree.dir());
    else root = std::make_unique<FsRoot>(tree.dir());
    REQUIRE_FALSE(root->IsLive());
    RanksTuner tuner;
    SectionPlan plan = PlanOf(tuner, p, *root);
    REQUIRE(PendingOf(plan).size() == (use_fault_root ? 0u : 2u));
    Journal journal(*root);
    REQUIRE(journal.Load().ok());
    Executor ex(*root, journal);
    tuner.AddActuators(ex, *root);
    ApplyReport rep = ex.Apply(PendingOf(plan));
    CHECK_FALSE(rep.rolled_back);
    // The fixture changed...
    auto st = ParseTaskStat(tree.Get(task + "/stat"));
    REQUIRE(st.has_value());
    CHECK(st->policy == kSchedFifo);
    CHECK(st->rt_priority == 10);
    CHECK(tree.Get(task + "/status").find("Cpus_allowed_list:\t1\n") != std::string::npos);
    // ...and the live process did not.
    CHECK(::sched_getscheduler(pid) == live_policy);
    cpu_set_t now;
    CPU_ZERO(&now);
    REQUIRE(::sched_getaffinity(pid, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &live_cpus));
  }
}

TEST_CASE("ranks on this machine: a child process to FIFO 10 on CPU 0 and back", "[tune][ranks][host]") {
  if (::geteuid() != 0) {
    RTAGENT_SKIP("needs root (CAP_SYS_NICE) to set SCHED_FIFO");
  }
  const std::string name = "rtaT" + std::to_string(::getpid() % 100000);
  rtagent::test::NamedChild child(name);
  const int pid = child.pid();
  REQUIRE(pid > 0);
  REQUIRE(::sched_getscheduler(pid) == SCHED_OTHER);
  cpu_set_t before;
  CPU_ZERO(&before);
  REQUIRE(::sched_getaffinity(pid, sizeof before, &before) == 0);

  auto live = OpenRoot("/");
  REQUIRE(live.ok());
  REQUIRE((*live)->IsLive());
  auto cpus = profile::ReadSystemCpus(**live);
  REQUIRE(cpus.ok());
  if (cpus->online.Count() < 2) {
    RTAGENT_SKIP("needs two online CPUs");
  }
  auto p = Load(R"(version: 1
cores:
  housekeeping: 0
ranks:
  rules:
    child:
      process: )" + name + R"(
      policy: fifo
      priority: 10
      cpus: 0
)",
                *cpus);
  RanksTuner tuner;
  SectionPlan plan = PlanOf(tuner, p, **live);
  REQUIRE(plan.items.size() == 2);  // one thread: affinity and class
  // The child's nice is the test's own (ctest may run under nice(1)).
  errno = 0;
  const int nice_before = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
  REQUIRE(errno == 0);
  CHECK(Find(plan, "sched", std::to_string(pid) + "/" + std::to_string(pid))->before ==
        "other:nice=" + std::to_string(nice_before));

  // The journal goes to a scratch tree: the live /run/rtagent is not ours to touch.
  TempTree scratch;
  FsRoot journal_root(scratch.dir());
  Journal journal(journal_root);
  REQUIRE(journal.Load().ok());
  Executor ex(**live, journal);
  tuner.AddActuators(ex, **live);
  ApplyReport rep = ex.Apply(PendingOf(plan));
  REQUIRE_FALSE(rep.rolled_back);
  struct sched_param sp{};
  CHECK(::sched_getscheduler(pid) == SCHED_FIFO);
  REQUIRE(::sched_getparam(pid, &sp) == 0);
  CHECK(sp.sched_priority == 10);
  cpu_set_t now;
  CPU_ZERO(&now);
  REQUIRE(::sched_getaffinity(pid, sizeof now, &now) == 0);
  CHECK(CPU_COUNT(&now) == 1);
  CHECK(CPU_ISSET(0, &now));
  CHECK(PendingOf(PlanOf(tuner, p, **live)).empty());

  RevertReport rev = ex.Revert();
  CHECK(rev.complete);
  CHECK(::sched_getscheduler(pid) == SCHED_OTHER);
  CHECK(::getpriority(PRIO_PROCESS, static_cast<id_t>(pid)) == nice_before);
  CPU_ZERO(&now);
  REQUIRE(::sched_getaffinity(pid, sizeof now, &now) == 0);
  CHECK(CPU_EQUAL(&now, &before));
}
