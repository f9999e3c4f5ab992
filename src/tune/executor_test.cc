#include "tune/executor.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <memory>

#include "base/fault_root.h"
#include "tune/plan_render.h"
#include "tune/refusals.h"

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
  // What the user reads never claims a complete rollback when a value is still changed.
  const std::string text = RenderApplyText(rep, FullPlan{}, /*color=*/false);
  CHECK_THAT(text, Catch::Contains("apply failed and was rolled back, but not completely") &&
                       Catch::Contains("proc/irq/24/smp_affinity_list") && Catch::Contains("rtagent revert"));
  CHECK_THAT(text, !Catch::Contains("every value this run changed was put back"));
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

namespace {

// Counts the durable rewrites (the journal's write, fsync, rename) and checks, at every write
// of a kernel file, that the journal on disk already holds that file's "before": the
// guarantee a crash relies on.
class CountingRoot : public FaultRoot {
 public:
  using FaultRoot::FaultRoot;
  Result<void> WriteDurable(const std::string& path, const std::string& contents) override {
    ++durable;
    return FaultRoot::WriteDurable(path, contents);
  }
  Result<void> Write(const std::string& path, const std::string& value) override {
    Journal on_disk(*this);
    if (!on_disk.Load().ok() || !on_disk.Has("file", path)) unjournaled_writes.push_back(path);
    return FaultRoot::Write(path, value);
  }
  int durable = 0;
  std::vector<std::string> unjournaled_writes;
};

std::string Irq(int n) { return "proc/irq/" + std::to_string(n) + "/smp_affinity_list"; }

struct ManyIrqs {
  TempTree tree;
  explicit ManyIrqs(int n) {
    for (int i = 0; i < n; ++i) tree.Put(Irq(i), "0-3\n");
    tree.Put("proc/sys/kernel/timer_migration", "1\n");
  }
};

std::vector<Change> IrqChanges(int n) {
  std::vector<Change> out;
  for (int i = 0; i < n; ++i) {
    Change c = FileChange(Irq(i), "0-1", Compare::kCpuList);
    c.section = "irqs";
    out.push_back(c);
  }
  return out;
}

// An actuator over files that, like the kernel re-placing tasks when a partition comes or
// goes, changes "victim" by itself whenever "trigger" is written, and says so.
class KernelLikeActuator : public Actuator {
 public:
  explicit KernelLikeActuator(SysRoot& root) : root_(root) {}
  Result<std::string> Read(const std::string& key) override { return root_.ReadTrimmed(key); }
  Result<void> Write(const std::string& key, const std::string& value) override {
    auto w = root_.Write(key, value);
    if (w && key == "trigger") return root_.Write("victim", "re-placed by " + value);
    return w;
  }
  Result<std::vector<SideEffect>> SideEffects(const std::string& key, const std::string&) override {
    if (key == "trigger") return std::vector<SideEffect>{{"file", "victim", "the victim", Compare::kExact}};
    return std::vector<SideEffect>{};
  }
  bool Batchable() const override { return false; }

 private:
  SysRoot& root_;
};

Change TriggerChange(const std::string& after) {
  Change c = FileChange("trigger", after);
  c.section = "partitions";
  c.actuator = "kernel";
  return c;
}

}  // namespace

TEST_CASE("the journal is rewritten once per batch, not once per change", "[tune]") {
  ManyIrqs b(40);
  CountingRoot root(b.tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  std::vector<Change> plan = IrqChanges(40);
  Change tm = FileChange("proc/sys/kernel/timer_migration", "0", Compare::kInteger);
  tm.section = "cores";
  plan.push_back(tm);  // another section: a second batch
  ApplyReport rep = ex.Apply(plan);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 41);
  CHECK(root.durable == 2);
  CHECK(root.unjournaled_writes.empty());
  CHECK(journal.entries().size() == 41);

  Journal reloaded(root);
  REQUIRE(reloaded.Load().ok());
  Executor ex2(root, reloaded);
  CHECK(ex2.Revert().complete);
  for (int i = 0; i < 40; ++i) CHECK(b.tree.Get(Irq(i)) == "0-3\n");
  CHECK(b.tree.Get("proc/sys/kernel/timer_migration") == "1\n");
}

