// Each boot loader on a copy of a fixture board with its boot files added: which files the
// plan edits and why, the next boot's command line, apply then revert byte-identical, and a
// failing update command (rolled back, the file as it was).
#include "tune/boot_plan.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "tune/boot_test_support.h"
#include "tune/cores_tuner.h"
#include "tune/plan_render.h"

using namespace rtagent;
using rtagent::test::FakeRunner;

namespace {

const std::string kIpc = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";  // Debian 12, 4 CPUs

profile::Profile Load(const SysRoot& root, const std::string& bootloader) {
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus.ok());
  profile::Diagnostics d;
  auto p = profile::LoadProfileText("cores:\n  housekeeping: 0\n  isolated: 2-3\n  bootloader: " + bootloader + "\n",
                                    "board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  return std::move(*p);
}

// The profile's arguments on the fixture's 4 CPUs.
const std::string kArgs =
    "isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0 kthread_cpus=0 "
    "skew_tick=1";

struct Board {
  TempTree tree{kIpc};
  FaultRoot root{tree.dir()};
  std::shared_ptr<FakeRunner> runner = std::make_shared<FakeRunner>();

  const SectionPlan& Cores(const FullPlan& plan) { return plan.sections.front(); }
  FullPlan Plan(const profile::Profile& p) {
    auto plan = PlanAll(p, root);
    REQUIRE(plan.ok());
    REQUIRE(plan->sections.front().section == "cores");
    return std::move(*plan);
  }
  std::vector<Change> BootItems(const FullPlan& plan) {
    std::vector<Change> out;
    for (const Change& c : plan.PendingChanges())
      if (IsBootFileActuator(c.actuator)) out.push_back(c);
    return out;
  }
  // An executor whose boot files run their update step through the fake runner.
  std::unique_ptr<Executor> MakeExec(Journal& journal) {
    auto ex = std::make_unique<Executor>(root, journal);
    for (const auto& t : AllTuners()) t->AddActuators(*ex, root);
    CoresTuner(rtagent::test::FactoryOf(runner)).AddActuators(*ex, root);
    return ex;
  }
  // Applies the plan with a fresh journal, then reverts through another (as `rtagent apply`
  // and a later `rtagent revert` do); requires both to succeed.
  void ApplyThenRevert(const FullPlan& plan) {
    Journal journal(root);
    REQUIRE(journal.Load().ok());
    REQUIRE_FALSE(MakeExec(journal)->Apply(plan.PendingChanges()).rolled_back);
    Journal again(root);
    REQUIRE(again.Load().ok());
    CHECK(MakeExec(again)->Revert().complete);
  }
  std::string Warnings(const FullPlan& plan) {
    std::string out;
    for (const auto& f : Cores(plan).findings) out += f.message + "\n";
    return out;
  }
};

}  // namespace

