// The sysctls section and its tuner: keys checked against the target's proc/sys, a key set in
// two places refused, RT throttling judged as memory.sysctl judges it, and apply + revert on a
// copy of a fixture board (byte-identical after) and on this machine ([host]).
#include "tune/sysctls_tuner.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/skip_test_support.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/journal.h"
#include "tune/tuner_test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;
using namespace rtagent::tune_testing;
using profile::Diagnostic;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
// Every other section left alone: no boot loader file, no IRQ, no runtime mask.
const std::string kOnlySysctls =
    "cores:\n  bootloader: print\n  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
    "irqs:\n  default: keep\n  irqbalance: leave\n";

// Loads `yaml` (written to a file in `dir`) against the system under `root`: its CPUs and sysctls.
SectionPlan PlanOf(const profile::Profile& p, const SysRoot& root) { return PlanWith(SysctlsTuner(), p, root); }

}  // namespace

TEST_CASE("sysctls: dotted and slashed names are one name", "[tune]") {
  CHECK(DottedSysctl("vm.stat_interval") == "vm.stat_interval");
  CHECK(DottedSysctl("vm/stat_interval") == "vm.stat_interval");
  // sysctl.d(5): after a leading '/', dots belong to names (a VLAN interface).
  CHECK(DottedSysctl("net/ipv4/conf/eth0.100/rp_filter") == "net.ipv4.conf.eth0/100.rp_filter");
  CHECK(kpath::Sysctl("net.ipv4.conf.eth0/100.rp_filter") == "proc/sys/net/ipv4/conf/eth0.100/rp_filter");
}

TEST_CASE("sysctls: the target's sysctls are read with its CPUs", "[tune]") {
  FsRoot root(kX86);
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus);
  REQUIRE(cpus->sysctls.Known());
  CHECK(cpus->sysctls.Has("vm.stat_interval"));
  CHECK(cpus->sysctls.Has("kernel.osrelease"));
  // A directory is no sysctl, and neither is a name the tree lacks.
  CHECK_FALSE(cpus->sysctls.Has("vm"));
  CHECK_FALSE(cpus->sysctls.Has("vm.stat_intervall"));
  // "//" is ".." on disk: a name climbing out of proc/sys (here to proc/cmdline) is none.
  CHECK_FALSE(cpus->sysctls.Has("kernel.//.//cmdline"));
  CHECK_FALSE(cpus->sysctls.Has("kernel./.osrelease"));
  // Walked only when the whole list is asked for: each name once, the ones asked among them.
  const std::vector<std::string>& all = cpus->sysctls.All();
  CHECK(std::count(all.begin(), all.end(), "vm.stat_interval") == 1);
  CHECK(std::count(all.begin(), all.end(), "kernel.osrelease") == 1);
  CHECK(std::count(all.begin(), all.end(), "vm") == 0);
}

