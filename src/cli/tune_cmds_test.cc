// plan, apply, verify, revert and commission as a user runs them, on copies of the fixtures.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "base/tree_test_support.h"
#include "base/shell_test_support.h"
#include "base/fault_root.h"
#include "report/test_verdict.h"
#include "service/hold_state.h"
#include "tune/journal.h"
#include "tune/refusals.h"

using namespace rtagent;
namespace fs = std::filesystem;

namespace {

const std::string kArm = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kProfiles = std::string(RTAGENT_SOURCE_DIR) + "/profiles";
const std::string kQemuArm64Profile = std::string(RTAGENT_SOURCE_DIR) + "/tests/qemu/profiles/arm64-qemu.yaml";

struct Run {
  int code = -1;
  std::string out;
};

Run Rt(const std::string& args) {
  std::string cmd = std::string(RTAGENT_BINARY) + " " + args + " 2>&1";
  Run r;
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  r.code = s.code;
  r.out = s.out;
  return r;
}

std::map<std::string, std::string> Snapshot(const std::string& dir) { return rtagent::test::SnapshotTree(dir); }

}  // namespace

TEST_CASE("plan writes nothing and shows before -> after by section", "[cli][plan]") {
  TempTree t(kArm);
  auto before = Snapshot(t.dir());
  Run r = Rt("plan " + kProfiles + "/generic-4core.yaml --root " + t.dir());
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("irqs"));
  CHECK_THAT(r.out, Catch::Contains("IRQ 85 (eth0) affinity"));
  CHECK_THAT(r.out, Catch::Contains("reboot required"));
  CHECK(Snapshot(t.dir()) == before);

  Run j = Rt("plan " + kProfiles + "/generic-4core.yaml --json --root " + t.dir());
  REQUIRE(j.code == 0);
  auto doc = nlohmann::json::parse(j.out.substr(j.out.find('{')));
  CHECK(doc["summary"]["pending"].get<int>() > 0);
  CHECK(doc["summary"]["reboot_required"].get<int>() > 0);
  bool irq85 = false;
  for (const auto& s : doc["sections"]) {
    for (const auto& c : s["changes"]) irq85 |= c["key"] == "proc/irq/85/smp_affinity_list" && c["after"] == "0-1";
  }
  CHECK(irq85);
  CHECK(Snapshot(t.dir()) == before);
}

TEST_CASE("plan marks a change the kernel refused at the last apply, and goes on when the record is bad",
          "[cli][plan]") {
  TempTree t(kArm);
  const std::string irq85 = "proc/irq/85/smp_affinity_list";
  FsRoot root(t.dir());
  // As apply leaves it when the kernel refuses IRQ 85 (0-3 kept, 0-1 wanted).
  REQUIRE(RefusalRecord::Store(root, {{"irqs", "IRQ 85 (eth0) affinity", "file", irq85, "0-1", "0-3", Compare::kCpuList,
                                       "a managed IRQ: refused"}}).ok());
  const std::string args = "plan " + kProfiles + "/generic-4core.yaml --root " + t.dir();
  Run r = Rt(args);
  CHECK(r.code == 0);
  // The item's row (no std::regex over the whole output: its recursion overflows the stack
  // under ASan, as CI's sanitizer stage found).
  const size_t at = r.out.find("IRQ 85 (eth0) affinity");
  REQUIRE(at != std::string::npos);
  const std::string row = r.out.substr(at, r.out.find('\n', at) - at);
  CHECK_THAT(row, Catch::Matches("IRQ 85 \\(eth0\\) affinity +0-3 +-> +0-1 +now \\(refused before\\) *"));
  CHECK_THAT(r.out, Catch::Contains("1 change was refused by the kernel at the last apply, which keeps its value "
                                    "(a managed IRQ: refused): apply tries again and reports what it still refuses as "
                                    "unchangeable"));
  Run j = Rt(args + " --json");
  REQUIRE(j.code == 0);
  auto doc = nlohmann::json::parse(j.out.substr(j.out.find('{')));
  int marked = 0;
  for (const auto& s : doc["sections"]) {
    for (const auto& c : s["changes"]) {
      if (!c.contains("refused_by_kernel")) continue;
      ++marked;
      CHECK(c["key"] == irq85);
      CHECK(c["refused_by_kernel"] == "a managed IRQ: refused");
    }
  }
  CHECK(marked == 1);

  // Moved since by something else: a plain change again.
  t.Put(irq85, "2\n");
  Run moved = Rt(args);
  CHECK_THAT(moved.out, !Catch::Contains("refused"));

  // A record plan cannot read: said on stderr, and the plan is the plain one.
  t.Put(RefusalRecord::Path(), "not json");
  Run bad = Rt(args);
  CHECK(bad.code == 0);
  CHECK_THAT(bad.out, Catch::Contains("rtagent plan: " + t.dir() + "/" + RefusalRecord::Path() +
                                      ": not the record of refusals rtagent writes") &&
                          Catch::Contains("the kernel's refusals are not shown") &&
                          Catch::Contains("IRQ 85 (eth0) affinity"));
}