TEST_CASE("GRUB (Debian): an argument /etc/default/grub already has is taken out, the line carries each once",
          "[tune][boot]") {
  Board b;
  b.tree.Put("etc/default/grub", "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
                                 "GRUB_CMDLINE_LINUX=\"console=ttyS0,115200 isolcpus=3 nohz_full=3\"\n");
  b.tree.Put("usr/sbin/update-grub", "");
  FullPlan plan = b.Plan(Load(b.root, "grub"));
  const SectionPlan& cores = b.Cores(plan);
  REQUIRE(cores.boot);
  const BootSummary& s = *cores.boot;
  CHECK(s.loader == "grub");
  CHECK(s.why == "cores.bootloader: grub");
  CHECK_THAT(s.how, Catch::Contains("update-grub is installed"));
  CHECK(s.update == std::vector<std::string>{"update-grub"});
  // GRUB's own part comes from the running command line (the fixture boots Debian's way).
  CHECK(s.loader_adds == "BOOT_IMAGE=/boot/vmlinuz-6.1.0-37-amd64 root=UUID=3f9c2b1e-8d4a-4c57-9e61-0b7f5d2a9c11 ro");
  CHECK(s.NextCmdline(false) == s.loader_adds + " console=ttyS0,115200 isolcpus=3 nohz_full=3 quiet");
  CHECK(s.NextCmdline(true) == s.loader_adds + " console=ttyS0,115200 " + kArgs + " quiet");
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == "etc/default/grub.d/90-rtagent.cfg");
  CHECK(items[0].actuator == "bootfile+update-grub");
  CHECK(items[0].before.empty());
  CHECK_THAT(items[0].after, Catch::Contains("\nGRUB_CMDLINE_LINUX=\"console=ttyS0,115200\"\n"));
  CHECK(b.Warnings(plan).empty());

  // Apply writes the drop-in, then runs update-grub; revert removes it and runs update-grub again.
  auto before = rtagent::test::SnapshotTree(b.tree.dir() + "/etc");
  b.runner->root = &b.root;
  b.runner->watched = items[0].key;
  Journal journal(b.root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = b.MakeExec(journal)->Apply(plan.PendingChanges());
  REQUIRE_FALSE(rep.rolled_back);
  CHECK(b.runner->ran == std::vector<std::vector<std::string>>{{"update-grub"}});
  CHECK(b.runner->seen == std::vector<std::string>{items[0].after});
  // The boot file's entry is journaled where a reboot keeps it, with what update-grub printed.
  CHECK(b.root.Exists(Journal::BootPath()));
  CHECK_THAT(b.tree.Get(Journal::BootPath()), Catch::Contains("Generating grub configuration file"));
  CHECK(b.tree.Get(Journal::Path()).find("bootfile") == std::string::npos);
  // Planned again: the file is in place (only the reboot is pending).
  CHECK(b.BootItems(b.Plan(Load(b.root, "grub"))).empty());
  // After a reboot /run is empty (the runtime values are back by themselves); revert still
  // finds the boot file's entry, removes the drop-in and runs update-grub again.
  REQUIRE(b.root.Remove(Journal::Path()).ok());
  Journal after_reboot(b.root);
  REQUIRE(after_reboot.Load().ok());
  RevertReport back = b.MakeExec(after_reboot)->Revert();
  CHECK(back.complete);
  REQUIRE(back.results.size() == 1);
  CHECK(back.results[0].change.key == "etc/default/grub.d/90-rtagent.cfg");
  CHECK(back.results[0].runs.size() == 1);
  CHECK(b.runner->ran.size() == 2);
  CHECK(b.runner->seen.back() == "");
  CHECK(rtagent::test::SnapshotTree(b.tree.dir() + "/etc") == before);
  CHECK_FALSE(b.root.Exists(Journal::BootPath()));
}

