// The journal's two files: runtime values in /run (gone at reboot with the values), boot loader
// files in /var/lib/rtagent (they outlive the reboot they are written for), and the hold
// daemon's view, which is the runtime one only.
#include "tune/journal.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/fault_root.h"
#include "base/trust_test_support.h"

using namespace rtagent;

namespace {

JournalEntry Entry(const std::string& actuator, const std::string& key, const std::string& before) {
  return {"cores", key, actuator, key, before, "new", Compare::kExact, "", {}};
}

// The error loading the journal under `t` ends in; a refused journal keeps nothing.
Error LoadError(const TempTree& t) {
  FaultRoot root(t.dir());
  Journal j(root);
  auto r = j.Load();
  REQUIRE_FALSE(r.ok());
  CHECK(j.Empty());
  return r.error();
}

}  // namespace

TEST_CASE("boot file entries are journaled where a reboot keeps them, with what their command ran", "[tune][boot]") {
  TempTree t;
  FaultRoot root(t.dir());
  Journal j(root);
  REQUIRE(j.Load().ok());
  REQUIRE(j.RecordAll({Entry("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg", ""),
                       Entry("file", "proc/irq/5/smp_affinity_list", "0-3")})
              .ok());
  CommandRun run;
  run.argv = {"update-grub"};
  run.exit_status = 0;
  run.output = "done\n";
  REQUIRE(j.AddRuns("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg", {run}).ok());
  CHECK_FALSE(j.AddRuns("file", "nowhere", {run}).ok());
  CHECK_THAT(t.Get(Journal::BootPath()), Catch::Contains("90-rtagent.cfg") && Catch::Contains("\"update-grub\""));
  CHECK(t.Get(Journal::BootPath()).find("smp_affinity") == std::string::npos);
  CHECK_THAT(t.Get(Journal::Path()), Catch::Contains("smp_affinity"));
  CHECK(t.Get(Journal::Path()).find("bootfile") == std::string::npos);

  // The reboot: /run is empty again. The boot file's entry, and its run, are still there.
  REQUIRE(root.Remove(Journal::Path()).ok());
  Journal after(root);
  REQUIRE(after.Load().ok());
  REQUIRE(after.entries().size() == 1);
  CHECK(after.Has("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg"));
  REQUIRE(after.entries()[0].runs.size() == 1);
  CHECK(after.entries()[0].runs[0].output == "done\n");
  REQUIRE(after.Clear().ok());
  CHECK_FALSE(root.Exists(Journal::BootPath()));
  CHECK_FALSE(root.Exists(Journal::Path()));
}

TEST_CASE("the hold daemon's journal is the runtime one: boot entries are neither read, written nor cleared",
          "[tune][boot]") {
  TempTree t;
  FaultRoot root(t.dir());
  Journal all(root);
  REQUIRE(all.Load().ok());
  REQUIRE(all.RecordAll({Entry("bootfile", "boot/extlinux/extlinux.conf", "LABEL a\n")}).ok());
  const std::string boot = t.Get(Journal::BootPath());

  Journal held(root, Journal::Scope::kRuntime);
  REQUIRE(held.Load().ok());
  CHECK(held.Empty());
  REQUIRE(held.RecordAll({Entry("file", "proc/irq/5/smp_affinity_list", "0-3")}).ok());
  REQUIRE(held.Clear().ok());
  CHECK(t.Get(Journal::BootPath()) == boot);

  // A runtime journal an older rtagent wrote with a boot entry in it: apply moves the entry to
  // the boot journal; the daemon leaves it where it is.
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": [{\"actuator\": \"bootfile\", \"key\": \"boot/cmdline.txt\", "
                         "\"before\": \"a\\n\", \"after\": \"b\\n\", \"compare\": \"exact\"}]}\n");
  Journal held2(root, Journal::Scope::kRuntime);
  REQUIRE(held2.Load().ok());
  CHECK(held2.Empty());
  REQUIRE(held2.RecordAll({Entry("file", "proc/irq/5/smp_affinity_list", "0-3")}).ok());
  CHECK_THAT(t.Get(Journal::Path()), Catch::Contains("boot/cmdline.txt") && Catch::Contains("smp_affinity"));
  REQUIRE(held2.Clear().ok());
  CHECK_THAT(t.Get(Journal::Path()), Catch::Contains("boot/cmdline.txt"));
  Journal apply(root);
  REQUIRE(apply.Load().ok());
  CHECK(apply.Has("bootfile", "boot/cmdline.txt"));
  CHECK(apply.Has("bootfile", "boot/extlinux/extlinux.conf"));
  REQUIRE(apply.RecordAll({Entry("file", "proc/irq/6/smp_affinity_list", "0-3")}).ok());
  CHECK_THAT(t.Get(Journal::BootPath()), Catch::Contains("boot/cmdline.txt"));
  CHECK(t.Get(Journal::Path()).find("boot/cmdline.txt") == std::string::npos);
}

