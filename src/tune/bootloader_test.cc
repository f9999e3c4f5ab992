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
  // An extra argument of the profile replaces its own key too.
  CHECK(MergeBootArgs("quiet intel_idle.max_cstate=0", {"intel_idle.max_cstate=1"}) == "quiet intel_idle.max_cstate=1");
  CHECK(StripBootArgs("quiet  nohz_full=3   splash", {}) == "quiet splash");
}

TEST_CASE("GRUB's default files are read as grub-mkconfig sources them", "[tune][boot]") {
  GrubCmdline v;
  SourceGrubFile("# comment\nGRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
                 "GRUB_CMDLINE_LINUX='console=ttyS0,115200 isolcpus=3'\n"
                 "export GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nohz_full=3\"  # more\n"
                 "if [ -e /x ]; then\n  echo hi\nfi\n",
                 "/etc/default/grub", &v);
  CHECK(v.linux == "console=ttyS0,115200 isolcpus=3 nohz_full=3");
  CHECK(v.linux_default == "quiet");
  CHECK(v.unknown.empty());
  CHECK_FALSE(v.bls);
  // A drop-in read after it builds on it (Ubuntu's cloud images set the DEFAULT one there).
  SourceGrubFile("GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} console=tty1\"\nGRUB_ENABLE_BLSCFG=true\n",
                 "50-cloudimg-settings.cfg", &v);
  CHECK(v.linux_default == "quiet console=tty1");
  CHECK(v.bls);
  CHECK(v.Args() == "console=ttyS0,115200 isolcpus=3 nohz_full=3 quiet console=tty1");
  // What rtagent cannot evaluate is said, with its line.
  GrubCmdline u;
  SourceGrubFile("A=1\nGRUB_CMDLINE_LINUX=\"$(cat /etc/args)\"\n", "/etc/default/grub", &u);
  REQUIRE(u.unknown.size() == 1);
  CHECK_THAT(u.unknown[0], Catch::Contains("/etc/default/grub:2: GRUB_CMDLINE_LINUX"));
  // A quoted value over two lines, escaped quotes and a backslash-newline.
  GrubCmdline m;
  SourceGrubFile("GRUB_CMDLINE_LINUX=\"a \\\"b c\\\"\n d\" \nGRUB_CMDLINE_LINUX_DEFAULT=x\\\ny\n", "f", &m);
  CHECK(m.linux == "a \"b c\"\n d");
  CHECK(m.linux_default == "xy");
}

TEST_CASE("the GRUB drop-in takes out the managed arguments /etc/default/grub already has", "[tune][boot]") {
  GrubCmdline clean;
  clean.linux = "console=ttyS0";
  clean.linux_default = "quiet";
  std::string g = RenderGrubDropIn(clean, kArgs, "board.yaml");
  CHECK_THAT(g, Catch::Contains("board.yaml"));
  CHECK_THAT(g, Catch::Contains("update-grub"));
  // Nothing to take out: the variables keep whatever /etc/default/grub says, now and later.
  CHECK_THAT(g, Catch::EndsWith("\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX isolcpus=nohz,domain,managed_irq,2-3 "
                                "nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0-1\"\n"));
  CHECK(g.find("GRUB_CMDLINE_LINUX_DEFAULT=") == std::string::npos);

  GrubCmdline managed;
  managed.linux = "console=ttyS0 isolcpus=3 nohz_full=3";
  managed.linux_default = "quiet splash irqaffinity=0 \"$x\"";
  g = RenderGrubDropIn(managed, kArgs, "board.yaml");
  CHECK_THAT(g, Catch::Contains("\nGRUB_CMDLINE_LINUX=\"console=ttyS0\"\n"));
  CHECK_THAT(g, Catch::Contains("\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash \\\"\\$x\\\"\"\n"));
  // Sourced after /etc/default/grub, the drop-in leaves each argument once.
  GrubCmdline booted = managed;
  SourceGrubFile(g, "90-rtagent.cfg", &booted);
  CHECK(booted.Args() ==
        "console=ttyS0 isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0-1 "
        "quiet splash \"$x\"");
}