TEST_CASE("a fault in the middle of a batch rolls back exactly what was written", "[tune]") {
  ManyIrqs b(10);
  CountingRoot root(b.tree.dir());
  root.FailWrites(Irq(6), EPERM);
  Journal journal(root);
  Executor ex(root, journal);
  ApplyReport rep = ex.Apply(IrqChanges(10));
  CHECK(rep.rolled_back);
  CHECK(rep.rollback_errors.empty());
  for (int i = 0; i < 6; ++i) CHECK(rep.results[i].outcome == Outcome::kRolledBack);
  CHECK(rep.results[6].outcome == Outcome::kFailed);
  for (int i = 7; i < 10; ++i) CHECK(rep.results[i].outcome == Outcome::kNotRun);
  // Written: 0..5, then put back newest first; 7..9 were journaled but never written.
  std::vector<std::string> paths;
  for (const auto& [path, value] : root.writes()) paths.push_back(path + "=" + value);
  std::vector<std::string> expected;
  for (int i = 0; i < 6; ++i) expected.push_back(Irq(i) + "=0-1");
  for (int i = 5; i >= 0; --i) expected.push_back(Irq(i) + "=0-3");
  CHECK(paths == expected);
  for (int i = 0; i < 10; ++i) CHECK(b.tree.Get(Irq(i)) == "0-3\n");
  CHECK_FALSE(root.Exists(Journal::Path()));
  CHECK(root.durable == 1);  // the batch's one record; the rollback removes the file
}