TEST_CASE("fuzz journal: an entry in the other journal file than its kind's is held where the next load reads it back", "[tune][boot]") {
  // fuzz/journal_fuzz.cc: the boot entry an older rtagent left in the runtime journal was held
  // after the runtime entries before it, and stored in the boot journal, so the journal loaded
  // again listed the entries in another order than the one stored (revert walks them in order).
  TempTree t;
  FaultRoot root(t.dir());
  t.Put(Journal::BootPath(), "{\"version\": 1, \"entries\": [{\"actuator\": \"bootfile+update-grub\", \"key\": "
                             "\"etc/default/grub.d/90-rtagent.cfg\", \"before\": \"\", \"after\": \"x\\n\", \"compare\": \"exact\"}]}\n");
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": ["
                         "{\"actuator\": \"file\", \"key\": \"proc/irq/24/smp_affinity_list\", \"before\": \"0-3\", "
                         "\"after\": \"0-1\", \"compare\": \"cpulist\"}, "
                         "{\"actuator\": \"bootfile\", \"key\": \"boot/cmdline.txt\", \"before\": \"a\\n\", "
                         "\"after\": \"b\\n\", \"compare\": \"exact\"}]}\n");
  auto keys = [](const Journal& j) {
    std::vector<std::string> out;
    for (const auto& e : j.entries()) out.push_back(e.key);
    return out;
  };
  Journal first(root);
  REQUIRE(first.Load().ok());
  const std::vector<std::string> boot_first = {"etc/default/grub.d/90-rtagent.cfg", "boot/cmdline.txt",
                                               "proc/irq/24/smp_affinity_list"};
  CHECK(keys(first) == boot_first);
  REQUIRE(first.RecordAll({Entry("file", "proc/sys/kernel/x", "1")}).ok());
  Journal again(root);
  REQUIRE(again.Load().ok());
  CHECK(keys(again) == keys(first));
  CHECK(keys(again).back() == "proc/sys/kernel/x");

  // The other way round (a damaged boot journal holding an entry that is not a boot file's):
  // held with the runtime entries, where Store puts it.
  t.Put(Journal::BootPath(), "{\"version\": 1, \"entries\": [{\"actuator\": \"file\", \"key\": \"proc/sys/kernel/y\", "
                             "\"before\": \"0\", \"after\": \"1\", \"compare\": \"exact\"}, {\"actuator\": \"bootfile\", "
                             "\"key\": \"boot/cmdline.txt\", \"before\": \"a\\n\", \"after\": \"b\\n\", \"compare\": \"exact\"}]}\n");
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": [{\"actuator\": \"file\", \"key\": \"proc/irq/24/smp_affinity_list\", "
                         "\"before\": \"0-3\", \"after\": \"0-1\", \"compare\": \"cpulist\"}]}\n");
  Journal damaged(root);
  REQUIRE(damaged.Load().ok());
  CHECK(keys(damaged) == std::vector<std::string>{"boot/cmdline.txt", "proc/sys/kernel/y", "proc/irq/24/smp_affinity_list"});
  REQUIRE(damaged.RecordAll({Entry("file", "proc/sys/kernel/z", "1")}).ok());
  Journal reread(root);
  REQUIRE(reread.Load().ok());
  CHECK(keys(reread) == keys(damaged));
}