TEST_CASE("/etc/default/grub edited in place keeps every other byte (Fedora, RHEL, SUSE)", "[tune][boot]") {
  const std::string text =
      "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"resume=/dev/vda2 rhgb quiet isolcpus=3\"\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"nohz_full=3\"\nGRUB_ENABLE_BLSCFG=true\n";
  auto e = EditGrubDefault(text, {"isolcpus=2-3", "nohz_full=2-3"});
  REQUIRE(e.ok());
  CHECK(*e ==
        "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"resume=/dev/vda2 rhgb quiet isolcpus=2-3 nohz_full=2-3\"\n"
        "GRUB_CMDLINE_LINUX_DEFAULT=\"\"\nGRUB_ENABLE_BLSCFG=true\n");
  // No assignment: one is added at the end.
  auto added = EditGrubDefault("GRUB_TIMEOUT=5", {"nohz_full=1"});
  REQUIRE(added.ok());
  CHECK(*added == "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"nohz_full=1\"\n");
  // A value made by a command is refused with its line, rather than guessed.
  auto refused = EditGrubDefault("X=1\nGRUB_CMDLINE_LINUX=`cat /x`\n", {"nohz_full=1"});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("line 2"));
}

// Found by fuzz/bootfile_fuzz.cc in CI: an APPEND line that starts with a NUL byte (a damaged
// file) was cut after the NUL, so the next edit saw no APPEND there and edited the entry's
// second APPEND line: apply's edit was not the edit that verify planned again.
TEST_CASE("fuzz bootfile: an extlinux.conf APPEND line that starts with a NUL byte is edited to itself", "[tune][boot]") {
  using namespace std::string_literals;
  const std::string conf = "TIMEOUT 30\n\nLABEL primary\n      LINUX /boot/Image\n"s + '\0' +
                           "      APPEND ${cbootargs} INITRD /boot/initrd\n"s + '\0' +
                           "      APPEND ${cbootargs} root=/dev/mmcblk0p1 rw\n"s;
  const std::vector<std::string> args = {"isolcpus=2-3", "nohz_full=2-3"};
  auto once = EditExtlinux(conf, args, "");
  REQUIRE(once.ok());
  // The first APPEND of the entry is the one edited, its NUL, indentation and keyword kept.
  CHECK_THAT(*once, Catch::Contains(std::string(1, '\0') + "      APPEND ${cbootargs} INITRD /boot/initrd isolcpus=2-3 nohz_full=2-3\n"));
  CHECK_THAT(*once, Catch::Contains(std::string(1, '\0') + "      APPEND ${cbootargs} root=/dev/mmcblk0p1 rw\n"));
  auto twice = EditExtlinux(*once, args, "");
  REQUIRE(twice.ok());
  CHECK(*twice == *once);
  CHECK(FindExtlinuxEntry(*once, "")->append == "${cbootargs} INITRD /boot/initrd isolcpus=2-3 nohz_full=2-3");
}