TEST_CASE("GRUB (Debian): a failing update-grub is a rollback with the boot file as it was", "[tune][boot]") {
  Board b;
  b.tree.Put("etc/default/grub", "GRUB_CMDLINE_LINUX=\"\"\n");
  b.tree.Put("etc/default/grub.d/90-rtagent.cfg", "# an older rtagent drop-in\n");
  auto before = rtagent::test::SnapshotTree(b.tree.dir());
  FullPlan plan = b.Plan(Load(b.root, "grub"));
  b.runner->statuses = {1, 0};
  Journal journal(b.root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = b.MakeExec(journal)->Apply(plan.PendingChanges());
  CHECK(rep.rolled_back);  // rtagent apply exits 4
  const ChangeResult* failed = nullptr;
  for (const auto& r : rep.results)
    if (r.outcome == Outcome::kFailed) failed = &r;
  REQUIRE(failed);
  CHECK(failed->change.key == "etc/default/grub.d/90-rtagent.cfg");
  CHECK_THAT(failed->detail, Catch::Contains("exit 1") && Catch::Contains("was put back"));
  REQUIRE(failed->runs.size() == 2);  // the failed run, then the run for the restored file
  CHECK(failed->runs[0].exit_status == 1);
  CHECK(failed->runs[1].exit_status == 0);
  // Nothing this run wrote is left: every file as it was, no journal.
  CHECK(rtagent::test::SnapshotTree(b.tree.dir()) == before);
  CHECK_FALSE(b.root.Exists(Journal::Path()));
  CHECK_FALSE(b.root.Exists(Journal::BootPath()));
}

TEST_CASE("GRUB (Debian): a drop-in read after rtagent's that sets the line is a warning", "[tune][boot]") {
  Board b;
  b.tree.Put("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n");
  b.tree.Put("etc/default/grub.d/50-cloudimg-settings.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 nohz_full=1\"\n");
  b.tree.Put("etc/default/grub.d/99-late.cfg", "GRUB_CMDLINE_LINUX=\"nosmt\"\n");
  b.tree.Put("etc/default/grub.d/notes.txt", "GRUB_CMDLINE_LINUX=\"never read\"\n");
  FullPlan plan = b.Plan(Load(b.root, "grub"));
  CHECK_THAT(b.Warnings(plan), Catch::Contains("/etc/default/grub.d/99-late.cfg is read after"));
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  // The cloud image's drop-in (read before rtagent's) had nohz_full: redefined without it.
  CHECK_THAT(items[0].after, Catch::Contains("\nGRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1\"\n"));
  // The later drop-in wins in the shell, and the next boot's line says so.
  CHECK(b.Cores(plan).boot->files.front().cmdline_after == "nosmt console=tty1");
}

TEST_CASE("GRUB (Fedora, SUSE): /etc/default/grub in place, then grub2-mkconfig", "[tune][boot]") {
  Board b;
  const std::string grub = "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"resume=/dev/vda2 rhgb quiet isolcpus=1\"\n";
  b.tree.Put("etc/default/grub", grub);
  b.tree.Put("usr/sbin/grub2-mkconfig", "");
  FullPlan plan = b.Plan(Load(b.root, "auto"));
  const BootSummary& s = *b.Cores(plan).boot;
  CHECK(s.why == "auto: /etc/default/grub exists (GRUB)");
  CHECK(s.update == std::vector<std::string>{"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"});
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == "etc/default/grub");
  CHECK(items[0].actuator == "bootfile+grub2-mkconfig");
  CHECK(items[0].after == "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"resume=/dev/vda2 rhgb quiet " + kArgs + "\"\n");
  auto before = rtagent::test::SnapshotTree(b.tree.dir());
  b.ApplyThenRevert(plan);
  CHECK(b.runner->ran == std::vector<std::vector<std::string>>{{"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"},
                                                              {"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"}});
  CHECK(rtagent::test::SnapshotTree(b.tree.dir()) == before);
}

TEST_CASE("GRUB with BLS (Fedora, RHEL): grubby carries the arguments to the default entry", "[tune][boot]") {
  Board b;
  b.tree.Put("etc/default/grub", "GRUB_CMDLINE_LINUX=\"rhgb quiet\"\nGRUB_ENABLE_BLSCFG=true\n");
  b.tree.Put("usr/sbin/grub2-mkconfig", "");
  b.tree.Put("boot/grub2/grubenv", "# GRUB Environment Block\nsaved_entry=m1-6.1.0-37-amd64\n");
  b.tree.Put("boot/loader/entries/m1-6.1.0-37-amd64.conf", "title Fedora (6.1.0)\nversion 6.1.0-37-amd64\n"
                                                           "linux /vmlinuz-6.1.0-37-amd64\noptions root=UUID=x ro rhgb quiet\n");
  b.tree.Put("boot/loader/entries/m1-0-rescue.conf", "title Fedora (0-rescue)\noptions root=UUID=x ro\n");
  FullPlan plan = b.Plan(Load(b.root, "grub"));
  const BootSummary& s = *b.Cores(plan).boot;
  CHECK_THAT(s.how, Catch::Contains("grubby"));
  CHECK(s.update == std::vector<std::string>{"grubby", "--update-kernel=DEFAULT", "--args=" + kArgs});
  REQUIRE(s.files.size() == 1);
  CHECK_THAT(s.files[0].role, Catch::Contains("m1-6.1.0-37-amd64.conf (grubenv saved_entry=m1-6.1.0-37-amd64)"));
  CHECK(s.NextCmdline(true) == "root=UUID=x ro rhgb quiet " + kArgs);
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  CHECK(items[0].actuator == "bootfile+grubby");
}

