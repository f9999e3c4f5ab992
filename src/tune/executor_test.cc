#include "tune/executor.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"

using namespace rtagent;

namespace {

Change FileChange(const std::string& key, const std::string& after, Compare how = Compare::kExact) {
  Change c;
  c.section = "test";
  c.what = key;
  c.key = key;
  c.after = after;
  c.compare = how;
  return c;
}

struct Board {
  TempTree tree;
  Board() {
    tree.Put("proc/irq/0/smp_affinity_list", "0-3\n");
    tree.Put("proc/irq/24/smp_affinity_list", "0-3\n");
    tree.Put("proc/irq/25/smp_affinity_list", "0-3\n");
    tree.Put("sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n");
    tree.Put("proc/sys/kernel/timer_migration", "1\n");
  }
};

}  // namespace

TEST_CASE("compare by meaning", "[tune]") {
  CHECK(SameValue(Compare::kCpuList, "0-3", "0,1,2,3"));
  CHECK_FALSE(SameValue(Compare::kCpuList, "0-3", "0-2"));
  CHECK(SameValue(Compare::kCpuMask, "0000000f", "f"));
  CHECK(SameValue(Compare::kCpuMask, "00000000,00000003", "3"));
  CHECK(SameValue(Compare::kChoice, "always [madvise] never", "madvise"));
  CHECK_FALSE(SameValue(Compare::kChoice, "[always] madvise never", "madvise"));
  CHECK(SameValue(Compare::kInteger, "010\n", "10"));
  CHECK(SameValue(Compare::kWords, "a  b\n", "a b"));
  CHECK_FALSE(SameValue(Compare::kExact, "a", "b"));
}

TEST_CASE("apply journals every before value and revert puts them back", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  Journal journal(root);
  REQUIRE(journal.Load().ok());
  Executor ex(root, journal);
  std::vector<Change> plan = {FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList),
                              FileChange("proc/sys/kernel/timer_migration", "0", Compare::kInteger),
                              FileChange("sys/kernel/mm/transparent_hugepage/defrag", "never", Compare::kChoice)};
  ApplyReport rep = ex.Apply(plan);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 3);
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-1\n");
  CHECK(b.tree.Get("proc/sys/kernel/timer_migration") == "0\n");

  // The journal on disk holds the values found before, for a later process to revert from.
  Journal reloaded(root);
  REQUIRE(reloaded.Load().ok());
  REQUIRE(reloaded.entries().size() == 3);
  CHECK(reloaded.entries()[0].before == "0-3");
  CHECK(reloaded.entries()[2].before == "madvise");  // the choice that was in force, writable again

  // A second apply has nothing to do.
  ApplyReport again = ex.Apply(plan);
  CHECK(again.Count(Outcome::kAlreadySet) == 3);
  CHECK(again.Count(Outcome::kApplied) == 0);

  Executor ex2(root, reloaded);
  RevertReport rev = ex2.Revert();
  CHECK(rev.complete);
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-3\n");
  CHECK(b.tree.Get("proc/sys/kernel/timer_migration") == "1\n");
  CHECK(b.tree.Get("sys/kernel/mm/transparent_hugepage/defrag") == "always defer defer+madvise [madvise] never\n");  // byte-identical
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("a known refusal is an outcome, not a failure", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  root.FailWrites("proc/irq/0/smp_affinity_list", EIO);
  Journal journal(root);
  Executor ex(root, journal);
  Change irq0 = FileChange("proc/irq/0/smp_affinity_list", "0-1", Compare::kCpuList);
  irq0.refusals.push_back({EIO, "the kernel keeps this IRQ where it is (per-CPU, managed or the timer)"});
  ApplyReport rep = ex.Apply({irq0, FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList)});
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.results[0].outcome == Outcome::kUnchangeable);
  CHECK_THAT(rep.results[0].detail, Catch::Contains("managed"));
  CHECK(rep.results[1].outcome == Outcome::kApplied);
  REQUIRE(journal.entries().size() == 1);  // nothing to revert for the refused IRQ
  CHECK(journal.entries()[0].key == "proc/irq/24/smp_affinity_list");
}