TEST_CASE("a corrupt boot journal stops apply and revert with its name", "[tune][boot]") {
  TempTree t;
  t.Put(Journal::BootPath(), "{not json");
  FaultRoot root(t.dir());
  Journal j(root);
  auto r = j.Load();
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("var/lib/rtagent/boot-journal.json: the journal is corrupt"));
  // The daemon does not read it.
  Journal held(root, Journal::Scope::kRuntime);
  CHECK(held.Load().ok());
}

// Issue 17: a journal that is truncated, corrupt, from another rtagent or another machine is
// refused with the file named and a way out, and nothing of it is used.
TEST_CASE("journal: a truncated journal is refused naming the file and a way out, nothing of it kept", "[tune]") {
  TempTree t;
  FaultRoot root(t.dir());
  {
    Journal j(root);
    REQUIRE(j.Load().ok());
    REQUIRE(j.RecordAll({Entry("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg", "")}).ok());
  }
  REQUIRE_FALSE(t.Get(Journal::BootPath()).empty());
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": [{\"key\": \"proc/irq/5/smp_affinity_list\", \"bef");
  Journal j(root);
  auto r = j.Load();
  REQUIRE_FALSE(r.ok());
  const std::string file = t.dir() + "/" + Journal::Path();
  CHECK(r.error().message == file + ": the journal is corrupt or truncated (not the JSON rtagent writes); nothing was "
                                    "changed (look at what it lists, put back by hand what needs it, then remove it: rm " +
                                    file + ")");
  CHECK(j.Empty());  // the boot journal, read first and valid, is not half-used either
}

TEST_CASE("journal: another rtagent's format is refused, naming both formats", "[tune]") {
  TempTree t;
  t.Put(Journal::Path(), "{\"version\": 2, \"entries\": []}\n");
  CHECK_THAT(LoadError(t).message, Catch::Contains(Journal::Path() + ": the journal is in format 2, written by another "
                                                                  "rtagent version; this one reads format 1") &&
                                    Catch::Contains("revert with the rtagent that wrote it"));
  t.Put(Journal::Path(), "{\"entries\": []}\n");
  CHECK_THAT(LoadError(t).message, Catch::Contains("in format none"));
}

TEST_CASE("journal: it records the machine and refuses another machine's", "[tune]") {
  TempTree t;
  t.Put("etc/machine-id", "0123456789abcdef0123456789abcdef\n");
  FaultRoot root(t.dir());
  {
    Journal j(root);
    REQUIRE(j.Load().ok());
    REQUIRE(j.Record(Entry("file", "proc/irq/5/smp_affinity_list", "0-3")).ok());
  }
  CHECK_THAT(t.Get(Journal::Path()), Catch::Contains("\"machine\": \"0123456789abcdef0123456789abcdef\""));
  Journal same(root);
  REQUIRE(same.Load().ok());
  CHECK(same.entries().size() == 1);
  // The disk image copied to another board.
  t.Put("etc/machine-id", "fedcba9876543210fedcba9876543210\n");
  Journal other(root);
  auto r = other.Load();
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message,
             Catch::Contains("the journal was written on another machine (machine-id 0123456789abcdef0123456789abcdef; "
                             "this one is fedcba9876543210fedcba9876543210)") &&
                 Catch::Contains("rm " + t.dir() + "/" + Journal::Path()));
  CHECK(other.Empty());
}

TEST_CASE("journal: an entry with a field of the wrong type is refused, not half-read", "[tune]") {
  TempTree t;
  t.Put(Journal::Path(),
        "{\"version\": 1, \"entries\": [{\"key\": \"proc/irq/5/smp_affinity_list\", \"before\": \"0-3\"},"
        " {\"key\": \"proc/irq/6/smp_affinity_list\", \"before\": 7}]}\n");
  CHECK_THAT(LoadError(t).message, Catch::Contains("a field of the wrong type: {\"before\":7"));
}

