// The journal's two files: runtime values in /run (gone at reboot with the values), boot loader
// files in /var/lib/rtagent (they outlive the reboot they are written for), and the hold
// daemon's view, which is the runtime one only.
#include "tune/journal.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"

using namespace rtagent;

namespace {

JournalEntry Entry(const std::string& actuator, const std::string& key, const std::string& before) {
  return {"cores", key, actuator, key, before, "new", Compare::kExact, "", {}};
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
