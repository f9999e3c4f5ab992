// The boot loader as a user meets it, through the binary on copies of a fixture board with
// boot files added: plan and apply show the loader, why, the files whole and the next boot's
// command line; a missing boot file is a finding, not the end of the plan; verify tells
// "written, not booted yet" from "not written"; revert puts the files back; validate warns;
// commission says the measured CPUs are not isolated until the reboot. Under --root no update
// command runs (the output says what would run on the board).
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "base/fault_root.h"
#include "base/shell_test_support.h"
#include "base/tree_test_support.h"
#include "tune/journal.h"

using namespace rtagent;

namespace {

const std::string kIpc = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

struct Run {
  int code = -1;
  std::string out;
};

Run Rt(const std::string& args, const std::string& cwd = "") {
  rtagent::test::ShellResult s = rtagent::test::RunShell((cwd.empty() ? "" : "cd '" + cwd + "' && ") +
                                                         std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
  return {s.code, s.out};
}

nlohmann::json Json(const std::string& out) {
  REQUIRE(out.find('{') != std::string::npos);
  return nlohmann::json::parse(out.substr(out.find('{')));
}

// A profile file for 4 CPUs, 2-3 isolated, with `bootloader` and `more` after the cores section.
struct ProfileFile {
  TempTree dir;
  std::string path;
  ProfileFile(const std::string& name, const std::string& bootloader, const std::string& more = "") {
    dir.Put(name, "cores:\n  housekeeping: 0\n  isolated: 2-3\n  bootloader: " + bootloader + "\n" + more);
    path = dir.dir() + "/" + name;
  }
};

// A Debian PC (the x86 fixture) with /etc/default/grub and update-grub, and a profile for it.
struct GrubBoard {
  TempTree tree{kIpc};
  ProfileFile file;
  std::string profile;
  explicit GrubBoard(const std::string& bootloader = "auto") : file("board.yaml", bootloader), profile(file.path) {
    tree.Put("etc/default/grub", "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
                                 "GRUB_CMDLINE_LINUX=\"console=ttyS0,115200 isolcpus=3 nohz_full=3\"\n");
    tree.Put("usr/sbin/update-grub", "");
  }
  std::string Root() const { return " --root " + tree.dir(); }
};

const std::string kArgs =
    "isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0 kthread_cpus=0 "
    "skew_tick=1";
const std::string kGrubOwn = "BOOT_IMAGE=/boot/vmlinuz-6.1.0-37-amd64 root=UUID=3f9c2b1e-8d4a-4c57-9e61-0b7f5d2a9c11 ro";

}  // namespace

TEST_CASE("plan shows the boot loader, why, the drop-in whole and the next boot's command line", "[cli][boot]") {
  GrubBoard b;
  auto before = rtagent::test::SnapshotTree(b.tree.dir());
  Run r = Rt("plan " + b.profile + b.Root());
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("boot loader: grub (auto: /etc/default/grub exists (GRUB))"));
  CHECK_THAT(r.out, Catch::Contains("/etc/default/grub.d/90-rtagent.cfg (a new file, the drop-in):"));
  CHECK_THAT(r.out, Catch::Contains("    + GRUB_CMDLINE_LINUX=\"console=ttyS0,115200\"\n"));
  CHECK_THAT(r.out, Catch::Contains("    + GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX " + kArgs + "\"\n"));
  CHECK_THAT(r.out, Catch::Contains("  then: update-grub\n"));
  // The whole line, not cut short: once applied, and as the files are now.
  CHECK_THAT(r.out, Catch::Contains("the next boot's command line once applied:\n    " + kGrubOwn +
                                    " console=ttyS0,115200 " + kArgs + " quiet\n"));
  CHECK_THAT(r.out, Catch::Contains("(as the boot files are now:\n    " + kGrubOwn +
                                    " console=ttyS0,115200 isolcpus=3 nohz_full=3 quiet)"));
  Run j = Rt("plan --json " + b.profile + b.Root());
  REQUIRE(j.code == 0);
  auto doc = Json(j.out);
  CHECK(doc["bootloader"]["loader"] == "grub");
  CHECK(doc["bootloader"]["chosen_because"] == "auto: /etc/default/grub exists (GRUB)");
  CHECK(doc["bootloader"]["update_command"] == nlohmann::json::array({"update-grub"}));
  CHECK(doc["bootloader"]["next_cmdline_after_apply"] == kGrubOwn + " console=ttyS0,115200 " + kArgs + " quiet");
  CHECK(rtagent::test::SnapshotTree(b.tree.dir()) == before);  // plan never writes
}

