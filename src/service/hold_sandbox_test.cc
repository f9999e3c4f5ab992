// hold under the shipped unit's sandbox: it never writes a boot-time file (the boot loader's,
// systemd's drop-in: `rtagent apply`'s), reports it as pending and holds the runtime state,
// irqbalance's ban included. ProtectSystem=strict makes the whole file system read-only except
// /proc, /sys, /dev and the unit's ReadWritePaths, less its ReadOnlyPaths (systemd.exec(5)). systemd is not PID 1 where these tests run (no
// systemd-run), so the sandbox is emulated: a root that answers EROFS, as the kernel would,
// to every write outside what systemd/rtagent.service.in leaves writable, read from the unit.
#include <spdlog/sinks/ostream_sink.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <fstream>
#include <map>
#include <sstream>

#include "base/fault_root.h"
#include "base/kernel_text.h"
#include "base/tree_test_support.h"
#include "inspect/inspect_test_support.h"
#include "profile/loader.h"
#include "service/hold.h"
#include "tune/boot_update.h"
#include "tune/journal.h"
#include "tune/systemd_tuner.h"
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

// A fixture tree behind the unit's file system sandbox: ReadWritePaths= and ReadOnlyPaths=
// (each path, a '-' before it meaning "if it exists") over a read-only tree, the most specific
// path deciding, as systemd mounts the deeper paths last.
class SandboxRoot : public FaultRoot {
 public:
  SandboxRoot(std::string dir, const std::string& unit) : FaultRoot(std::move(dir)) {
    bool strict = false;
    for (auto line : SplitLines(unit)) {
      std::string l = Trim(line);
      if (l == "ProtectSystem=strict") strict = true;
      for (const auto& [key, writable] : {std::pair<std::string, bool>{"ReadWritePaths=", true}, {"ReadOnlyPaths=", false}}) {
        if (l.rfind(key, 0) != 0) continue;
        std::istringstream words(l.substr(key.size()));
        for (std::string path; words >> path;) {
          while (!path.empty() && (path.front() == '-' || path.front() == '/')) path.erase(0, 1);
          paths_[path] = writable;
        }
      }
    }
    REQUIRE(strict);
    // The API file systems stay writable under ProtectSystem=strict.
    for (const char* api : {"proc", "sys", "dev"}) paths_[api] = true;
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
    size_t best = 0;
    bool writable = false;
    for (const auto& [p, w] : paths_) {
      const bool under = path == p || (path.size() > p.size() && path.rfind(p, 0) == 0 && path[p.size()] == '/');
      if (under && p.size() >= best) {
        best = p.size();
        writable = w;
      }
    }
    return writable;
  }
  Result<void> Refuse(const std::string& path) {
    refused.push_back(path);
    return MakeError("cannot write " + path, EROFS);
  }
  std::map<std::string, bool> paths_;  // root-relative path -> writable
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
  HoldDaemon& Make(const std::string& profile_text = kGrubProfile) {
    profile::Diagnostics diags;
    auto cpus = profile::ReadSystemCpus(*root);
    REQUIRE(cpus.ok());
    auto p = profile::LoadProfileText(profile_text, "held.yaml", ".", *cpus, &diags);
    INFO(diags.FormatText(false));
    REQUIRE(p.ok());
    return Make(std::move(*p));
  }
  HoldDaemon& Make(profile::Profile p) {
    HoldOptions o;
    o.check_wait = [](profile::Duration) { return true; };
    auto log = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_st>(log_text));
    log->set_pattern("%l: %v");
    o.log = log;
    daemon = std::make_unique<HoldDaemon>(*root, std::move(p), std::move(o), notifier, MakeQosDevice(*root));
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
  CHECK_THAT(s.log_text.str(), Catch::Contains("/etc/default/grub.d/90-rtagent.cfg does not say what the profile "
                                               "asks yet; hold never writes the files read only at boot"));
  CHECK_THAT(d.StatusLine(), Catch::Contains("1 boot-time file not written (rtagent apply writes it)"));
  CHECK(d.state().last_verify.differs == 0);
  CHECK_THAT(d.state().last_verify.summary, Catch::Contains("1 boot-time file waits for `rtagent apply`"));
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

// The documented way to a held board (docs/service.md, "Enabling on a board"):
// `commission --revert-after`, then `systemctl enable --now rtagent.service`. The revert took
// irqbalance's ban back out of its file, so hold's start has to write it again; before its
// directory was in ReadWritePaths=, that write was refused, the start rolled back (exit 4) and
// systemd restarted it every 5 s, the board never tuned.
TEST_CASE("hold under the unit's sandbox bans a running irqbalance in its environment file", "[service]") {
  Sandboxed s;
  testing::PutIrqbalanceProcess(s.tree, 4242);
  s.tree.Put(kpath::ProcEnviron(4242), std::string("PATH=/usr/bin\0", 14));
  s.tree.Put(kpath::kIrqbalanceDefault, "#IRQBALANCE_BANNED_CPULIST=\n");
  HoldDaemon& d = s.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  INFO(s.log_text.str());
  CHECK(s.root->refused.empty());
  CHECK(s.tree.Get(kpath::kIrqbalanceDefault) == "#IRQBALANCE_BANNED_CPULIST=\nIRQBALANCE_BANNED_CPULIST=1-3\n");
  CHECK_THAT(s.log_text.str(), Catch::Contains("irqbalance banned CPUs (process 4242): absent -> 1-3"));
  CHECK(d.Stop("SIGTERM"));  // on_stop: revert
  CHECK(s.root->refused.empty());
  CHECK(s.tree.Get(kpath::kIrqbalanceDefault) == "#IRQBALANCE_BANNED_CPULIST=\n");
}

TEST_CASE("hold under the unit's sandbox leaves systemd's CPUAffinity= drop-in to apply and holds the rest", "[service]") {
  Sandboxed s;
  HoldDaemon& d = s.Make(std::string(kGrubProfile) + "systemd:\n  cpu_affinity: housekeeping\n");
  REQUIRE(d.Start() == StartResult::kHolding);
  INFO(s.log_text.str());
  CHECK(s.root->refused.empty());
  CHECK_FALSE(s.root->Exists(kSystemdDropIn));
  CHECK(s.tree.Get("proc/irq/125/smp_affinity_list") == "0\n");
  CHECK_THAT(s.log_text.str(), Catch::Contains("/etc/default/grub.d/90-rtagent.cfg, /" + std::string(kSystemdDropIn) +
                                               " do not say what the profile asks yet; hold never writes the files "
                                               "read only at boot"));
  CHECK_THAT(d.StatusLine(), Catch::Contains("2 boot-time files not written (rtagent apply writes them)"));
  CHECK_THAT(d.state().last_verify.summary, Catch::Contains("2 boot-time files wait for `rtagent apply`"));
  CHECK(d.state().last_verify.differs == 0);
  CHECK(d.Tick() == 0);
  CHECK(d.Stop("SIGTERM"));
  CHECK(s.root->refused.empty());
}

// Every shipped profile that plans on the x86 fixture, with irqbalance running there (the
// default irqs.irqbalance is ban): hold starts under the unit's sandbox with no write refused.
TEST_CASE("every shipped profile that plans on the x86 board starts hold under the unit's sandbox, nothing refused",
          "[service]") {
  int started = 0;
  for (const char* name : {"ci-vm", "default", "generic-4core", "rpi5", "rpi5-arm-controller", "x86-ipc",
                           "base/tuned-realtime", "base/arm-controller"}) {
    Sandboxed s;
    testing::PutIrqbalanceProcess(s.tree, 4242);
    s.tree.Put(kpath::ProcEnviron(4242), std::string("PATH=/usr/bin\0", 14));
    profile::Diagnostics diags;
    auto p = profile::LoadProfile(std::string(RTAGENT_SOURCE_DIR) + "/profiles/" + name + ".yaml", *s.root, &diags);
    INFO(name << ": " << diags.FormatText(false));
    REQUIRE(p.ok());
    HoldDaemon& d = s.Make(std::move(*p));
    INFO(s.log_text.str());
    CHECK(d.Start() == StartResult::kHolding);
    CHECK(s.root->refused.empty());
    started += d.state().state == "holding";
    CHECK(d.Stop("SIGTERM"));
    CHECK(s.root->refused.empty());
  }
  CHECK(started == 8);
}
