#include "tune/bootloader.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"

using namespace rtagent;

static const std::vector<std::string> kArgs = {"isolcpus=nohz,domain,managed_irq,2-3", "nohz_full=2-3",
                                                "rcu_nocbs=2-3", "rcu_nocb_poll", "irqaffinity=0-1"};

TEST_CASE("boot arguments replace the managed ones and keep the rest", "[tune][boot]") {
  CHECK(BootArgKey("isolcpus=2-3") == "isolcpus");
  CHECK(BootArgKey("rcu-nocbs=1") == "rcu_nocbs");
  std::string merged = MergeBootArgs("console=ttyS0 root=/dev/mmcblk0p2 isolcpus=1 nohz_full=1 quiet", kArgs);
  CHECK(merged ==
        "console=ttyS0 root=/dev/mmcblk0p2 quiet isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 "
        "rcu_nocb_poll irqaffinity=0-1");
  // A profile that no longer isolates removes its old arguments.
  CHECK(MergeBootArgs("quiet isolcpus=1 skew_tick=1", {}) == "quiet");
  CHECK(MergeBootArgs("dyndbg=\"file a.c +p\" quiet", {"nohz_full=1"}) == "dyndbg=\"file a.c +p\" quiet nohz_full=1");
}

TEST_CASE("GRUB drop-in extends GRUB_CMDLINE_LINUX", "[tune][boot]") {
  std::string g = RenderGrubDropIn(kArgs, "board.yaml");
  CHECK_THAT(g, Catch::Contains("GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX isolcpus=nohz,domain,managed_irq,2-3 "));
  CHECK_THAT(g, Catch::Contains("update-grub"));
  CHECK_THAT(g, Catch::Contains("board.yaml"));
}

TEST_CASE("extlinux.conf: the default entry's APPEND line is merged", "[tune][boot]") {
  const char* conf =
      "TIMEOUT 30\nDEFAULT primary\n\nMENU TITLE L4T boot options\n\nLABEL backup\n      LINUX /boot/Image.bak\n"
      "      APPEND ${cbootargs} root=/dev/mmcblk0p1\n\nLABEL primary\n      MENU LABEL primary kernel\n"
      "      LINUX /boot/Image\n      APPEND ${cbootargs} root=/dev/nvme0n1p1 rw isolcpus=4 quiet\n";
  auto r = EditExtlinux(conf, {"isolcpus=4-7", "nohz_full=4-7"}, "");
  REQUIRE(r.ok());
  CHECK_THAT(*r, Catch::Contains("      APPEND ${cbootargs} root=/dev/nvme0n1p1 rw quiet isolcpus=4-7 nohz_full=4-7\n"));
  CHECK_THAT(*r, Catch::Contains("      APPEND ${cbootargs} root=/dev/mmcblk0p1\n"));  // backup untouched
  auto b = EditExtlinux(conf, {"nohz_full=4-7"}, "backup");
  REQUIRE(b.ok());
  CHECK_THAT(*b, Catch::Contains("APPEND ${cbootargs} root=/dev/mmcblk0p1 nohz_full=4-7\n"));
  auto missing = EditExtlinux(conf, {"nohz_full=4-7"}, "nosuch");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("nosuch"));
  auto noappend = EditExtlinux("LABEL a\n  LINUX /Image\n", {"nohz_full=1"}, "");
  REQUIRE_FALSE(noappend.ok());
  CHECK_THAT(noappend.error().message, Catch::Contains("APPEND"));
}

TEST_CASE("cmdline.txt stays one line; BLS options merged or added", "[tune][boot]") {
  CHECK(EditCmdlineTxt("console=serial0,115200 root=PARTUUID=1-02 rootwait\n", {"isolcpus=3"}) ==
        "console=serial0,115200 root=PARTUUID=1-02 rootwait isolcpus=3\n");
  CHECK(EditBlsEntry("title Debian\nlinux /vmlinuz\noptions root=UUID=x ro\n", {"nohz_full=1"}) ==
        "title Debian\nlinux /vmlinuz\noptions root=UUID=x ro nohz_full=1\n");
  CHECK(EditBlsEntry("title Debian\nlinux /vmlinuz\n", {"nohz_full=1"}) == "title Debian\nlinux /vmlinuz\noptions nohz_full=1\n");
}

TEST_CASE("the boot loader is detected from the files a board has", "[tune][boot]") {
  using profile::BootloaderType;
  TempTree none;
  CHECK(DetectBootloader(FsRoot(none.dir())) == BootloaderType::kPrint);
  TempTree rpi;
  rpi.Put("boot/firmware/cmdline.txt", "console=tty1\n");
  CHECK(DetectBootloader(FsRoot(rpi.dir())) == BootloaderType::kRpi);
  TempTree jetson;
  jetson.Put("boot/extlinux/extlinux.conf", "LABEL primary\n");
  CHECK(DetectBootloader(FsRoot(jetson.dir())) == BootloaderType::kExtlinux);
  TempTree pc;
  pc.Put("etc/default/grub", "GRUB_DEFAULT=0\n");
  CHECK(DetectBootloader(FsRoot(pc.dir())) == BootloaderType::kGrub);
}