TEST_CASE("BLS: the loader.conf default, not the first file, a glob default, never the rescue entry", "[tune][boot]") {
  Board b;
  b.tree.Put("boot/loader/loader.conf", "timeout 3\ndefault abc123-6.12.0-rt.conf\n");
  const std::string rescue = "title Rescue\nlinux /rescue/linux\noptions root=UUID=x ro\n";
  const std::string rt = "title RT\nversion 6.12.0-rt\nlinux /abc123/6.12.0-rt/linux\noptions root=UUID=x ro quiet\n";
  const std::string stock = "title stock\nversion 6.1.0\nlinux /abc123/6.1.0/linux\noptions root=UUID=x ro quiet\n";
  b.tree.Put("boot/loader/entries/0-rescue.conf", rescue);
  b.tree.Put("boot/loader/entries/abc123-6.1.0.conf", stock);
  b.tree.Put("boot/loader/entries/abc123-6.12.0-rt.conf", rt);
  FullPlan plan = b.Plan(Load(b.root, "auto"));
  const BootSummary& s = *b.Cores(plan).boot;
  CHECK(s.loader == "bls");
  CHECK_THAT(s.why, Catch::Contains("boot/loader/loader.conf exists (systemd-boot)"));
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == "boot/loader/entries/abc123-6.12.0-rt.conf");
  CHECK_THAT(items[0].after, Catch::Contains("options root=UUID=x ro quiet " + kArgs + "\n"));
  CHECK_THAT(s.files[0].role, Catch::Contains("loader.conf default abc123-6.12.0-rt.conf"));
  CHECK(s.NextCmdline(true) == "root=UUID=x ro quiet " + kArgs);

  // A glob: the newest matching entry.
  b.tree.Put("boot/loader/loader.conf", "default abc123-*\n");
  items = b.BootItems(b.Plan(Load(b.root, "bls")));
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == "boot/loader/entries/abc123-6.12.0-rt.conf");

  // No default: every entry of the running kernel (the fixture runs 6.1.0-37-amd64).
  b.tree.Put("boot/loader/loader.conf", "timeout 3\n");
  b.tree.Put("boot/loader/entries/abc123-6.1.0-37-amd64.conf", "title running\nversion 6.1.0-37-amd64\noptions a\n");
  b.tree.Put("boot/loader/entries/abc123-6.1.0-37-amd64-debug.conf",
             "title running, debug\nlinux /vmlinuz-6.1.0-37-amd64\noptions a debug\n");
  plan = b.Plan(Load(b.root, "bls"));
  items = b.BootItems(plan);
  REQUIRE(items.size() == 2);
  CHECK(items[0].key == "boot/loader/entries/abc123-6.1.0-37-amd64.conf");
  CHECK(items[1].key == "boot/loader/entries/abc123-6.1.0-37-amd64-debug.conf");

  // The rescue entry named as the default: an error finding, nothing written.
  b.tree.Put("boot/loader/loader.conf", "default 0-rescue.conf\n");
  plan = b.Plan(Load(b.root, "bls"));
  CHECK(b.BootItems(plan).empty());
  CHECK_THAT(b.Warnings(plan), Catch::Contains("rescue entry 0-rescue.conf, which rtagent never edits"));
  CHECK(b.tree.Get("boot/loader/entries/0-rescue.conf") == rescue);
}