TEST_CASE("a journal left by a crash in the middle of a batch reverts cleanly", "[tune]") {
  // The batch was journaled whole, then the process died after writing 3 of its 5 values.
  ManyIrqs b(5);
  CountingRoot root(b.tree.dir());
  Journal journal(root);
  std::vector<JournalEntry> batch;
  for (int i = 0; i < 5; ++i) batch.push_back({"irqs", "IRQ", "file", Irq(i), "0-3", "0-1", Compare::kCpuList, "", {}});
  REQUIRE(journal.RecordAll(batch).ok());
  for (int i = 0; i < 3; ++i) b.tree.Put(Irq(i), "0-1\n");

  Journal found(root);
  REQUIRE(found.Load().ok());
  REQUIRE(found.entries().size() == 5);
  Executor ex(root, found);
  RevertReport rev = ex.Revert();
  CHECK(rev.complete);
  CHECK(std::count_if(rev.results.begin(), rev.results.end(), [](const ChangeResult& r) { return r.outcome == Outcome::kApplied; }) == 3);
  CHECK(std::count_if(rev.results.begin(), rev.results.end(), [](const ChangeResult& r) { return r.outcome == Outcome::kAlreadySet; }) == 2);
  for (int i = 0; i < 5; ++i) CHECK(b.tree.Get(Irq(i)) == "0-3\n");
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("refusals in a batch cost two more rewrites, the journal's and the record's, and leave no entry", "[tune]") {
  ManyIrqs b(6);
  CountingRoot root(b.tree.dir());
  root.FailWrites(Irq(2), EIO);
  root.FailWrites(Irq(4), EIO);
  Journal journal(root);
  Executor ex(root, journal);
  std::vector<Change> plan = IrqChanges(6);
  for (auto& c : plan) c.refusals.push_back({EIO, "managed"});
  ApplyReport rep = ex.Apply(plan);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 4);
  CHECK(rep.Count(Outcome::kUnchangeable) == 2);
  CHECK(root.durable == 3);  // the batch's journal, the journal without the refused two, the record
  CHECK(journal.entries().size() == 4);
  CHECK_FALSE(journal.Has("file", Irq(2)));
  CHECK_FALSE(journal.Has("file", Irq(4)));
  Journal reloaded(root);
  REQUIRE(reloaded.Load().ok());
  CHECK(reloaded.entries().size() == 4);
  // The record says what the kernel kept, for verify.
  auto record = RefusalRecord::Load(root);
  REQUIRE(record);
  REQUIRE(record->size() == 2);
  CHECK((*record)[0].key == Irq(2));
  CHECK((*record)[1].key == Irq(4));
  CHECK((*record)[0].kept == "0-3");
  CHECK((*record)[0].wanted == "0-1");
  CHECK((*record)[0].reason == "managed");
  // Revert removes it with the journal.
  Executor back(root, reloaded);
  CHECK(back.Revert().complete);
  CHECK_FALSE(root.Exists(RefusalRecord::Path()));
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("the record of refusals follows each apply: kept while refused, dropped once written or in place",
          "[tune]") {
  ManyIrqs b(4);
  FaultRoot root(b.tree.dir());
  root.FailWrites(Irq(1), EPERM);
  root.FailWrites(Irq(2), EPERM);
  auto refusable = [](std::vector<Change> plan) {
    for (auto& c : plan) c.refusals.push_back({EPERM, "managed"});
    return plan;
  };
  auto keys = [&] {
    auto r = RefusalRecord::Load(root);
    REQUIRE(r);
    std::vector<std::string> out;
    for (const auto& x : *r) out.push_back(x.key);
    return out;
  };
  Journal journal(root);
  Executor ex(root, journal);
  REQUIRE_FALSE(ex.Apply(refusable(IrqChanges(4))).rolled_back);
  CHECK(keys() == std::vector<std::string>{Irq(1), Irq(2)});

  // A run that meets no refusal and finds every value in place writes nothing at all.
  const size_t calls = root.calls().size();
  std::vector<Change> again = refusable(IrqChanges(4));
  again.erase(again.begin() + 1, again.begin() + 3);
  REQUIRE(ex.Apply(again).Count(Outcome::kAlreadySet) == 2);
  CHECK(root.calls().size() == calls);
  CHECK(keys() == std::vector<std::string>{Irq(1), Irq(2)});

  // The kernel lets IRQ 1 move now (a driver reloaded unmanaged): written, out of the record.
  FaultRoot later(b.tree.dir());
  later.FailWrites(Irq(2), EPERM);
  Journal j2(later);
  REQUIRE(j2.Load().ok());
  Executor ex2(later, j2);
  REQUIRE(ex2.Apply(refusable(IrqChanges(4))).Count(Outcome::kApplied) == 1);
  CHECK(keys() == std::vector<std::string>{Irq(2)});

  // A run rolled back leaves the record as it was.
  later.FailWrites(Irq(3), EIO);
  b.tree.Put(Irq(3), "0-3\n");
  ApplyReport failed = ex2.Apply(refusable(IrqChanges(4)));
  REQUIRE(failed.rolled_back);
  CHECK(keys() == std::vector<std::string>{Irq(2)});

  // IRQ 2 found in place (the boot's managed_irq placed it): out of the record, and the file goes.
  b.tree.Put(Irq(2), "0-1\n");
  std::vector<Change> only2 = refusable(IrqChanges(4));
  only2 = {only2[2]};
  REQUIRE(ex2.Apply(only2).Count(Outcome::kAlreadySet) == 1);
  CHECK_FALSE(root.Exists(RefusalRecord::Path()));
}

TEST_CASE("a key written twice in one apply: its last outcome is what the record keeps", "[tune]") {
  ManyIrqs b(2);
  FaultRoot root(b.tree.dir());
  root.FailWrites(Irq(1), EPERM, /*after_ok=*/1);  // the first write goes through, the second is refused
  std::vector<Change> plan = IrqChanges(2);
  Change again = plan[1];
  again.after = "0";
  plan.push_back(again);
  for (auto& c : plan) c.refusals.push_back({EPERM, "managed"});
  Journal journal(root);
  Executor ex(root, journal);
  ApplyReport rep = ex.Apply(plan);
  REQUIRE_FALSE(rep.rolled_back);
  REQUIRE(rep.results[1].outcome == Outcome::kApplied);
  REQUIRE(rep.results[2].outcome == Outcome::kUnchangeable);
  auto record = RefusalRecord::Load(root);
  REQUIRE(record);
  REQUIRE(record->size() == 1);
  CHECK((*record)[0].wanted == "0");
  CHECK((*record)[0].kept == "0-1");  // what the first write left, and the kernel then kept
  CHECK(ex.Refusals().size() == 1);

  // The other way round: refused first, then written. Nothing is left to explain.
  class RefusesOnce : public FaultRoot {
   public:
    using FaultRoot::FaultRoot;
    Result<void> Write(const std::string& path, const std::string& value) override {
      if (path == Irq(0) && !refused_) {
        refused_ = true;
        return MakeError("refused once", EPERM);
      }
      return FaultRoot::Write(path, value);
    }
   private:
    bool refused_ = false;
  };
  ManyIrqs c(1);
  RefusesOnce once(c.tree.dir());
  std::vector<Change> twice = IrqChanges(1);
  twice.push_back(twice[0]);
  twice[1].after = "0";
  for (auto& x : twice) x.refusals.push_back({EPERM, "managed"});
  Journal j2(once);
  Executor ex2(once, j2);
  ApplyReport rep2 = ex2.Apply(twice);
  REQUIRE(rep2.results[0].outcome == Outcome::kUnchangeable);
  REQUIRE(rep2.results[1].outcome == Outcome::kApplied);
  CHECK(ex2.Refusals().empty());
  CHECK_FALSE(once.Exists(RefusalRecord::Path()));
}

TEST_CASE("a record of refusals that cannot be read or stored is a warning, and apply stands", "[tune]") {
  ManyIrqs b(3);
  FaultRoot root(b.tree.dir());
  root.FailWrites(Irq(1), EPERM);
  std::vector<Change> plan = IrqChanges(3);
  for (auto& c : plan) c.refusals.push_back({EPERM, "managed"});

  SECTION("corrupt: replaced by this run's refusals") {
    b.tree.Put(RefusalRecord::Path(), "{\"refused\": [");
    Journal journal(root);
    Executor ex(root, journal);
    ApplyReport rep = ex.Apply(plan);
    CHECK_FALSE(rep.rolled_back);
    CHECK(rep.Count(Outcome::kApplied) == 2);
    REQUIRE(rep.warnings.size() == 1);
    CHECK_THAT(rep.warnings[0], Catch::StartsWith("the earlier record of the kernel's refusals is replaced: ") &&
                                    Catch::Contains("corrupt or truncated"));
    auto record = RefusalRecord::Load(root);
    REQUIRE(record);
    REQUIRE(record->size() == 1);
    CHECK((*record)[0].key == Irq(1));
  }
  SECTION("a directory in its place: not stored, and said") {
    b.tree.Put(RefusalRecord::Path() + "/x", "");
    Journal journal(root);
    Executor ex(root, journal);
    ApplyReport rep = ex.Apply(plan);
    CHECK_FALSE(rep.rolled_back);
    CHECK(rep.Count(Outcome::kApplied) == 2);
    CHECK(rep.Count(Outcome::kUnchangeable) == 1);
    REQUIRE(rep.warnings.size() == 2);
    CHECK_THAT(rep.warnings[1], Catch::StartsWith("the kernel's refusals could not be recorded for `rtagent verify` (") &&
                                    Catch::Contains("verify reports the unchangeable items as settings that differ"));
    // The values are journaled as ever: revert puts them back, but cannot remove the record
    // (a directory in its place) and says the revert did not finish.
    Journal reloaded(root);
    REQUIRE(reloaded.Load().ok());
    Executor back(root, reloaded);
    RevertReport rev = back.Revert();
    CHECK_FALSE(rev.complete);
    for (int i = 0; i < 3; ++i) CHECK(b.tree.Get(Irq(i)) == "0-3\n");
  }
}

TEST_CASE("an actuator that is not batchable gets a batch of its own, and a repeated key a new batch", "[tune]") {
  ManyIrqs b(2);
  b.tree.Put("trigger", "member\n");
  b.tree.Put("victim", "0-1\n");
  CountingRoot root(b.tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  ex.AddActuator("kernel", std::make_unique<KernelLikeActuator>(root));
  std::vector<Change> plan = IrqChanges(2);
  for (auto& c : plan) c.section = "partitions";
  plan.insert(plan.begin() + 1, TriggerChange("isolated"));
  Change again = FileChange(Irq(1), "0", Compare::kCpuList);
  again.section = "partitions";
  plan.push_back(again);  // the same key as the item before: read only after it is written
  ApplyReport rep = ex.Apply(plan);
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kApplied) == 4);
  CHECK(root.durable == 3);  // IRQ 0 | trigger (with its side effect) | IRQ 1 (IRQ 1 again: already journaled)
  CHECK(b.tree.Get(Irq(1)) == "0\n");
  REQUIRE(journal.entries().size() == 4);
  CHECK(journal.entries()[1].key == "victim");
  CHECK(journal.entries()[1].side_effect_of == "trigger");
  CHECK(journal.entries()[3].before == "0-3");  // the first "before" of IRQ 1 is kept
}