TEST_CASE("extlinux.conf: the DEFAULT entry's APPEND is merged, ${cbootargs} and the other labels kept", "[tune][boot]") {
  const char* conf =
      "TIMEOUT 30\nDEFAULT primary\n\nMENU TITLE L4T boot options\n\nLABEL backup\n      LINUX /boot/Image.bak\n"
      "      APPEND ${cbootargs} root=/dev/mmcblk0p1\n\nLABEL primary\n      MENU LABEL primary kernel\n"
      "      LINUX /boot/Image\n      APPEND ${cbootargs} root=/dev/nvme0n1p1 rw isolcpus=4 quiet\n";
  auto entry = FindExtlinuxEntry(conf, "");
  REQUIRE(entry.ok());
  CHECK(entry->label == "primary");
  CHECK(entry->why == "DEFAULT primary");
  CHECK(entry->append == "${cbootargs} root=/dev/nvme0n1p1 rw isolcpus=4 quiet");
  auto r = EditExtlinux(conf, {"isolcpus=4-7", "nohz_full=4-7"}, "");
  REQUIRE(r.ok());
  CHECK_THAT(*r, Catch::Contains("      APPEND ${cbootargs} root=/dev/nvme0n1p1 rw quiet isolcpus=4-7 nohz_full=4-7\n"));
  CHECK_THAT(*r, Catch::Contains("      APPEND ${cbootargs} root=/dev/mmcblk0p1\n"));  // backup untouched
  CHECK_THAT(*r, Catch::StartsWith("TIMEOUT 30\nDEFAULT primary\n\nMENU TITLE L4T boot options\n\nLABEL backup\n"));
  auto b = EditExtlinux(conf, {"nohz_full=4-7"}, "backup");
  REQUIRE(b.ok());
  CHECK_THAT(*b, Catch::Contains("APPEND ${cbootargs} root=/dev/mmcblk0p1 nohz_full=4-7\n"));
  auto missing = EditExtlinux(conf, {"nohz_full=4-7"}, "nosuch");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("nosuch"));
  auto noappend = EditExtlinux("LABEL a\n  LINUX /Image\n", {"nohz_full=1"}, "");
  REQUIRE_FALSE(noappend.ok());
  CHECK_THAT(noappend.error().message, Catch::Contains("APPEND"));
  // A menu's default entry (syslinux and U-Boot's MENU DEFAULT), lower-case keywords.
  auto menu = FindExtlinuxEntry("label one\n append a\nlabel two\n menu default\n append b\n", "");
  REQUIRE(menu.ok());
  CHECK(menu->label == "two");
  CHECK(menu->why == "MENU DEFAULT");
  auto first = FindExtlinuxEntry("LABEL one\n APPEND a\nLABEL two\n APPEND b\n", "");
  REQUIRE(first.ok());
  CHECK(first->label == "one");
  auto dangling = FindExtlinuxEntry("DEFAULT gone\nLABEL one\n APPEND a\n", "");
  REQUIRE_FALSE(dangling.ok());
  CHECK_THAT(dangling.error().message, Catch::Contains("\"gone\" (DEFAULT gone)"));
}

TEST_CASE("cmdline.txt stays one line, kernel-install's fallback drops the loader's own arguments", "[tune][boot]") {
  CHECK(EditCmdlineTxt("console=serial0,115200 root=PARTUUID=1-02 rootwait\n", {"isolcpus=3"}) ==
        "console=serial0,115200 root=PARTUUID=1-02 rootwait isolcpus=3\n");
  CHECK(EditCmdlineTxt("a=1\nb=2\n", {"isolcpus=3"}) == "a=1 isolcpus=3\n");
  CHECK(IsMovedCmdlineNote("DO NOT EDIT THIS FILE\n\nThe file you are looking for has moved to /boot/firmware/cmdline.txt\n"));
  CHECK_FALSE(IsMovedCmdlineNote("console=serial0,115200 root=PARTUUID=1-02\n"));
  CHECK(KernelInstallDefaultCmdline("initrd=\\initrd.img BOOT_IMAGE=/vmlinuz root=UUID=x ro quiet") == "root=UUID=x ro quiet");
}