TEST_CASE("extlinux: several labels and ${cbootargs}, apply then revert byte-identical", "[tune][boot]") {
  Board b;
  const std::string conf =
      "TIMEOUT 30\nDEFAULT primary\n\nLABEL backup\n  LINUX /boot/Image.bak\n  APPEND ${cbootargs} root=/dev/mmcblk0p1\n\n"
      "LABEL primary\n  MENU LABEL primary kernel\n  LINUX /boot/Image\n  APPEND ${cbootargs} root=/dev/nvme0n1p1 rw "
      "isolcpus=1 quiet\n";
  b.tree.Put("boot/extlinux/extlinux.conf", conf);
  FullPlan plan = b.Plan(Load(b.root, "auto"));
  const BootSummary& s = *b.Cores(plan).boot;
  CHECK(s.loader == "extlinux");
  CHECK(s.files[0].role == "entry primary (DEFAULT primary)");
  CHECK(s.NextCmdline(false) == "${cbootargs} root=/dev/nvme0n1p1 rw isolcpus=1 quiet");
  CHECK(s.NextCmdline(true) == "${cbootargs} root=/dev/nvme0n1p1 rw quiet " + kArgs);
  CHECK(s.update.empty());
  auto before = rtagent::test::SnapshotTree(b.tree.dir());
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  CHECK_THAT(items[0].after, Catch::Contains("LABEL backup\n  LINUX /boot/Image.bak\n  APPEND ${cbootargs} root=/dev/mmcblk0p1\n"));
  b.ApplyThenRevert(plan);
  CHECK(rtagent::test::SnapshotTree(b.tree.dir()) == before);
  CHECK(b.runner->ran.empty());  // U-Boot reads the file as it is
}

TEST_CASE("extlinux: a DEFAULT with no such LABEL, or an entry without APPEND, is an error and nothing is written", "[tune][boot]") {
  Board b;
  const std::string no_label = "DEFAULT primary\nLABEL backup\n  LINUX /boot/Image.bak\n  APPEND root=/dev/mmcblk0p1\n";
  b.tree.Put("boot/extlinux/extlinux.conf", no_label);
  FullPlan plan = b.Plan(Load(b.root, "extlinux"));
  CHECK(b.BootItems(plan).empty());
  CHECK_THAT(b.Warnings(plan), Catch::Contains("/boot/extlinux/extlinux.conf: extlinux.conf has no entry labelled \"primary\" "
                                               "(DEFAULT primary); nothing is written to it"));

  const std::string no_append = "DEFAULT primary\nLABEL primary\n  LINUX /boot/Image\n";
  b.tree.Put("boot/extlinux/extlinux.conf", no_append);
  plan = b.Plan(Load(b.root, "extlinux"));
  CHECK(b.BootItems(plan).empty());
  CHECK_THAT(b.Warnings(plan), Catch::Contains("the extlinux.conf entry \"primary\" has no APPEND line to add the arguments "
                                               "to; nothing is written to it"));
  CHECK(b.tree.Get("boot/extlinux/extlinux.conf") == no_append);
}