TEST_CASE("sysctls: any key the target has is planned in file order, compared by meaning", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto l = LoadOn(dir, root, "sysctls:\n  vm.stat_interval: 10\n  kernel/watchdog_thresh: 10\n  kernel.numa_balancing: \"01\"\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, root);
  CHECK(plan.section == "sysctls");
  REQUIRE(plan.items.size() == 3);
  CHECK(plan.items[0].key == kpath::Sysctl("vm.stat_interval"));
  CHECK(plan.items[0].before == "1");
  CHECK(plan.items[0].after == "10");
  CHECK(Pending(plan.items[0]));
  CHECK(plan.items[1].what == "kernel.watchdog_thresh");
  CHECK_FALSE(Pending(plan.items[1]));  // the fixture's threshold is 10 already
  CHECK(plan.items[2].compare == Compare::kInteger);
  CHECK(plan.items[2].why == "sysctls: kernel.numa_balancing (" + l.path + ":4:3)");
  CHECK(plan.findings.empty());
}

TEST_CASE("sysctls: a key the target lacks is an error naming the line and the nearest key", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto l = LoadOn(dir, root, "sysctls:\n  vm.stat_interval: 10\n  vm.stat_intervall: 10\n");
  REQUIRE_FALSE(l.result);
  const Diagnostic& d = Only(l, "the target has no sysctl vm.stat_intervall");
  CheckAt(d, l.path, 3, 3);
  CHECK_THAT(d.message, Catch::Contains("'sysctls.vm.stat_intervall'"));
  CHECK_THAT(d.hint, Catch::Contains("the nearest it has is vm.stat_interval"));

  auto twice = LoadOn(dir, root, "sysctls:\n  vm.stat_interval: 10\n  vm/stat_interval: 20\n");
  CheckAt(Only(twice, "names vm.stat_interval, set already at " + twice.path + ":2:3"), twice.path, 3, 3);

  auto list = LoadOn(dir, root, "sysctls:\n  vm.stat_interval: [1, 2]\n");
  CheckAt(Only(list, "'sysctls.vm.stat_interval' wants a value, got a list"), list.path, 2, 21);

  auto bad = LoadOn(dir, root, "sysctls:\n  vm..x: 1\n");
  Only(bad, "'sysctls.vm..x' is not a sysctl name");

  // A part that is ".." on disk (dotted "//", slashed "..") names a file outside proc/sys.
  auto up = LoadOn(dir, root, "sysctls:\n  kernel.//.//cmdline: 1\n");
  CheckAt(Only(up, "'sysctls.kernel.//.//cmdline' is not a sysctl name"), up.path, 2, 3);
  auto up2 = LoadOn(dir, root, "sysctls:\n  kernel/../../cmdline: 1\n");
  Only(up2, "'sysctls.kernel/../../cmdline' is not a sysctl name");
  auto here = LoadOn(dir, root, "sysctls:\n  kernel./.osrelease: 1\n");
  Only(here, "'sysctls.kernel./.osrelease' is not a sysctl name");
}

TEST_CASE("sysctls: a key another section sets is refused naming both places", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto mem = LoadOn(dir, root, "memory:\n  sysctl:\n    vm.stat_interval: 10\nsysctls:\n  vm/stat_interval: 10\n");
  REQUIRE_FALSE(mem.result);
  const Diagnostic& d = Only(mem, "sysctls.vm.stat_interval is set in memory.sysctl too (" + mem.path + ":3:5)");
  CheckAt(d, mem.path, 5, 3);

  auto tm = LoadOn(dir, root, "cores:\n  runtime:\n    timer_migration: false\nsysctls:\n  kernel.timer_migration: 0\n");
  REQUIRE_FALSE(tm.result);  // refused even though the two agree: one file, one owner
  CheckAt(Only(tm, "set by cores.runtime.timer_migration too (" + tm.path + ":3:22)"), tm.path, 5, 3);
}

TEST_CASE("sysctls: removing the RT safety net is judged as in memory.sysctl", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto off = LoadOn(dir, root, "sysctls:\n  kernel.sched_rt_runtime_us: -1\n");
  REQUIRE_FALSE(off.result);
  CheckAt(Only(off, "kernel.sched_rt_runtime_us=-1 removes the RT safety net on every CPU, but kernel.rt_safety_net is keep"),
          off.path, 2, 3);

  auto any = LoadOn(dir, root, "kernel:\n  rt_safety_net: any\nsysctls:\n  kernel.sched_rt_runtime_us: -1\n");
  REQUIRE(any.result);
  CHECK(Only(any, "removes the RT safety net on every CPU").severity == profile::Severity::kWarning);
  const Sysctl* s = ProfileSysctl(*any.result, "kernel.sched_rt_runtime_us");
  REQUIRE(s != nullptr);
  CHECK(s->value == "-1");

  // The budget and its period may sit in the two sections: still one rule.
  auto split = LoadOn(dir, root, "memory:\n  sysctl:\n    kernel.sched_rt_period_us: 1000\n"
                                 "sysctls:\n  kernel.sched_rt_runtime_us: 2000\n");
  CheckAt(Only(split, "kernel.sched_rt_runtime_us 2000 is larger than the period 1000"), split.path, 5, 3);
}

TEST_CASE("sysctls: apply then revert on a fixture board leaves it byte-identical", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnlySysctls + "sysctls:\n  vm.stat_interval: 10\n  kernel.watchdog_thresh: 20\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(t.Get(kpath::Sysctl("vm.stat_interval")) == "10\n");
  CHECK(t.Get(kpath::Sysctl("kernel.watchdog_thresh")) == "20\n");
  CHECK(applied->report.Count(Outcome::kApplied) == 2);  // nothing else was written
  // Verify: planned again, nothing is pending.
  for (const Change& c : PlanOf(*l.result, root).items) CHECK_FALSE(Pending(c));
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::TreeDiff(kX86, t.dir()).empty());
}

TEST_CASE("sysctls: vm.stat_interval applied, verified and reverted on this machine", "[tune][host]") {
  auto opened = OpenRoot("/");
  REQUIRE(opened);
  SysRoot& live = **opened;
  if (::geteuid() != 0) RTAGENT_SKIP("needs root to write a sysctl");
  if (live.Exists(Journal::Path())) RTAGENT_SKIP("a journal of an earlier apply is on this machine; not touching it");
  const std::string path = kpath::Sysctl("vm.stat_interval");
  auto before = live.ReadTrimmed(path);
  if (!before) RTAGENT_SKIP("this kernel has no vm.stat_interval");
  struct Restore {
    SysRoot& live;
    std::string path, value;
    ~Restore() {
      (void)RevertJournal(live);
      (void)live.Write(path, value);
    }
  } guard{live, path, *before};

  const std::string want = *before == "7" ? "8" : "7";
  TempDir dir;
  auto l = LoadOn(dir, live, kOnlySysctls + "sysctls:\n  vm/stat_interval: " + want + "\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, live);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(*live.ReadTrimmed(path) == want);
  for (const Change& c : PlanOf(*l.result, live).items) CHECK_FALSE(Pending(c));
  auto reverted = RevertJournal(live);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(*live.ReadTrimmed(path) == *before);
}

TEST_CASE("sysctls: a sysctl the target cannot read is an error of the plan at its line, and nothing is planned for it", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnlySysctls + "sysctls:\n  vm.stat_interval: 10\n  kernel.watchdog_thresh: 20\n");
  REQUIRE(l.result);
  root.FailReads(kpath::Sysctl("vm.stat_interval"), EIO);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.findings.size() == 1);
  const Finding& f = plan.findings[0];
  CHECK(f.level == Finding::Level::kError);
  CHECK_THAT(f.message, Catch::StartsWith("vm.stat_interval cannot be read: ") && Catch::Contains("Input/output error"));
  CHECK(f.mark.line == 8);  // the sysctl's own line, after kOnlySysctls' six and "sysctls:"
  REQUIRE(plan.items.size() == 1);  // the other sysctl is still planned
  CHECK(plan.items[0].key == kpath::Sysctl("kernel.watchdog_thresh"));
}