TEST_CASE("BLS entries: options merged, the menu order and the default systemd-boot and GRUB pick", "[tune][boot]") {
  CHECK(EditBlsEntry("title Debian\nlinux /vmlinuz\noptions root=UUID=x ro\n", {"nohz_full=1"}) ==
        "title Debian\nlinux /vmlinuz\noptions root=UUID=x ro nohz_full=1\n");
  CHECK(EditBlsEntry("title Debian\nlinux /vmlinuz\n", {"nohz_full=1"}) == "title Debian\nlinux /vmlinuz\noptions nohz_full=1\n");
  // Several options lines: the first gets the arguments, later ones lose managed ones.
  CHECK(EditBlsEntry("options root=x\noptions quiet nohz_full=3\n", {"nohz_full=1"}) ==
        "options root=x nohz_full=1\noptions quiet\n");

  BlsEntry e = ParseBlsEntry("abc+3-1.conf", "title Fedora\nversion 6.12.0\noptions a\noptions b\n# options c\n");
  CHECK(e.options == "a b");
  CHECK(e.Id() == "abc.conf");
  CHECK(BlsPatternMatches("ABC", e));
  CHECK(BlsPatternMatches("abc*.conf", e));
  CHECK_FALSE(BlsPatternMatches("abd*", e));

  std::vector<BlsEntry> entries = {ParseBlsEntry("0-rescue.conf", "title Rescue\nversion 0-rescue\n"),
                                   ParseBlsEntry("abc-6.1.0.conf", "version 6.1.0\nlinux /vmlinuz-6.1.0\n"),
                                   ParseBlsEntry("abc-6.12.0-rt.conf", "version 6.12.0-rt\nlinux /abc/6.12.0-rt/linux\n"),
                                   ParseBlsEntry("abc-6.9.0.conf", "version 6.9.0\nlinux /vmlinuz-6.9.0\n")};
  SortBlsEntries(&entries);
  CHECK(entries[0].file == "abc-6.12.0-rt.conf");  // newest version first, by id
  CHECK(entries[1].file == "abc-6.9.0.conf");
  // loader.conf names the default: not the first file, never the rescue entry.
  BlsChoice named = ChooseBlsEntries(entries, "", "", "abc-6.1.0.conf", "", "6.12.0-rt");
  CHECK(named.files == std::vector<std::string>{"abc-6.1.0.conf"});
  CHECK(named.why == "loader.conf default abc-6.1.0.conf");
  // A glob: the first match in menu order, the newest.
  BlsChoice glob = ChooseBlsEntries(entries, "", "", "abc-6.*", "", "");
  CHECK(glob.files == std::vector<std::string>{"abc-6.12.0-rt.conf"});
  CHECK(ChooseBlsEntries(entries, "", "", "*-6.[19].[0-9].conf", "", "").files ==
        std::vector<std::string>{"abc-6.9.0.conf"});
  // The EFI variable (bootctl set-default) overrides loader.conf; the profile overrides both.
  CHECK(ChooseBlsEntries(entries, "", "abc-6.1.0.conf", "abc-6.9*", "", "").files.front() == "abc-6.1.0.conf");
  CHECK(ChooseBlsEntries(entries, "abc-6.9.0.conf", "abc-6.1.0.conf", "", "", "").files.front() == "abc-6.9.0.conf");
  // GRUB's saved_entry names the id without .conf.
  BlsChoice saved = ChooseBlsEntries(entries, "", "", "", "abc-6.9.0", "");
  CHECK(saved.files == std::vector<std::string>{"abc-6.9.0.conf"});
  CHECK(saved.why == "grubenv saved_entry=abc-6.9.0");
  // No default: every entry of the running kernel (by version or by its image's name).
  BlsChoice running = ChooseBlsEntries(entries, "", "", "", "", "6.1.0");
  CHECK(running.files == std::vector<std::string>{"abc-6.1.0.conf"});
  CHECK_THAT(running.why, Catch::Contains("running kernel 6.1.0"));
  // The rescue entry is never edited, even when named.
  BlsChoice rescue = ChooseBlsEntries(entries, "", "", "0-rescue*", "", "");
  CHECK(rescue.files.empty());
  CHECK_THAT(rescue.problem, Catch::Contains("rescue"));
  BlsChoice none = ChooseBlsEntries(entries, "", "", "", "", "5.10.0");
  CHECK(none.files.empty());
  CHECK_THAT(none.problem, Catch::Contains("cores.bootloader.entry"));
  CHECK(ChooseBlsEntries({}, "", "", "", "", "").problem == "there is no boot entry (*.conf)");
}

TEST_CASE("loader.conf, grubenv and EFI variables are read for the default entry", "[tune][boot]") {
  CHECK(LoaderConfDefault("timeout 3\n#default x\ndefault abc-*\n") == "abc-*");
  CHECK(LoaderConfDefault("timeout 3\n") == "");
  CHECK(GrubenvSavedEntry("# GRUB Environment Block\nsaved_entry=abc-6.1.0\nboot_success=1\n####") == "abc-6.1.0");
  const std::string var("\x06\x00\x00\x00" "a\0b\0c\0.\0c\0o\0n\0f\0\0\0", 22);
  CHECK(EfiVarString(var) == "abc.conf");
  CHECK(EfiVarString("xx") == "");
}