TEST_CASE("fuzz journal: a command run with a field of the wrong type is refused, not thrown", "[tune]") {
  // fuzz/journal_fuzz.cc: nlohmann's value() threw out of Load (rtagent ended on an uncaught
  // exception) for a run whose program, output, note, exit_status or skipped had another type.
  for (const std::string run : {"{\"program\": 1}", "{\"output\": []}", "{\"exit_status\": \"0\"}",
                                "{\"skipped\": 1}", "{\"argv\": [\"update-grub\", 2]}", "{\"exit_status\": 99999}",
                                "7"}) {
    TempTree t;
    t.Put(Journal::BootPath(), "{\"version\": 1, \"entries\": [{\"actuator\": \"bootfile+update-grub\", \"key\": "
                               "\"etc/default/grub.d/90-rtagent.cfg\", \"before\": \"\", \"runs\": [" + run + "]}]}\n");
    CAPTURE(run);
    CHECK_THAT(LoadError(t).message, Catch::Contains("a field of the wrong type") && Catch::Contains(Journal::BootPath()));
  }
}

TEST_CASE("fuzz bootfile: values that are not UTF-8 are journaled and read back byte for byte", "[tune]") {
  // fuzz/bootfile_fuzz.cc: a boot file holding a byte that is not UTF-8 (a Latin-1 comment in
  // /etc/default/grub) made the journal's dump() throw, so apply ended on an uncaught exception.
  // Such values are kept as hex; what a command printed, cut inside a character, is shown
  // with U+FFFD.
  TempTree t;
  FaultRoot root(t.dir());
  const std::string grub = "# r\xe9seau\nGRUB_CMDLINE_LINUX=\"quiet\"\n";
  const std::string comm = "robot-\xe2\x82";  // a thread name the kernel cut inside a character
  {
    Journal j(root);
    REQUIRE(j.Load().ok());
    REQUIRE(j.Record(Entry("bootfile+grubby", "etc/default/grub", grub)).ok());
    JournalEntry thread = Entry("sched", "pid:7:tid:7", "SCHED_OTHER 0");
    thread.what = "thread " + comm;
    REQUIRE(j.Record(thread).ok());
    CommandRun run;
    run.argv = {"grubby", "--update-kernel=DEFAULT"};
    run.exit_status = 0;
    run.output = "updated \xe2\x82";
    REQUIRE(j.AddRuns("bootfile+grubby", "etc/default/grub", {run}).ok());
  }
  CHECK_THAT(t.Get(Journal::BootPath()), Catch::Contains("\"hex\""));
  Journal again(root);
  REQUIRE(again.Load().ok());
  REQUIRE(again.entries().size() == 2);
  CHECK(again.entries()[0].before == grub);
  CHECK(again.entries()[1].what == "thread " + comm);
  REQUIRE(again.entries()[0].runs.size() == 1);
  CHECK_THAT(again.entries()[0].runs[0].output, Catch::StartsWith("updated \xef\xbf\xbd"));
}

TEST_CASE("fuzz journal: a hex value that is not hex is refused", "[tune]") {
  for (const std::string before : {"{\"hex\": \"6\"}", "{\"hex\": \"zz\"}", "{\"hex\": \"41\", \"x\": 1}", "{\"hex\": 4}"}) {
    TempTree t;
    t.Put(Journal::Path(), "{\"version\": 1, \"entries\": [{\"key\": \"proc/sys/x\", \"before\": " + before + "}]}\n");
    CAPTURE(before);
    CHECK_THAT(LoadError(t).message, Catch::Contains("a field of the wrong type"));
  }
  TempTree t;
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": [{\"key\": \"proc/sys/x\", \"before\": {\"hex\": \"41e9\"}}]}\n");
  FaultRoot root(t.dir());
  Journal j(root);
  REQUIRE(j.Load().ok());
  REQUIRE(j.entries().size() == 1);
  CHECK(j.entries()[0].before == "A\xe9");
}