TEST_CASE("apply, verify, apply again, revert: the user's round trip", "[cli][apply]") {
  TempTree t(kArm);
  const std::string profile = kProfiles + "/generic-4core.yaml --root " + t.dir();
  Run v0 = Rt("verify " + profile);
  CHECK(v0.code == 1);
  CHECK_THAT(v0.out, Catch::Contains("FAIL    conformance.irqs") && Catch::Contains("IRQ 85 (eth0) affinity"));

  Run a = Rt("apply " + profile);
  INFO(a.out);
  REQUIRE(a.code == 0);
  CHECK_THAT(a.out, Catch::Contains("applied"));
  CHECK(t.Get("proc/irq/85/smp_affinity_list") == "0-1\n");
  CHECK(fs::exists(t.dir() + "/run/rtagent/journal.json"));

  Run v1 = Rt("verify " + profile);
  INFO(v1.out);
  CHECK(v1.code == 0);
  CHECK_THAT(v1.out, Catch::Contains("PASS"));

  Run again = Rt("apply " + profile + " --json");
  REQUIRE(again.code == 0);
  auto doc = nlohmann::json::parse(again.out.substr(again.out.find('{')));
  CHECK(doc["summary"]["applied"].get<int>() == 0);

  Run rv = Rt("revert --root " + t.dir());
  INFO(rv.out);
  CHECK(rv.code == 0);
  CHECK_THAT(rv.out, Catch::Contains("restored"));
  CHECK(t.Get("proc/irq/85/smp_affinity_list") == "0-3\n");
  CHECK_FALSE(fs::exists(t.dir() + "/run/rtagent/journal.json"));

  Run nothing = Rt("revert --root " + t.dir());
  CHECK(nothing.code == 0);
  CHECK_THAT(nothing.out, Catch::Contains("nothing to revert"));
}

TEST_CASE("revert --json lists each journaled value with what became of it", "[cli][apply]") {
  TempTree t(kArm);
  Run a = Rt("apply " + kProfiles + "/generic-4core.yaml --root " + t.dir());
  INFO(a.out);
  REQUIRE(a.code == 0);
  t.Put("proc/irq/85/smp_affinity_list", "0-3\n");  // someone put this one back already

  Run rv = Rt("revert --json --root " + t.dir());
  INFO(rv.out);
  REQUIRE(rv.code == 0);
  auto doc = nlohmann::json::parse(rv.out.substr(rv.out.find('{')));
  CHECK(doc["complete"] == true);
  std::map<std::string, int> outcomes;
  const nlohmann::json* irq85 = nullptr;
  for (const auto& item : doc["items"]) {
    ++outcomes[item["outcome"].get<std::string>()];
    if (item["key"] == "proc/irq/85/smp_affinity_list") irq85 = &item;
  }
  REQUIRE(irq85 != nullptr);
  CHECK((*irq85)["outcome"] == "already");
  CHECK((*irq85)["restored"] == "0-3");
  CHECK(outcomes["restored"] > 0);  // the rest were written back
  CHECK(outcomes["failed"] == 0);
  CHECK(outcomes["already"] + outcomes["restored"] + outcomes["gone"] == static_cast<int>(doc["items"].size()));
  CHECK(t.Get("proc/irq/85/smp_affinity_list") == "0-3\n");
  CHECK_FALSE(fs::exists(t.dir() + "/run/rtagent/journal.json"));
}