TEST_CASE("rpi: a missing cmdline.txt is a finding, and every other section is still planned", "[tune][boot]") {
  Board b;
  FullPlan plan = b.Plan(Load(b.root, "rpi"));
  const SectionPlan& cores = b.Cores(plan);
  REQUIRE(cores.boot);
  CHECK_THAT(cores.boot->missing, Catch::Contains("/boot/firmware/cmdline.txt does not exist") &&
                                      Catch::Contains(kArgs));
  CHECK_THAT(b.Warnings(plan), Catch::Contains("nothing is written"));
  CHECK(b.BootItems(plan).empty());
  CHECK(plan.sections.size() == AllTuners().size());
  CHECK_FALSE(plan.RebootRequired().empty());
  // Bookworm's note in /boot is not the file; an older release's /boot/cmdline.txt is.
  b.tree.Put("boot/cmdline.txt", "DO NOT EDIT THIS FILE\n");
  CHECK_FALSE(b.Cores(b.Plan(Load(b.root, "rpi"))).boot->missing.empty());
  b.tree.Put("boot/cmdline.txt", "console=serial0,115200 root=PARTUUID=1-02 rootwait\n");
  auto items = b.BootItems(b.Plan(Load(b.root, "rpi")));
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == "boot/cmdline.txt");
  CHECK(items[0].after == "console=serial0,115200 root=PARTUUID=1-02 rootwait " + kArgs + "\n");
}

TEST_CASE("kernel-install: /etc/kernel/cmdline made from the running line, then kernel-install add", "[tune][boot]") {
  Board b;
  b.tree.Put("boot/loader/loader.conf", "timeout 3\n");
  b.tree.Put("boot/vmlinuz-6.1.0-37-amd64", "");
  FullPlan plan = b.Plan(Load(b.root, "kernel-install"));
  const BootSummary& s = *b.Cores(plan).boot;
  CHECK(s.update == std::vector<std::string>{"kernel-install", "add", "6.1.0-37-amd64", "/boot/vmlinuz-6.1.0-37-amd64"});
  auto items = b.BootItems(plan);
  REQUIRE(items.size() == 1);
  CHECK(items[0].key == "etc/kernel/cmdline");
  CHECK(items[0].before.empty());
  // kernel-install's own fallback: the running line without BOOT_IMAGE=.
  CHECK(items[0].after == "root=UUID=3f9c2b1e-8d4a-4c57-9e61-0b7f5d2a9c11 ro quiet systemd.unified_cgroup_hierarchy=0 "
                          "systemd.legacy_systemd_cgroup_controller=1 " + kArgs + "\n");
  auto before = rtagent::test::SnapshotTree(b.tree.dir());
  b.ApplyThenRevert(plan);
  CHECK_FALSE(b.root.Exists("etc/kernel/cmdline"));
  CHECK(b.runner->ran.size() == 2);  // kernel-install after the write and after the revert
  CHECK(rtagent::test::SnapshotTree(b.tree.dir()) == before);
  // Without the running kernel's image kernel-install cannot run: said at plan time.
  REQUIRE(b.root.Remove("boot/vmlinuz-6.1.0-37-amd64").ok());
  CHECK_THAT(b.Warnings(b.Plan(Load(b.root, "kernel-install"))), Catch::Contains("kernel-install cannot be run"));
}

TEST_CASE("a program the board lacks is a warning at plan time", "[tune][boot]") {
  Board b;
  b.tree.Put("etc/default/grub", "GRUB_CMDLINE_LINUX=\"\"\n");
  b.tree.Put("etc/default/grub.d/.keep", "");
  b.tree.Put("usr/bin/true", "");  // the tree lists its programs; update-grub is not among them
  CHECK_THAT(b.Warnings(b.Plan(Load(b.root, "grub"))), Catch::Contains("update-grub is not installed"));
}

TEST_CASE("validate's question: does the named boot loader have its file here", "[tune][boot]") {
  Board b;
  CHECK_THAT(MissingBootFile(Load(b.root, "extlinux"), b.root), Catch::Contains("/boot/extlinux/extlinux.conf"));
  CHECK_THAT(MissingBootFile(Load(b.root, "grub"), b.root), Catch::Contains("not a GRUB system"));
  CHECK(MissingBootFile(Load(b.root, "auto"), b.root).empty());
  CHECK(MissingBootFile(Load(b.root, "print"), b.root).empty());
  b.tree.Put("boot/extlinux/extlinux.conf", "LABEL a\n APPEND x\n");
  CHECK(MissingBootFile(Load(b.root, "extlinux"), b.root).empty());
}