TEST_CASE("journal: its files are 0644 and its directories 0755 whatever the umask", "[tune]") {
  TempTree t;
  FaultRoot root(t.dir());
  const mode_t old = ::umask(0);
  Journal j(root);
  auto recorded = j.RecordAll({Entry("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg", ""),
                               Entry("file", "proc/irq/5/smp_affinity_list", "0-3")});
  ::umask(old);
  REQUIRE(recorded.ok());
  auto mode = [&](const std::string& rel) {
    struct stat st;
    REQUIRE(::stat((t.dir() + "/" + rel).c_str(), &st) == 0);
    return st.st_mode & 07777;
  };
  CHECK(mode(Journal::Path()) == 0644);
  CHECK(mode(Journal::BootPath()) == 0644);
  CHECK(mode("run/rtagent") == 0755);
  CHECK(mode("var/lib/rtagent") == 0755);
  CHECK(mode("var/lib") == 0755);
}

TEST_CASE("journal: as root, a journal another user can write is refused with the fix", "[tune]") {
  TempTree t;
  FaultRoot root(t.dir());
  {
    Journal j(root);
    REQUIRE(j.Record(Entry("file", "proc/irq/5/smp_affinity_list", "0-3")).ok());
  }
  test::EnforcedFileTrust enforced;
  Journal ok(root);
  REQUIRE(ok.Load().ok());
  const std::string dir = t.dir() + "/run/rtagent";
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  Journal j(root);
  auto r = j.Load();
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message,
             Catch::Contains("refusing the journal as root: the directory " + dir + " (above " + dir +
                             "/journal.json) is writable by every user (mode 0777)") &&
                 Catch::Contains("chmod o-w " + dir));
}

TEST_CASE("kill: the temporary journal files a killed apply left are removed with the journal", "[tune]") {
  // Found by the kill sweep (kill_test.cc): an apply killed inside the journal's WriteDurable
  // left run/rtagent/journal.json.tmp.PID, and the revert after it left that file behind.
  TempTree t;
  FaultRoot root(t.dir());
  Journal j(root);
  REQUIRE(j.Load().ok());
  REQUIRE(j.Record(Entry("file", "proc/sys/kernel/timer_migration", "1")).ok());
  REQUIRE(j.Record(Entry("boot-update-grub", "etc/default/grub.d/90-rtagent.cfg", "")).ok());
  t.Put(Journal::Path() + ".tmp.4242", "{\"version\": 1, \"entr");
  t.Put(Journal::BootPath() + ".tmp.4243", "");
  REQUIRE(j.Clear().ok());
  CHECK_FALSE(root.Exists(Journal::Path()));
  CHECK_FALSE(root.Exists(Journal::Path() + ".tmp.4242"));
  CHECK_FALSE(root.Exists(Journal::BootPath()));
  CHECK_FALSE(root.Exists(Journal::BootPath() + ".tmp.4243"));
}

// Issue 19: the journal is written an entry at a time instead of as one JSON value (which took
// several times the file's size on the large tree). The files must stay what the one value
// printed: nlohmann's dump(2) of themselves, byte for byte, whatever the values hold.
TEST_CASE("journal: written an entry at a time, the files are the JSON document printed whole", "[tune]") {
  TempTree t;
  t.Put("etc/machine-id", "0123456789abcdef0123456789abcdef\n");
  FaultRoot root(t.dir());
  auto canonical = [&](const std::string& path) {
    const std::string text = t.Get(path);
    const auto doc = nlohmann::json::parse(text);
    return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  };
  Journal j(root);
  REQUIRE(j.Load().ok());
  JournalEntry quoting = Entry("file", "proc/sys/kernel/x", "a \"quoted\" \\ back\tslash\n\x01\x1f\x7f \xc3\xa9");
  quoting.side_effect_of = "cgroup:file:/rt.slice:cpuset.cpus.partition";
  quoting.what = "affinity of robotd (12/13), kept";
  JournalEntry bytes = Entry("sched", "pid:7:tid:7", "not UTF-8 \xe9");
  bytes.what = "thread robot-\xe2\x82";
  bytes.compare = Compare::kCpuList;
  JournalEntry boot = Entry("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg", "");
  REQUIRE(j.RecordAll({quoting, bytes, boot}).ok());
  CommandRun run;
  run.argv = {"update-grub"};
  run.exit_status = 0;
  run.output = "done \xe2\x82\n";
  REQUIRE(j.AddRuns("bootfile+update-grub", "etc/default/grub.d/90-rtagent.cfg", {run}).ok());
  CHECK(t.Get(Journal::Path()) == canonical(Journal::Path()));
  CHECK(t.Get(Journal::BootPath()) == canonical(Journal::BootPath()));
  CHECK_THAT(t.Get(Journal::Path()), Catch::Contains("\"hex\""));
  // And they read back as written.
  Journal again(root);
  REQUIRE(again.Load().ok());
  REQUIRE(again.entries().size() == 3);
  std::vector<std::string> befores;
  for (const auto& e : again.entries()) befores.push_back(e.before);
  CHECK_THAT(befores, Catch::UnorderedEquals(std::vector<std::string>{quoting.before, bytes.before, boot.before}));
  // A machine-id that is not UTF-8 is kept as hex too, one level deep.
  t.Put("etc/machine-id", "m\xe9\n");
  Journal other(root);
  REQUIRE(other.RecordAll({Entry("file", "proc/sys/kernel/y", "1")}).ok());
  CHECK(t.Get(Journal::Path()) == canonical(Journal::Path()));
  CHECK_THAT(t.Get(Journal::Path()), Catch::Contains("\"machine\": {"));
}