TEST_CASE("a value the kernel changes as a side effect is journaled first and put back by revert", "[tune]") {
  TempTree tree;
  tree.Put("trigger", "member\n");
  tree.Put("victim", "0-1\n");
  tree.Put("after", "1\n");
  CountingRoot root(tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  ex.AddActuator("kernel", std::make_unique<KernelLikeActuator>(root));
  Change later = FileChange("after", "0");
  later.section = "irqs";

  SECTION("revert undoes the item, then restores the side effect") {
    ApplyReport rep = ex.Apply({TriggerChange("isolated"), later});
    CHECK_FALSE(rep.rolled_back);
    CHECK(tree.Get("victim") == "re-placed by isolated\n");
    REQUIRE(journal.entries().size() == 3);
    CHECK(journal.entries()[0].key == "victim");  // older than the item: reverted after it
    CHECK(journal.entries()[0].before == "0-1");
    CHECK(journal.entries()[1].key == "trigger");

    Journal reloaded(root);
    REQUIRE(reloaded.Load().ok());
    CHECK(reloaded.entries()[0].side_effect_of == "trigger");
    Executor ex2(root, reloaded);
    ex2.AddActuator("kernel", std::make_unique<KernelLikeActuator>(root));
    RevertReport rev = ex2.Revert();
    CHECK(rev.complete);
    // Writing "member" back re-placed the victim once more; the side effect entry fixed it.
    CHECK(tree.Get("trigger") == "member\n");
    CHECK(tree.Get("victim") == "0-1\n");
    CHECK(tree.Get("after") == "1\n");
    REQUIRE(rev.results.size() == 3);
    CHECK(rev.results[2].change.side_effect_of == "trigger");
    CHECK(rev.results[2].outcome == Outcome::kApplied);
  }

  SECTION("a later failure rolls back the item and the side effect") {
    root.FailWrites("after", EACCES);
    ApplyReport rep = ex.Apply({TriggerChange("isolated"), later});
    CHECK(rep.rolled_back);
    CHECK(rep.rollback_errors.empty());
    CHECK(rep.results[0].outcome == Outcome::kRolledBack);
    CHECK(tree.Get("trigger") == "member\n");
    CHECK(tree.Get("victim") == "0-1\n");
    CHECK_FALSE(root.Exists(Journal::Path()));
  }

  SECTION("a side effect that cannot be read stops the apply before anything is written") {
    root.FailReads("victim", EACCES);
    ApplyReport rep = ex.Apply({TriggerChange("isolated"), later});
    CHECK(rep.rolled_back);
    CHECK(rep.results[0].outcome == Outcome::kFailed);
    CHECK_THAT(rep.results[0].detail, Catch::Contains("cannot read the victim"));
    CHECK(tree.Get("trigger") == "member\n");
    CHECK(root.writes().empty());
  }

}

TEST_CASE("a side effect that has gone is not kept", "[tune]") {
  TempTree tree;
  tree.Put("trigger", "member\n");
  tree.Put("victim", "0-1\n");
  FaultRoot root(tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  class Ghostly : public KernelLikeActuator {
   public:
    using KernelLikeActuator::KernelLikeActuator;
    Result<std::vector<SideEffect>> SideEffects(const std::string&, const std::string&) override {
      return std::vector<SideEffect>{{"file", "ghost", "a task that exited", Compare::kCpuList}};  // no such file
    }
  };
  ex.AddActuator("kernel", std::make_unique<Ghostly>(root));
  ApplyReport rep = ex.Apply({TriggerChange("isolated")});
  INFO(rep.results[0].detail);
  CHECK_FALSE(rep.rolled_back);
  REQUIRE(journal.entries().size() == 1);
  CHECK(journal.entries()[0].key == "trigger");
}

TEST_CASE("side effects of an actuator that is not registered fail the item", "[tune]") {
  TempTree tree;
  tree.Put("trigger", "member\n");
  FaultRoot root(tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  class Orphan : public KernelLikeActuator {
   public:
    using KernelLikeActuator::KernelLikeActuator;
    Result<std::vector<SideEffect>> SideEffects(const std::string&, const std::string&) override {
      return std::vector<SideEffect>{{"nowhere", "x", "a thing", Compare::kExact}};
    }
  };
  ex.AddActuator("kernel", std::make_unique<Orphan>(root));
  ApplyReport rep = ex.Apply({TriggerChange("isolated")});
  CHECK(rep.results[0].outcome == Outcome::kFailed);
  CHECK_THAT(rep.results[0].detail, Catch::Contains("no actuator \"nowhere\""));
  CHECK(root.writes().empty());
}

TEST_CASE("side effects that cannot be listed fail the item", "[tune]") {
  TempTree tree;
  tree.Put("trigger", "member\n");
  FaultRoot root(tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  class Blind : public KernelLikeActuator {
   public:
    using KernelLikeActuator::KernelLikeActuator;
    Result<std::vector<SideEffect>> SideEffects(const std::string&, const std::string&) override {
      return MakeError("cannot list the tasks", EACCES);
    }
  };
  ex.AddActuator("kernel", std::make_unique<Blind>(root));
  ApplyReport rep = ex.Apply({TriggerChange("isolated")});
  CHECK(rep.results[0].outcome == Outcome::kFailed);
  CHECK_THAT(rep.results[0].detail, Catch::Contains("cannot list the tasks"));
  CHECK(root.writes().empty());
}

TEST_CASE("a change that has no actuator or cannot be read again fails, rolling back the batches before it",
          "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  Change second = FileChange("proc/sys/kernel/timer_migration", "0", Compare::kInteger);
  second.section = "memory";  // a batch of its own, after the IRQ's
  std::string detail;
  SECTION("no actuator") {
    second.actuator = "nowhere";
    detail = "no actuator \"nowhere\" for proc/sys/kernel/timer_migration";
  }
  SECTION("unreadable") {
    root.FailReads("proc/sys/kernel/timer_migration", EACCES);
    detail = "cannot read " + b.tree.dir() + "/proc/sys/kernel/timer_migration: Permission denied";
  }
  ApplyReport rep = ex.Apply({FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList), second,
                              FileChange("proc/irq/25/smp_affinity_list", "0-1", Compare::kCpuList)});
  CHECK(rep.rolled_back);
  CHECK(rep.results[0].outcome == Outcome::kRolledBack);
  CHECK(rep.results[1].outcome == Outcome::kFailed);
  CHECK(rep.results[1].detail == detail);
  CHECK(rep.results[2].outcome == Outcome::kNotRun);
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-3\n");
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("a stop signal between batches rolls the run back, and one before the first batch writes nothing", "[tune]") {
  Board b;
  FaultRoot root(b.tree.dir());
  Journal journal(root);
  Executor ex(root, journal);
  std::atomic<bool> stop{false};
  // Writes like the file actuator, then raises the flag, as a Ctrl-C during this write would.
  class Interrupted : public Actuator {
   public:
    Interrupted(SysRoot& root, std::atomic<bool>& flag) : root_(root), flag_(flag) {}
    Result<std::string> Read(const std::string& key) override { return root_.ReadTrimmed(key); }
    Result<void> Write(const std::string& key, const std::string& value) override {
      auto w = root_.Write(key, value);
      flag_.store(true);
      return w;
    }

   private:
    SysRoot& root_;
    std::atomic<bool>& flag_;
  };
  ex.AddActuator("interrupted", std::make_unique<Interrupted>(root, stop));
  ex.StopWhen(&stop);
  Change irq = FileChange("proc/irq/24/smp_affinity_list", "0-1", Compare::kCpuList);
  irq.section = "irqs";
  Change timer = FileChange("proc/sys/kernel/timer_migration", "0", Compare::kInteger);
  timer.section = "cores";
  timer.actuator = "interrupted";
  Change thp = FileChange("sys/kernel/mm/transparent_hugepage/defrag", "never", Compare::kChoice);
  thp.section = "memory";
  ApplyReport rep = ex.Apply({irq, timer, thp});
  CHECK(rep.rolled_back);
  CHECK(rep.stopped);
  CHECK(rep.rollback_errors.empty());
  CHECK(rep.results[0].outcome == Outcome::kRolledBack);
  CHECK(rep.results[1].outcome == Outcome::kRolledBack);
  CHECK(rep.results[2].outcome == Outcome::kFailed);
  CHECK_THAT(rep.results[2].detail, Catch::Contains("stopped by a signal before this change was written"));
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-3\n");
  CHECK(b.tree.Get("proc/sys/kernel/timer_migration") == "1\n");
  CHECK(b.tree.Get("sys/kernel/mm/transparent_hugepage/defrag").find("[madvise]") != std::string::npos);
  CHECK_FALSE(root.Exists(Journal::Path()));
  FullPlan none;
  CHECK_THAT(RenderApplyText(rep, none, false), Catch::Contains("apply was stopped by a signal and rolled back"));

  // The flag set before the run (a Ctrl-C while it planned): nothing is written at all.
  ApplyReport early = ex.Apply({irq});
  CHECK(early.rolled_back);
  CHECK(early.stopped);
  CHECK(early.results[0].outcome == Outcome::kFailed);
  CHECK(b.tree.Get("proc/irq/24/smp_affinity_list") == "0-3\n");
  CHECK_FALSE(root.Exists(Journal::Path()));
}
