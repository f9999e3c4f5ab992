// hold under the shipped unit's sandbox with a GRUB profile: it never writes a boot loader file
// (boot arguments are `rtagent apply`'s), reports the file as pending and holds the runtime
// state. ProtectSystem=strict makes the whole file system read-only except /proc, /sys, /dev and
// the unit's ReadWritePaths (systemd.exec(5)). systemd is not PID 1 where these tests run (no
// systemd-run), so the sandbox is emulated: a root that answers EROFS, as the kernel would,
// to every write outside what systemd/rtagent.service.in leaves writable, read from the unit.
#include <spdlog/sinks/ostream_sink.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "base/fault_root.h"
#include "base/kernel_text.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "service/hold.h"
#include "tune/boot_update.h"
#include "tune/journal.h"
#include "tune/tuner.h"

using namespace rtagent;
using namespace rtagent::service;

namespace {

std::string UnitText() {
  std::ifstream in(std::string(RTAGENT_SOURCE_DIR) + "/systemd/rtagent.service.in");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fixture tree behind the unit's file system sandbox.
class SandboxRoot : public FaultRoot {
 public:
  SandboxRoot(std::string dir, const std::string& unit) : FaultRoot(std::move(dir)) {
    bool strict = false;
    for (auto line : SplitLines(unit)) {
      std::string l = Trim(line);
      if (l == "ProtectSystem=strict") strict = true;
      if (l.rfind("ReadWritePaths=", 0) != 0) continue;
      std::string path = l.substr(15);
      while (!path.empty() && (path.front() == '-' || path.front() == '/')) path.erase(0, 1);
      writable_.push_back(path + "/");
    }
    REQUIRE(strict);
    // The API file systems stay writable under ProtectSystem=strict.
    for (const char* api : {"proc/", "sys/", "dev/"}) writable_.push_back(api);
  }
  Result<void> Write(const std::string& path, const std::string& value) override {
    if (!Allowed(path)) return Refuse(path);
    return FaultRoot::Write(path, value);
  }
  Result<void> WriteDurable(const std::string& path, const std::string& contents) override {
    if (!Allowed(path)) return Refuse(path);
    return FaultRoot::WriteDurable(path, contents);
  }
  Result<void> Remove(const std::string& path) override {
    if (!Allowed(path)) return Refuse(path);
    return FaultRoot::Remove(path);
  }
  /// Writes the sandbox refused.
  std::vector<std::string> refused;

 private:
  bool Allowed(const std::string& path) const {
    for (const auto& w : writable_)
      if (path.rfind(w, 0) == 0) return true;
    return false;
  }
  Result<void> Refuse(const std::string& path) {
    refused.push_back(path);
    return MakeError("cannot write " + path, EROFS);
  }
  std::vector<std::string> writable_;
};

const char* kGrubProfile =
    "version: 1\nname: held\ncores:\n  housekeeping: 0\n  isolated: 1-3\n  bootloader: grub\n"
    "irqs:\n  default: housekeeping\nservice:\n  watch_interval: 1s\n  on_stop: revert\n";

struct Sandboxed {
  TempTree tree{std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu"};
  std::unique_ptr<SandboxRoot> root;
  std::ostringstream log_text;
  RecordingNotifier notifier;
  std::unique_ptr<HoldDaemon> daemon;

  Sandboxed() {
    tree.Put("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"\"\n");
    tree.Put("usr/sbin/update-grub", "");
    root = std::make_unique<SandboxRoot>(tree.dir(), UnitText());
  }
  HoldDaemon& Make() {
    profile::Diagnostics diags;
    auto cpus = profile::ReadSystemCpus(*root);
    REQUIRE(cpus.ok());
    auto p = profile::LoadProfileText(kGrubProfile, "held.yaml", ".", *cpus, &diags);
    INFO(diags.FormatText(false));
    REQUIRE(p.ok());
    HoldOptions o;
    o.check_wait = [](profile::Duration) { return true; };
    auto log = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_st>(log_text));
    log->set_pattern("%l: %v");
    o.log = log;
    daemon = std::make_unique<HoldDaemon>(*root, std::move(*p), std::move(o), notifier, MakeQosDevice(*root));
    return *daemon;
  }
};

}  // namespace

TEST_CASE("the sandbox emulation refuses what the unit keeps read-only (so the test below can fail)", "[service]") {
  Sandboxed s;
  CHECK_FALSE(s.root->WriteDurable("etc/default/grub.d/90-rtagent.cfg", "x").ok());
  CHECK_FALSE(s.root->WriteDurable(Journal::BootPath(), "x").ok());
  CHECK(s.root->WriteDurable("run/rtagent/state.json", "{}").ok());
  // `rtagent apply` of the same profile writes the drop-in: under the unit it would be refused.
  auto cpus = profile::ReadSystemCpus(*s.root);
  REQUIRE(cpus.ok());
  profile::Diagnostics d;
  auto p = profile::LoadProfileText(kGrubProfile, "held.yaml", ".", *cpus, &d);
  REQUIRE(p.ok());
  auto plan = PlanAll(*p, *s.root);
  REQUIRE(plan.ok());
  Journal journal(*s.root);
  REQUIRE(journal.Load().ok());
  Executor ex(*s.root, journal);
  for (const auto& t : AllTuners()) t->AddActuators(ex, *s.root);
  ApplyReport rep = ex.Apply(plan->PendingChanges());
  CHECK(rep.rolled_back);
  CHECK_FALSE(s.root->refused.empty());
}

TEST_CASE("hold under the unit's sandbox with a grub profile: no boot file written, reported pending", "[service]") {
  Sandboxed s;
  auto before = rtagent::test::SnapshotTree(s.tree.dir() + "/etc");
  HoldDaemon& d = s.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(s.root->refused.empty());
  CHECK(rtagent::test::SnapshotTree(s.tree.dir() + "/etc") == before);
  CHECK_FALSE(s.root->Exists("etc/default/grub.d/90-rtagent.cfg"));
  // The runtime state is held.
  CHECK(s.tree.Get("proc/irq/125/smp_affinity_list") == "0\n");
  CHECK(s.notifier.Sent("READY=1"));
  CHECK_THAT(s.log_text.str(), Catch::Contains("/etc/default/grub.d/90-rtagent.cfg does not carry the profile's boot "
                                               "arguments yet; hold never writes boot files"));
  CHECK_THAT(d.StatusLine(), Catch::Contains("boot file not written (rtagent apply writes it)"));
  CHECK(d.state().last_verify.differs == 0);
  CHECK_THAT(d.state().last_verify.summary, Catch::Contains("1 boot loader file waits for `rtagent apply`"));
  CHECK(d.Tick() == 0);  // the boot file is no drift to re-assert either
  CHECK(s.root->refused.empty());
  CHECK(d.Stop("SIGTERM"));
  CHECK(s.root->refused.empty());
}

TEST_CASE("hold's revert on stop leaves the boot files apply wrote, and their journal", "[service]") {
  Sandboxed s;
  // What an earlier `rtagent apply` left: the drop-in, and its entry in the boot journal.
  const std::string dropin = "etc/default/grub.d/90-rtagent.cfg";
  s.tree.Put(dropin, "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nohz_full=1-3\"\n");
  s.tree.Put(Journal::BootPath(), "{\"version\": 1, \"entries\": [{\"section\": \"cores\", \"what\": \"GRUB drop-in\", "
                                  "\"actuator\": \"bootfile+update-grub\", \"key\": \"" + dropin +
                                  "\", \"before\": \"\", \"after\": \"x\", \"compare\": \"exact\"}]}\n");
  const std::string boot_journal = s.tree.Get(Journal::BootPath());
  HoldDaemon& d = s.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(d.Stop("SIGTERM"));  // on_stop: revert puts back what hold wrote, only that
  CHECK(s.root->refused.empty());
  CHECK(s.tree.Get(dropin) == "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nohz_full=1-3\"\n");
  CHECK(s.tree.Get(Journal::BootPath()) == boot_journal);
  CHECK(s.tree.Get("proc/irq/125/smp_affinity_list") != "0\n");
}