// The one write of an apply whose failure is neither a rollback nor a refusal: the journal's
// rewrite that adds what the update command ran (Journal::AddRuns) after the boot file was
// written. The file's entry was journaled before its write, so the tuning stands and revert
// works; the lost record must show (a WARN line in the text, "warnings" in --json; exit 0, as
// PRODUCT.md's codes leave it) and revert must still give /etc back byte for byte.
TEST_CASE("journal AddRuns failing after a boot file write is a WARN naming the file, and revert still restores",
          "[tune][boot]") {
  const std::string grub = "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX=\"console=ttyS0,115200\"\n";
  // A clean apply counts the writes: the drop-in's, then the boot journal's next rewrite.
  size_t k = 0;
  std::string calls;
  {
    Board b;
    b.tree.Put("etc/default/grub", grub);
    b.tree.Put("usr/sbin/update-grub", "");
    FullPlan plan = b.Plan(Load(b.root, "grub"));
    Journal journal(b.root);
    REQUIRE(journal.Load().ok());
    ApplyReport clean = b.MakeExec(journal)->Apply(plan.PendingChanges());
    REQUIRE_FALSE(clean.rolled_back);
    CHECK(clean.warnings.empty());
    CHECK(ApplyJson(clean, plan)["warnings"] == nlohmann::json::array());
    bool dropin = false;
    for (size_t i = 0; i < b.root.calls().size(); ++i) {
      const auto& c = b.root.calls()[i];
      calls += c.path + " ";
      if (c.path == "etc/default/grub.d/90-rtagent.cfg") dropin = true;
      else if (dropin && !k && c.path == Journal::BootPath()) k = i + 1;
    }
  }
  INFO("writes of a clean apply: " << calls);
  REQUIRE(k > 0);
  Board b;
  b.tree.Put("etc/default/grub", grub);
  b.tree.Put("usr/sbin/update-grub", "");
  const auto before = rtagent::test::SnapshotTree(b.tree.dir() + "/etc");
  FullPlan plan = b.Plan(Load(b.root, "grub"));
  b.root.FailNthWrite(k, ENOSPC);
  Journal journal(b.root);
  REQUIRE(journal.Load().ok());
  ApplyReport rep = b.MakeExec(journal)->Apply(plan.PendingChanges());
  CHECK_FALSE(rep.rolled_back);
  CHECK(rep.Count(Outcome::kFailed) == 0);
  REQUIRE(rep.warnings.size() == 1);
  CHECK_THAT(rep.warnings[0], Catch::StartsWith("journal: /etc/default/grub.d/90-rtagent.cfg is applied and journaled") &&
                                  Catch::Contains("(update-grub)") && Catch::Contains(std::strerror(ENOSPC)));
  CHECK_THAT(RenderApplyText(rep, plan, false), Catch::Contains("WARN journal: /etc/default/grub.d/90-rtagent.cfg"));
  const auto j = ApplyJson(rep, plan);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0] == rep.warnings[0]);
  // The drop-in is written and update-grub ran; its entry is in the boot journal, without runs.
  CHECK(b.root.Exists("etc/default/grub.d/90-rtagent.cfg"));
  CHECK(b.runner->ran.size() == 1);
  Journal again(b.root);
  REQUIRE(again.Load().ok());
  int entries = 0;
  for (const auto& e : again.entries()) {
    if (e.key != "etc/default/grub.d/90-rtagent.cfg") continue;
    ++entries;
    CHECK(e.runs.empty());
  }
  CHECK(entries == 1);
  RevertReport back = b.MakeExec(again)->Revert();
  CHECK(back.complete);
  CHECK(b.runner->ran.size() == 2);
  CHECK(rtagent::test::SnapshotTree(b.tree.dir() + "/etc") == before);
  CHECK_FALSE(b.root.Exists(Journal::BootPath()));
}
