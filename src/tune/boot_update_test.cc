// A boot file and its update command as one write: the command runs after the file is written,
// a failure puts the file back and runs the command again; the commands each loader needs.
#include "tune/boot_update.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "tune/boot_test_support.h"

using namespace rtagent;
using rtagent::test::FakeRunner;

namespace {

const std::string kDropIn = "etc/default/grub.d/90-rtagent.cfg";

}  // namespace

TEST_CASE("a boot file write runs its update command after the file is in place", "[tune][boot]") {
  TempTree t;
  FaultRoot root(t.dir());
  auto runner = std::make_shared<FakeRunner>();
  runner->root = &root;
  runner->watched = kDropIn;
  BootFileActuator a(root, BootUpdate::kUpdateGrub, runner);
  CHECK(a.Read(kDropIn).value() == "");  // a missing file reads empty
  REQUIRE(a.Write(kDropIn, "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nohz_full=1\"\n").ok());
  CHECK(runner->ran == std::vector<std::vector<std::string>>{{"update-grub"}});
  CHECK(runner->seen == std::vector<std::string>{"GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nohz_full=1\"\n"});
  auto runs = a.TakeRuns();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].exit_status == 0);
  CHECK_THAT(runs[0].output, Catch::Contains("Generating grub configuration file"));
  CHECK(a.TakeRuns().empty());  // handed over once
  // Writing "" removes the file (a revert of a drop-in rtagent made), and runs the step again.
  REQUIRE(a.Write(kDropIn, "").ok());
  CHECK_FALSE(root.Exists(kDropIn));
  CHECK(runner->ran.size() == 2);
  CHECK(runner->seen.back() == "");
}

TEST_CASE("a failing update command puts the boot file back and runs again for it", "[tune][boot]") {
  TempTree t;
  t.Put(kDropIn, "# an older drop-in\n");
  FaultRoot root(t.dir());
  auto runner = std::make_shared<FakeRunner>();
  runner->root = &root;
  runner->watched = kDropIn;
  runner->statuses = {1, 0};
  BootFileActuator a(root, BootUpdate::kUpdateGrub, runner);
  auto w = a.Write(kDropIn, "# new\n");
  REQUIRE_FALSE(w.ok());
  CHECK(t.Get(kDropIn) == "# an older drop-in\n");
  // It ran on the new file, failed, then ran again on the restored one.
  CHECK(runner->seen == std::vector<std::string>{"# new\n", "# an older drop-in\n"});
  CHECK_THAT(w.error().message, Catch::Contains("`update-grub` exit 1: error: out of disk space") &&
                                    Catch::Contains(kDropIn + " was put back and `update-grub` ran again (exit 0)"));
  auto runs = a.TakeRuns();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].Failed());
  CHECK_THAT(runs[1].note, Catch::Contains("put back"));

  // A program that is not installed ran nothing: the file goes back, nothing runs again.
  runner->statuses = {-1};
  runner->ran.clear();
  auto missing = a.Write(kDropIn, "# new\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(runner->ran.size() == 1);
  CHECK(t.Get(kDropIn) == "# an older drop-in\n");
  CHECK_THAT(missing.error().message, Catch::Contains("not installed"));

  // A file that cannot be written (its directory is a file) runs nothing.
  TempTree ro;
  ro.Put("etc", "a file where a directory should be");
  FaultRoot blocked(ro.dir());
  BootFileActuator b(blocked, BootUpdate::kUpdateGrub, runner);
  runner->ran.clear();
  CHECK_FALSE(b.Write(kDropIn, "# new\n").ok());
  CHECK(runner->ran.empty());
}

TEST_CASE("under --root the update command is recorded as not run, and the write stands", "[tune][boot]") {
  TempTree t;
  FaultRoot root(t.dir());
  auto twin = std::make_shared<FixtureCommandRunner>(root.Dir());
  BootFileActuator a(root, BootUpdate::kUpdateGrub, twin);
  REQUIRE(a.Write(kDropIn, "# new\n").ok());
  CHECK(t.Get(kDropIn) == "# new\n");
  auto runs = a.TakeRuns();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].skipped);
}