TEST_CASE("apply refuses bad input, and stops before its first write when it cannot journal", "[cli][apply]") {
  TempTree t(kArm);
  auto before = Snapshot(t.dir());
  t.Put("bad.yaml", "cores:\n  housekeeping: 0-3\n  isolatd: 4-7\n");
  Run bad = Rt("apply " + t.dir() + "/bad.yaml --root " + t.dir());
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("bad.yaml:3:3"));
  CHECK_THAT(bad.out, Catch::Contains("nothing was changed"));

  // /run is a file: neither the writers' lock nor the journal can be made there, so apply
  // stops before its first write (exit 3; a journal that fails later is rolled back, exit 4:
  // executor_test.cc).
  t.Put("run", "not a directory");
  Run a = Rt("apply " + kProfiles + "/generic-4core.yaml --root " + t.dir());
  INFO(a.out);
  CHECK(a.code == 3);
  CHECK_THAT(a.out, Catch::Contains("cannot create directory " + t.dir() + "/run: a file is in the way") &&
                        Catch::Contains("nothing was changed"));
  auto after = Snapshot(t.dir());
  after.erase("run");
  after.erase("bad.yaml");
  CHECK(after == before);
}

TEST_CASE("a corrupt journal stops apply and revert with its name", "[cli][apply]") {
  TempTree t(kArm);
  t.Put("run/rtagent/journal.json", "{ truncated");
  Run a = Rt("apply " + kProfiles + "/generic-4core.yaml --root " + t.dir());
  CHECK(a.code == 3);
  CHECK_THAT(a.out, Catch::Contains("journal.json"));
  Run r = Rt("revert --root " + t.dir());
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("corrupt"));
}

TEST_CASE("apply, revert and commission refuse while a hold holds the system, and say which", "[cli][apply]") {
  TempTree t(kArm);
  const std::string profile = kProfiles + "/generic-4core.yaml --root " + t.dir();
  // A hold that runs as process 4242, holding the package's profile.
  service::HoldState held;
  held.pid = 4242;
  held.state = "holding";
  held.profile = "/etc/rtagent/profile.yaml";
  t.Put("run/rtagent/state.json", service::ToJson(held).dump(2) + "\n");
  t.Put("proc/4242/comm", "rtagent\n");
  const auto before = Snapshot(t.dir());

  for (const std::string& cmd : {"apply " + profile, "revert --root " + t.dir(),
                                 "commission " + profile + " --duration 1s --out " + t.dir() + "/verdict"}) {
    Run r = Rt(cmd);
    INFO(cmd << "\n" << r.out);
    CHECK(r.code == 3);
    CHECK_THAT(r.out, Catch::Contains("rtagent hold (process 4242) is holding /etc/rtagent/profile.yaml") &&
                          Catch::Contains("systemctl stop rtagent.service") && Catch::Contains("nothing was changed"));
    CHECK(Snapshot(t.dir()) == before);
  }

  // The pid now belongs to another program (the hold died without saying so): apply goes ahead.
  t.Put("proc/4242/comm", "bash\n");
  Run reused = Rt("apply " + profile);
  INFO(reused.out);
  CHECK(reused.code == 0);
  CHECK(t.Get("proc/irq/85/smp_affinity_list") == "0-1\n");
  Run rv = Rt("revert --root " + t.dir());
  CHECK(rv.code == 0);

  // A hold that stopped (its state says so) stops nothing either, even with its pid alive.
  held.state = "stopped";
  t.Put("run/rtagent/state.json", service::ToJson(held).dump(2) + "\n");
  t.Put("proc/4242/comm", "rtagent\n");
  Run stopped = Rt("apply " + profile);
  INFO(stopped.out);
  CHECK(stopped.code == 0);
}