// Issue 19: the large tree's journal (10.6 MB) was built whole before each of apply's commits.
// It now goes to the file in pieces of 64 KiB as it is made (through an FsRoot, what rtagent
// opens); the file is the same document.
TEST_CASE("journal: a journal larger than a piece is written in pieces, the same document", "[tune]") {
  TempTree t;
  t.Put("etc/machine-id", "0123456789abcdef0123456789abcdef\n");
  FsRoot root(t.dir());
  Journal j(root);
  REQUIRE(j.Load().ok());
  std::vector<JournalEntry> batch;
  for (int i = 0; i < 3000; ++i) {
    JournalEntry e = Entry("sched", "pid:" + std::to_string(i) + ":tid:" + std::to_string(i), "0-255");
    e.what = "affinity of \"worker/" + std::to_string(i) + "\" (kept)";
    e.side_effect_of = "cgroup:file:/rt.slice:cpuset.cpus.partition";
    batch.push_back(std::move(e));
  }
  REQUIRE(j.RecordAll(std::move(batch)).ok());
  const std::string text = t.Get(Journal::Path());
  REQUIRE(text.size() > 3 * 64 * 1024);
  CHECK(text == nlohmann::json::parse(text).dump(2) + "\n");
  Journal again(root);
  REQUIRE(again.Load().ok());
  CHECK(again.entries().size() == 3000);
  CHECK(again.entries().back().what == "affinity of \"worker/2999\" (kept)");
}

TEST_CASE("journal: read an entry at a time, a repeated entries key and entries after a bad one", "[tune]") {
  TempTree t;
  // The last "entries" counts, as for a document read whole.
  t.Put(Journal::Path(), "{\"entries\": [{\"key\": \"a\", \"before\": \"1\"}], \"version\": 1, "
                         "\"entries\": [{\"key\": \"b\", \"before\": \"2\"}, {\"key\": \"c\", \"before\": \"3\"}]}\n");
  FaultRoot root(t.dir());
  Journal j(root);
  REQUIRE(j.Load().ok());
  REQUIRE(j.entries().size() == 2);
  CHECK(j.entries()[0].key == "b");
  CHECK(j.entries()[1].key == "c");
  // An element that is no entry is refused, named, and nothing is kept; entries that are not
  // an array make the journal corrupt.
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": [{\"key\": \"b\"}, 7, {\"key\": \"c\"}]}\n");
  CHECK_THAT(LoadError(t).message, Catch::Contains("a field of the wrong type: 7;"));
  t.Put(Journal::Path(), "{\"version\": 1, \"entries\": {\"x\": {\"key\": \"b\"}}}\n");
  CHECK_THAT(LoadError(t).message, Catch::Contains("corrupt or truncated"));
  // The format is checked before the entries, though they come first in the file.
  t.Put(Journal::Path(), "{\"entries\": [7], \"version\": 2}\n");
  CHECK_THAT(LoadError(t).message, Catch::Contains("in format 2"));
}