TEST_CASE("each loader's update command", "[tune][boot]") {
  TempTree t;
  t.Put(kpath::kOsRelease, "6.1.0-37-rt-amd64\n");
  FaultRoot root(t.dir());
  CHECK(BootUpdateCommand(BootUpdate::kNone, root, "a", "b").value().empty());
  CHECK(BootUpdateCommand(BootUpdate::kUpdateGrub, root, "a", "b").value() == std::vector<std::string>{"update-grub"});
  CHECK(BootUpdateCommand(BootUpdate::kGrub2Mkconfig, root, "a", "b").value() ==
        std::vector<std::string>{"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"});
  // grubby carries what changed in /etc/default/grub to the default entry, both ways.
  const std::string before = "GRUB_CMDLINE_LINUX=\"rhgb quiet isolcpus=3\"\n";
  const std::string after = "GRUB_CMDLINE_LINUX=\"rhgb quiet isolcpus=2-3 nohz_full=2-3\"\n";
  CHECK(BootUpdateCommand(BootUpdate::kGrubby, root, before, after).value() ==
        std::vector<std::string>{"grubby", "--update-kernel=DEFAULT", "--remove-args=isolcpus=3",
                                 "--args=isolcpus=2-3 nohz_full=2-3"});
  CHECK(BootUpdateCommand(BootUpdate::kGrubby, root, after, before).value() ==
        std::vector<std::string>{"grubby", "--update-kernel=DEFAULT", "--remove-args=isolcpus=2-3 nohz_full=2-3",
                                 "--args=isolcpus=3"});
  CHECK(BootUpdateCommand(BootUpdate::kGrubby, root, before, before + "GRUB_TIMEOUT=1\n").value().empty());
  // kernel-install for the running kernel: its image (and Debian's initramfs) by release.
  auto none = BootUpdateCommand(BootUpdate::kKernelInstall, root, "", "x\n");
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.error().message, Catch::Contains("6.1.0-37-rt-amd64 has no image"));
  t.Put("boot/vmlinuz-6.1.0-37-rt-amd64", "");
  CHECK(BootUpdateCommand(BootUpdate::kKernelInstall, root, "", "x\n").value() ==
        std::vector<std::string>{"kernel-install", "add", "6.1.0-37-rt-amd64", "/boot/vmlinuz-6.1.0-37-rt-amd64"});
  t.Put("boot/initrd.img-6.1.0-37-rt-amd64", "");
  t.Put("usr/lib/modules/6.1.0-37-rt-amd64/vmlinuz", "");
  CHECK(BootUpdateCommand(BootUpdate::kKernelInstall, root, "", "x\n").value() ==
        std::vector<std::string>{"kernel-install", "add", "6.1.0-37-rt-amd64", "/usr/lib/modules/6.1.0-37-rt-amd64/vmlinuz",
                                 "/boot/initrd.img-6.1.0-37-rt-amd64"});
  // A kernel-install that cannot be made puts the file back.
  TempTree k;
  FaultRoot kroot(k.dir());
  auto runner = std::make_shared<FakeRunner>();
  BootFileActuator a(kroot, BootUpdate::kKernelInstall, runner);
  auto w = a.Write("etc/kernel/cmdline", "root=x nohz_full=1\n");
  REQUIRE_FALSE(w.ok());
  CHECK_THAT(w.error().message, Catch::Contains("etc/kernel/cmdline was put back"));
  CHECK_FALSE(kroot.Exists("etc/kernel/cmdline"));
  CHECK(runner->ran.empty());
}

TEST_CASE("every update step has its own actuator name, all of them boot files", "[tune][boot]") {
  std::vector<std::string> names;
  for (BootUpdate s : BootUpdates()) {
    names.push_back(BootActuatorName(s));
    CHECK(IsBootFileActuator(names.back()));
  }
  CHECK(names == std::vector<std::string>{"bootfile", "bootfile+update-grub", "bootfile+grub2-mkconfig",
                                          "bootfile+grubby", "bootfile+kernel-install"});
  CHECK_FALSE(IsBootFileActuator("file"));
  CHECK_FALSE(IsBootFileActuator("sched"));
}

TEST_CASE("kill: a boot file's temporary twin a killed apply left goes when the file is written or put back",
          "[tune][boot]") {
  // Found by the kill sweep (kill_test.cc): a power cut inside the drop-in's WriteDurable left
  // etc/default/grub.d/90-rtagent.cfg.tmp.PID, and the revert after it left that file in /etc.
  TempTree t;
  FaultRoot root(t.dir());
  auto twin = std::make_shared<FixtureCommandRunner>(root.Dir());
  BootFileActuator a(root, BootUpdate::kUpdateGrub, twin);
  t.Put(kDropIn + ".tmp.4242", "# half");
  REQUIRE(a.Write(kDropIn, "# new\n").ok());
  CHECK_FALSE(root.Exists(kDropIn + ".tmp.4242"));
  t.Put(kDropIn + ".tmp.4243", "# half");
  REQUIRE(a.Write(kDropIn, "").ok());  // revert of a drop-in rtagent made: removed
  CHECK_FALSE(root.Exists(kDropIn));
  CHECK_FALSE(root.Exists(kDropIn + ".tmp.4243"));
}