TEST_CASE("apply, revert, commission and hold refuse while another rtagent writes the journal, and say which",
          "[cli][apply]") {
  TempTree t(kArm);
  const auto pristine = Snapshot(t.dir());
  const std::string profile = kProfiles + "/generic-4core.yaml --root " + t.dir();
  // Another rtagent's apply holds the lock (a lock of this process's own: the binary opens the file anew).
  FsRoot root(t.dir());
  auto held = root.TryLock(Journal::LockPath(), "process 4343 (rtagent apply)");
  REQUIRE(held.ok());
  CHECK(t.Get("run/rtagent/lock") == "process 4343 (rtagent apply)\n");
  auto second = root.TryLock(Journal::LockPath(), "process 1 (rtagent revert)");
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().err == EWOULDBLOCK);
  CHECK(second.error().message == "process 4343 (rtagent apply)");
  const auto before = Snapshot(t.dir());

  for (const std::string& cmd : {"apply " + profile, "revert --root " + t.dir(), "hold --once " + profile,
                                 "commission " + profile + " --duration 1s --out " + t.dir() + "/verdict"}) {
    Run r = Rt(cmd);
    INFO(cmd << "\n" << r.out);
    CHECK(r.code == 3);
    CHECK_THAT(r.out, Catch::Contains("another rtagent is changing the tuning here: process 4343 (rtagent apply)") &&
                          Catch::Contains("nothing was changed"));
    CHECK(Snapshot(t.dir()) == before);
  }

  // Released: the lock file and the directories made for it are gone, and apply goes ahead,
  // leaving no lock behind.
  held->reset();
  CHECK(Snapshot(t.dir()) == pristine);
  Run applied = Rt("apply " + profile);
  INFO(applied.out);
  CHECK(applied.code == 0);
  CHECK_FALSE(fs::exists(t.dir() + "/run/rtagent/lock"));
  CHECK(Rt("revert --root " + t.dir()).code == 0);

  // A link where the lock belongs is not followed (O_NOFOLLOW): the lock cannot be taken, exit 3.
  fs::create_directories(t.dir() + "/run/rtagent");
  fs::create_symlink(t.dir() + "/elsewhere", t.dir() + "/run/rtagent/lock");
  Run link = Rt("apply " + profile);
  INFO(link.out);
  CHECK(link.code == 3);
  CHECK_THAT(link.out, Catch::Contains("cannot open " + t.dir() + "/run/rtagent/lock") &&
                           Catch::Contains("the lock that keeps two rtagents from writing the journal at once cannot be "
                                           "taken; nothing was changed"));
  CHECK_FALSE(fs::exists(t.dir() + "/elsewhere"));
}

// What a run did when SIGTERM reached it in the middle.
struct Signalled {
  bool sent = false;
  int status = 0;
  std::string out;
};

// Runs `rtagent --root DIR ARGS...` with the file `rel` under DIR made a FIFO: the run waits in it
// until the test writes, so the SIGTERM (sent the first time the FIFO has a reader) comes while
// it runs, never before it started. Every open of the FIFO is fed `value`; the file is put back
// as a plain file holding `value` afterwards.
Signalled RunSignalledInFifo(TempTree& t, const std::string& rel, const std::string& value,
                             const std::vector<std::string>& args) {
  const std::string fifo = t.dir() + "/" + rel;
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string out = t.dir() + "/run.out";
  std::vector<std::string> argv_s = {"rtagent", "--root", t.dir()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(RTAGENT_BINARY, argv.data());
    ::_exit(127);
  }
  Signalled r;
  // The run may close the FIFO before the test's write lands: EPIPE, not a SIGPIPE that ends the test.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  while (::waitpid(pid, &r.status, WNOHANG) == 0) {
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // ENXIO until the run opens it to read
    if (fd < 0) {
      ::usleep(10000);
      continue;
    }
    if (!r.sent) r.sent = ::kill(pid, SIGTERM) == 0;
    (void)!::write(fd, value.data(), value.size());
    ::close(fd);
  }
  ::sigaction(SIGPIPE, &old, nullptr);
  std::ifstream in(out);
  r.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  fs::remove(out);
  fs::remove(fifo);
  t.Put(rel, value);
  return r;
}

const char kIdleState8[] = "sys/devices/system/cpu/cpu3/cpuidle/state8/disable";