TEST_CASE("the boot loader is detected from the files a board has, and says why", "[tune][boot]") {
  using profile::BootloaderType;
  auto detect = [](const std::vector<std::pair<std::string, std::string>>& files) {
    TempTree t;
    for (const auto& [path, text] : files) t.Put(path, text);
    return DetectBootloader(FsRoot(t.dir()));
  };
  CHECK(detect({}).type == BootloaderType::kPrint);
  BootloaderGuess g = detect({{"boot/firmware/cmdline.txt", "console=tty1\n"}});
  CHECK(g.type == BootloaderType::kRpi);
  CHECK_THAT(g.why, Catch::Contains("Bookworm"));
  CHECK(detect({{"boot/cmdline.txt", "console=tty1\n"}}).type == BootloaderType::kRpi);
  // Bookworm's /boot/cmdline.txt is only a note that the file moved.
  CHECK(detect({{"boot/cmdline.txt", "DO NOT EDIT THIS FILE\n"}}).type == BootloaderType::kPrint);
  CHECK(detect({{"boot/extlinux/extlinux.conf", "LABEL primary\n"}}).type == BootloaderType::kExtlinux);
  CHECK(detect({{"etc/default/grub", "GRUB_DEFAULT=0\n"}}).type == BootloaderType::kGrub);
  // systemd-boot wins over a /etc/default/grub left from before it.
  g = detect({{"efi/loader/loader.conf", "default abc-*\n"}, {"etc/default/grub", "GRUB_DEFAULT=0\n"}});
  CHECK(g.type == BootloaderType::kBls);
  CHECK_THAT(g.why, Catch::Contains("/efi/loader/loader.conf"));
  CHECK(detect({{"efi/loader/loader.conf", ""}, {"etc/kernel/cmdline", "root=UUID=x\n"}}).type ==
        BootloaderType::kKernelInstall);
  CHECK(detect({{"boot/loader/entries/a.conf", "title a\n"}}).type == BootloaderType::kBls);
}

TEST_CASE("GRUB's flavour: Debian's update-grub, grub2-mkconfig, grubby with BLS", "[tune][boot]") {
  GrubCmdline plain, bls;
  bls.bls = true;
  TempTree bare;
  CHECK(DetectGrubFlavour(FsRoot(bare.dir()), plain).flavour == GrubFlavour::kDebian);
  TempTree debian;
  debian.Put("usr/sbin/update-grub", "");
  CHECK(DetectGrubFlavour(FsRoot(debian.dir()), bls).flavour == GrubFlavour::kDebian);
  TempTree fedora;
  fedora.Put("usr/sbin/grub2-mkconfig", "");
  GrubSystem f = DetectGrubFlavour(FsRoot(fedora.dir()), plain);
  CHECK(f.flavour == GrubFlavour::kMkconfig);
  CHECK_THAT(f.why, Catch::Contains("grub2-mkconfig"));
  CHECK(DetectGrubFlavour(FsRoot(fedora.dir()), bls).flavour == GrubFlavour::kGrubby);
  TempTree suse;
  suse.Put("boot/grub2/grub.cfg", "");
  CHECK(DetectGrubFlavour(FsRoot(suse.dir()), plain).flavour == GrubFlavour::kMkconfig);
}