TEST_CASE("a missing cmdline.txt: plan still plans every section, prints JSON, exit 0, verify goes on", "[cli][boot]") {
  TempTree t(kIpc);
  ProfileFile rpi("rpi.yaml", "rpi", "irqs:\n  default: housekeeping\n");
  const std::string profile = rpi.path;
  Run r = Rt("plan " + profile + " --root " + t.dir());
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("missing: /boot/firmware/cmdline.txt does not exist"));
  CHECK_THAT(r.out, Catch::Contains(kArgs));
  CHECK_THAT(r.out, Catch::Contains("irqs\n"));  // the rest of the plan is there
  Run j = Rt("plan --json " + profile + " --root " + t.dir());
  REQUIRE(j.code == 0);
  auto doc = Json(j.out);
  CHECK_THAT(doc["bootloader"]["missing"].get<std::string>(), Catch::Contains("/boot/firmware/cmdline.txt"));
  bool irqs = false;
  for (const auto& s : doc["sections"]) irqs |= s["section"] == "irqs" && !s["changes"].empty();
  CHECK(irqs);
  // verify: the conformance of each section, and the boot arguments "not written".
  Run v = Rt("verify --suite boot --json " + profile + " --root " + t.dir());
  INFO(v.out);
  CHECK(v.code == 1);  // the IRQs differ until apply: that is what fails, not the boot file
  auto vd = Json(v.out);
  std::map<std::string, std::string> status, summary;
  for (const auto& c : vd["results"]) {
    status[c["id"]] = c["status"];
    summary[c["id"]] = c["summary"];
  }
  CHECK(status["conformance.irqs"] == "FAIL");
  CHECK_THAT(summary["conformance.cores"], Catch::Contains("/boot/firmware/cmdline.txt does not exist"));
  CHECK(status["cmdline.boot_args"] == "WARN");
  for (const auto& c : vd["results"]) {
    if (c["id"] == "cmdline.boot_args") CHECK_THAT(c["measured"].get<std::string>(), Catch::StartsWith("not written: "));
  }
}

TEST_CASE("apply writes the drop-in, verify says written and not booted, revert puts the files back", "[cli][boot]") {
  GrubBoard b("grub");
  auto etc = rtagent::test::SnapshotTree(b.tree.dir() + "/etc");
  Run a = Rt("apply " + b.profile + b.Root());
  INFO(a.out);
  REQUIRE(a.code == 0);
  CHECK_THAT(a.out, Catch::Contains("GRUB drop-in /etc/default/grub.d/90-rtagent.cfg, then update-grub"));
  // Under --root the update command is not run: the output says what would run on the board.
  CHECK_THAT(a.out, Catch::Contains("not run: `update-grub`: " + b.tree.dir() + " is a system tree"));
  CHECK_THAT(a.out, Catch::Contains("the next boot's command line:\n    " + kGrubOwn + " console=ttyS0,115200 " + kArgs));
  CHECK_THAT(b.tree.Get("etc/default/grub.d/90-rtagent.cfg"), Catch::Contains(kArgs));
  CHECK(b.tree.Get("etc/default/grub") == etc["default/grub"]);  // /etc/default/grub itself is never edited
  // The boot file's "before" is journaled where a reboot keeps it, with the command's record.
  auto journal = nlohmann::json::parse(b.tree.Get(Journal::BootPath()));
  REQUIRE(journal["entries"].size() == 1);
  CHECK(journal["entries"][0]["actuator"] == "bootfile+update-grub");
  CHECK(journal["entries"][0]["runs"][0]["skipped"] == true);

  Run v = Rt("verify --suite boot --json " + b.profile + b.Root());
  INFO(v.out);
  auto vd = Json(v.out);
  for (const auto& c : vd["results"]) {
    if (c["id"] == "cmdline.boot_args") {
      CHECK(c["status"] == "WARN");
      CHECK_THAT(c["summary"].get<std::string>(),
                 Catch::Contains("7 written to /etc/default/grub.d/90-rtagent.cfg, not booted yet"));
      CHECK_THAT(c["measured"].get<std::string>(), Catch::StartsWith("written, not booted yet: "));
    }
    if (c["id"] == "conformance.cores") CHECK(c["status"] == "PASS");
  }

  Run r = Rt("revert" + b.Root());
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("not run: `update-grub`"));
  CHECK_THAT(r.out, Catch::Contains("/etc/default/grub.d/90-rtagent.cfg (removed: rtagent made it):\n"));
  CHECK_THAT(r.out, Catch::Contains("    - GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX " + kArgs + "\"\n"));
  CHECK(rtagent::test::SnapshotTree(b.tree.dir() + "/etc") == etc);
  CHECK_FALSE(FsRoot(b.tree.dir()).Exists(Journal::BootPath()));
}