TEST_CASE("a failure in the middle rolls back what this run did", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  root.FailWrites("proc/sys/kernel/timer_migration", EPERM);
  Journal journal(root);
  Executor ex(root, journal);
  ApplyReport rep = ex.Apply({FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList),
                              FileChange("proc/irq/25/smp_affinity_list", "0-1", Compare::kCpuList),
                              FileChange("proc/sys/kernel/timer_migration", "0", Compare::kInteger),
                              FileChange("sys/kernel/mm/transparent_hugepage/defrag", "never", Compare::kChoice)});
  CHECK(rep.rolled_back);
  CHECK(rep.rollback_errors.empty());
  CHECK(rep.results[0].outcome == Outcome::kRolledBack);
  CHECK(rep.results[1].outcome == Outcome::kRolledBack);
  CHECK(rep.results[2].outcome == Outcome::kFailed);
  CHECK_THAT(rep.results[2].detail, Catch::Contains("timer_migration"));
  CHECK(rep.results[3].outcome == Outcome::kNotRun);
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-3\n");
  CHECK(b.tree.Get("proc/irq/25/smp_affinity_list") == "0-3\n");
  CHECK(b.tree.Get("sys/kernel/mm/transparent_hugepage/defrag").find("[madvise]") != std::string::npos);
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("a rollback that itself fails keeps the journal for revert", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  root.FailWrites("proc/irq/24/smp_affinity_list", EBUSY, 1);  // the first write works, the rollback does not
  root.FailWrites("proc/sys/kernel/timer_migration", EPERM);
  Journal journal(root);
  Executor ex(root, journal);
  ApplyReport rep = ex.Apply({FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList),
                              FileChange("proc/sys/kernel/timer_migration", "0", Compare::kInteger)});
  CHECK(rep.rolled_back);
  CHECK_THAT(rep.rollback_errors, Catch::Contains("proc/irq/24/smp_affinity_list"));
  Journal reloaded(root);
  REQUIRE(reloaded.Load().ok());
  CHECK(reloaded.Has("file", "proc/irq/24/smp_affinity_list"));
}

TEST_CASE("the journal refuses to be written or read when it cannot be trusted", "[tune]") {
  Board b;
  b.tree.Put("run", "a file where the run directory should be");
  FaultRoot root(b.tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  ApplyReport rep = ex.Apply({FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList)});
  CHECK(rep.rolled_back);
  CHECK(rep.results[0].outcome == Outcome::kFailed);
  CHECK_THAT(rep.results[0].detail, Catch::Contains("cannot journal"));
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-3\n");  // never written without a journal

  Board c;
  c.tree.Put("run/rtagent/journal.json", "{ not json");
  FaultRoot root2(c.tree.dir());
  Journal corrupt(root2);
  auto r = corrupt.Load();
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("journal is corrupt"));
}

TEST_CASE("boot-time changes are reported, never written", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  Change boot = FileChange("proc/cmdline", "isolcpus=2-3");
  boot.reboot = true;
  ApplyReport rep = ex.Apply({boot});
  CHECK(rep.results[0].outcome == Outcome::kRebootRequired);
  CHECK(root.writes().empty());
}

TEST_CASE("revert skips what is already back and what has gone", "[tune]") {
  Board b;
  b.tree.Put("run/rtagent/journal.json", R"({"version":1,"entries":[
    {"section":"irqs","what":"IRQ 24","actuator":"file","key":"proc/irq/24/smp_affinity_list","before":"0-3","after":"0-1","compare":"cpulist"},
    {"section":"irqs","what":"IRQ 99","actuator":"file","key":"proc/irq/99/smp_affinity_list","before":"0-3","after":"0-1","compare":"cpulist"}]})");
  FaultRoot root(b.tree.dir());
  Journal journal(root);
  REQUIRE(journal.Load().ok());
  Executor ex(root, journal);
  RevertReport rev = ex.Revert();
  CHECK(rev.complete);
  REQUIRE(rev.results.size() == 2);
  CHECK(rev.results[0].detail == "gone");
  CHECK(rev.results[1].outcome == Outcome::kAlreadySet);
  CHECK(root.writes().empty());
}

TEST_CASE("a known refusal at re-read time is an outcome too (a thread that exited)", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  root.FailReads("proc/irq/25/smp_affinity_list", ESRCH);
  Journal journal(root);
  Executor ex(root, journal);
  Change gone = FileChange("proc/irq/25/smp_affinity_list", "0-1", Compare::kCpuList);
  gone.refusals.push_back({ESRCH, "the thread exited"});
  ApplyReport rep = ex.Apply({gone, FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList)});
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.results[0].outcome == Outcome::kUnchangeable);
  CHECK(rep.results[0].detail == "the thread exited");
  CHECK(rep.results[1].outcome == Outcome::kApplied);
}