TEST_CASE("fuzz bootfile: arguments after a quote left open are not swallowed, and a second edit changes nothing", "[tune][boot]") {
  // fuzz/bootfile_fuzz.cc: a BLS options line with an unterminated '"' made the appended
  // arguments part of the quoted value (the kernel reads an open quote to the end of the line),
  // so the edit was not idempotent: every apply appended them again and verify never passed.
  const std::vector<std::string> args = {"isolcpus=2-3", "nohz_full=2-3"};
  const std::string entry = "title T\nlinux /vmlinuz\noptions root=UUID=abc quiet dyndbg=\"file x.c +p\n";
  const std::string once = EditBlsEntry(entry, args);
  CHECK(once == "title T\nlinux /vmlinuz\noptions root=UUID=abc quiet dyndbg=\"file x.c +p\" isolcpus=2-3 nohz_full=2-3\n");
  CHECK(EditBlsEntry(once, args) == once);
  CHECK(SplitBootArgs(once.substr(once.find("options ") + 8)).back() == "nohz_full=2-3");
  CHECK(MergeBootArgs("a \"b", args) == "a \"b\" isolcpus=2-3 nohz_full=2-3");
  CHECK(MergeBootArgs("a \"b c\"", args) == "a \"b c\" isolcpus=2-3 nohz_full=2-3");  // a closed quote is left alone
}

TEST_CASE("fuzz bootfile: a BLS options line whose argument ends in a form feed is edited to itself the second time", "[tune][boot]") {
  // fuzz/bootfile_fuzz.cc (CI run of 850fb75): the second options line of an entry kept
  // "\xff\f" as one argument; editing the edited entry trimmed the form feed, so each apply
  // changed the file again. The kernel splits at \v and \f as at a space (next_arg()).
  const std::vector<std::string> args = {"isolcpus=2-3", "nohz_full=2-3"};
  const std::string entry = std::string("title T\nlinux /vmlinuz\noptions root=UUID=abc quiet\noptions \xff\xff\f   isolcpus=2\n"
                                        "options a\vb\n");
  const std::string once = EditBlsEntry(entry, args);
  CHECK(once == "title T\nlinux /vmlinuz\noptions root=UUID=abc quiet isolcpus=2-3 nohz_full=2-3\noptions \xff\xff\noptions a b\n");
  CHECK(EditBlsEntry(once, args) == once);
  CHECK(SplitBootArgs(std::string_view("a\fb\vc\0d", 8)) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(SplitBootArgs("x=\"a\fb\" y") == std::vector<std::string>{"x=\"a\fb\"", "y"});  // quoted: kept
}

TEST_CASE("fuzz bootfile: an /etc/default/grub whose edit does not read back is refused", "[tune][boot]") {
  // fuzz/bootfile_fuzz.cc: a quote left open on an earlier line ran on through the
  // GRUB_CMDLINE_LINUX line rtagent added, so the edit was invisible to the shell and every
  // apply added the line again. EditGrubDefault now reads its own edit back.
  auto r = EditGrubDefault("GRUB_TIMEOUT=5\nsaved_entry=a\"b\n", kArgs);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("etc/default/grub") && Catch::Contains("quote left open"));
  auto ok = EditGrubDefault("GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"quiet\"\n", kArgs);
  REQUIRE(ok.ok());
  CHECK(EditGrubDefault(*ok, kArgs).value() == *ok);
}

TEST_CASE("fuzz bootfile: the word export inside GRUB_CMDLINE_LINUX's value does not make the line an export", "[tune][boot]") {
  // fuzz/bootfile_fuzz.cc: the editor looked for "export " anywhere in the statement, so a value
  // holding that word (after the first edit had quoted it) gained an `export` keyword on the
  // second apply: the file changed again on every apply.
  const std::string text = "GRUB_CMDLINE_LINUX=abc{export GRUB_X='a b'\n";
  auto once = EditGrubDefault(text, kArgs);
  REQUIRE(once.ok());
  CHECK(once->rfind("GRUB_CMDLINE_LINUX=\"abc{export ", 0) == 0);
  auto twice = EditGrubDefault(*once, kArgs);
  REQUIRE(twice.ok());
  CHECK(*twice == *once);
  // A real `export` keyword is kept.
  auto exported = EditGrubDefault("export GRUB_CMDLINE_LINUX=\"quiet\"\n", kArgs);
  REQUIRE(exported.ok());
  CHECK(exported->rfind("export GRUB_CMDLINE_LINUX=\"quiet ", 0) == 0);
  CHECK(EditGrubDefault(*exported, kArgs).value() == *exported);
}