TEST_CASE("BLS: plan names the entry it edits and why, apply leaves the rescue entry and the others", "[cli][boot]") {
  TempTree t(kIpc);
  t.Put("boot/loader/loader.conf", "default abc123-6.12*\n");
  t.Put("boot/loader/entries/0-rescue.conf", "title Rescue\nversion 0-rescue\noptions root=/dev/sda2 ro\n");
  t.Put("boot/loader/entries/abc123-6.1.0.conf", "title Debian\nversion 6.1.0\noptions root=/dev/sda2 ro quiet\n");
  t.Put("boot/loader/entries/abc123-6.12.0-rt.conf", "title Debian RT\nversion 6.12.0-rt\noptions root=/dev/sda2 ro quiet\n");
  ProfileFile bls("bls.yaml", "auto");
  const std::string profile = bls.path;
  Run r = Rt("plan " + profile + " --root " + t.dir());
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("/boot/loader/entries/abc123-6.12.0-rt.conf (entry abc123-6.12.0-rt.conf "
                                    "(loader.conf default abc123-6.12*)):\n"));
  CHECK_THAT(r.out, Catch::Contains("the next boot's command line once applied:\n    root=/dev/sda2 ro quiet " + kArgs));
  auto before = rtagent::test::SnapshotTree(t.dir() + "/boot");
  REQUIRE(Rt("apply " + profile + " --root " + t.dir()).code == 0);
  auto after = rtagent::test::SnapshotTree(t.dir() + "/boot");
  CHECK(after["loader/entries/abc123-6.12.0-rt.conf"] ==
        "title Debian RT\nversion 6.12.0-rt\noptions root=/dev/sda2 ro quiet " + kArgs + "\n");
  after.erase("loader/entries/abc123-6.12.0-rt.conf");
  before.erase("loader/entries/abc123-6.12.0-rt.conf");
  CHECK(after == before);  // the rescue entry and the older kernel's are as they were
  REQUIRE(Rt("revert --root " + t.dir()).code == 0);
}

TEST_CASE("validate warns when the named boot loader's file is not there", "[cli][boot]") {
  TempTree t(kIpc);
  ProfileFile jetson("jetson.yaml", "extlinux");
  Run r = Rt("validate " + jetson.path + " --root " + t.dir());
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("warning: cores.bootloader extlinux: /boot/extlinux/extlinux.conf does not exist"));
  CHECK_THAT(r.out, Catch::Contains("jetson.yaml:4:"));
  CHECK_THAT(r.out, Catch::Contains("valid, 1 warning"));
  t.Put("boot/extlinux/extlinux.conf", "DEFAULT a\nLABEL a\n  APPEND root=/dev/mmcblk0p1\n");
  Run ok = Rt("validate " + jetson.path + " --root " + t.dir());
  CHECK(ok.out.find("warning") == std::string::npos);
}

TEST_CASE("commission on a board whose boot arguments are not booted says the CPUs are not isolated yet",
          "[cli][boot][commission]") {
  GrubBoard b("grub");
  TempTree out;
  Run r = Rt("commission " + b.profile + b.Root() + " --duration 1s --out " + out.dir() + "/v", out.dir());
  INFO(r.out);
  CHECK(r.code == 3);  // the latency test is refused on a fixture tree
  CHECK_THAT(r.out, Catch::Contains("the measured CPUs are not isolated until the reboot: the boot arguments " + kArgs +
                                    " are written to /etc/default/grub.d/90-rtagent.cfg (`update-grub` is not run under --root)"));
  CHECK_THAT(r.out, Catch::Contains("reboot, then run `rtagent commission` again: that second run gives the verdict "
                                    "that counts"));
}

TEST_CASE("an update command that cannot run: apply exits 4 and the boot file is as it was", "[cli][boot]") {
  // systemd-boot with kernel-install, but the running kernel's image is not in the tree: the
  // command cannot be made, so /etc/kernel/cmdline is put back as it was.
  TempTree t(kIpc);
  t.Put("boot/loader/loader.conf", "timeout 3\n");
  ProfileFile sdboot("sdboot.yaml", "auto");
  t.Put("etc/kernel/cmdline", "root=UUID=x ro quiet\n");
  auto before = rtagent::test::SnapshotTree(t.dir());
  Run a = Rt("apply " + sdboot.path + " --root " + t.dir());
  INFO(a.out);
  CHECK(a.code == 4);
  CHECK_THAT(a.out, Catch::Contains("has no image for kernel-install") && Catch::Contains("etc/kernel/cmdline was put back"));
  CHECK_THAT(a.out, Catch::Contains("apply failed and was rolled back"));
  CHECK(rtagent::test::SnapshotTree(t.dir()) == before);
}