TEST_CASE("apply stopped by SIGTERM while it plans rolls back and says so, instead of dying", "[cli][apply]") {
  TempTree t(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu");
  const auto before = Snapshot(t.dir());
  const Signalled r = RunSignalledInFifo(t, kIdleState8, t.Get(kIdleState8), {"apply", kProfiles + "/x86-ipc.yaml"});
  INFO(r.out);
  CHECK(r.sent);
  REQUIRE(WIFEXITED(r.status));  // not killed by the signal
  CHECK(WEXITSTATUS(r.status) == 4);
  CHECK_THAT(r.out, Catch::Contains("stopped by a signal before this change was written") &&
                        Catch::Contains("apply was stopped by a signal and rolled back"));
  CHECK(Snapshot(t.dir()) == before);  // nothing written, no journal, no lock left
}

TEST_CASE("revert stopped by SIGTERM puts back what it can first, then says it was stopped", "[cli][apply]") {
  TempTree t(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu");
  const std::string irq = "proc/irq/126/smp_affinity_list";
  const std::string irq_before = t.Get(irq);
  REQUIRE(Rt("apply " + kProfiles + "/x86-ipc.yaml --root " + t.dir()).code == 0);
  REQUIRE(t.Get(irq) != irq_before);
  // Revert waits in the idle state's file (applied 1, to be put back to 0) as the signal comes.
  const Signalled r = RunSignalledInFifo(t, kIdleState8, "1\n", {"revert"});
  INFO(r.out);
  CHECK(r.sent);
  REQUIRE(WIFEXITED(r.status));  // not killed by the signal
  CHECK_THAT(r.out, Catch::Contains("rtagent revert: stopped by a signal after every value it could put back was put back"));
  CHECK(t.Get(irq) == irq_before);  // the values after the one it waited in were put back too
}

TEST_CASE("apply says a reboot alone brings nothing when it wrote no boot loader file", "[cli][apply]") {
  TempTree printed(kArm);  // generic-4core.yaml: cores.bootloader: print
  Run p = Rt("apply " + kProfiles + "/generic-4core.yaml --root " + printed.dir());
  INFO(p.out);
  CHECK(p.code == 0);
  CHECK_THAT(p.out, Catch::Contains("5 at the next boot\nreboot required, after you add the boot arguments yourself: no "
                                    "boot loader file was written (cores.bootloader: print)"));
  CHECK_THAT(p.out, !Catch::Contains("takes effect at the next boot"));
  TempTree missing(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu");  // grub, without /etc/default/grub
  Run m = Rt("apply " + kProfiles + "/x86-ipc.yaml --root " + missing.dir());
  INFO(m.out);
  CHECK(m.code == 0);
  CHECK_THAT(m.out, Catch::Contains("no boot loader file was written (the boot file is missing)"));
  // With the file there it is written, and the reboot is all that is left.
  missing.Put("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"\"\n");
  CHECK(Rt("revert --root " + missing.dir()).code == 0);
  Run g = Rt("apply " + kProfiles + "/x86-ipc.yaml --root " + missing.dir());
  INFO(g.out);
  CHECK_THAT(g.out, Catch::Contains("reboot required: the kernel command line above takes effect at the next boot"));
}

// commission: src/cli/commission_cmd_test.cc

// The arm64 QEMU guest's capture (tests/sysroots/debian12-rt-arm64-qemu) with the profile the
// aarch64 scenario applies there: the whole plan, word for word. The guest booted with these
// isolation arguments, so nothing in it needs a reboot.
TEST_CASE("plan of the arm64 QEMU profile on the arm64 guest's capture matches the expected file", "[cli]") {
  Run r = Rt("plan " + kQemuArm64Profile + " --root " + std::string(RTAGENT_SOURCE_DIR) +
             "/tests/sysroots/debian12-rt-arm64-qemu");
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::string text = r.out;
  const std::string src = std::string(RTAGENT_SOURCE_DIR) + "/";
  for (size_t at = text.find(src); at != std::string::npos; at = text.find(src, at)) text.erase(at, src.size());
  rtagent::testing::CheckExpected("plans/debian12-rt-arm64-qemu.arm64-qemu.plan.txt", text);
  CHECK_THAT(text, !Catch::Contains("reboot required"));
}

TEST_CASE("apply then revert leaves every fixture byte-identical", "[cli][apply]") {
  struct Case {
    std::string tree, profile;
  };
  const std::string s = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/";
  for (const Case& c : {Case{"arm64-rt-8cpu", kProfiles + "/generic-4core.yaml"}, Case{"arm64-rt-8cpu", ""},
                        Case{"x86-ipc-4cpu", kProfiles + "/x86-ipc.yaml"}, Case{"x86-ipc-4cpu", ""},
                        Case{"vm-x86-captured", kProfiles + "/ci-vm.yaml"}, Case{"vm-x86-captured", ""},
                        Case{"debian12-rt-arm64-qemu", kQemuArm64Profile}}) {
    INFO(c.tree << " with " << (c.profile.empty() ? "the built-in default" : c.profile));
    TempTree t(s + c.tree);
    auto before = Snapshot(t.dir());
    Run a = Rt("apply " + c.profile + " --root " + t.dir());
    INFO(a.out);
    REQUIRE(a.code == 0);
    Run v = Rt("verify " + c.profile + " --root " + t.dir());
    INFO(v.out);
    CHECK(v.code == 0);
    Run r = Rt("revert --root " + t.dir());
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto after = Snapshot(t.dir());
    for (const auto& [path, text] : before) {
      INFO(path);
      CHECK(after[path] == text);
    }
    CHECK(after.size() == before.size());
  }
}
