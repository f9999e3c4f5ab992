// The hold daemon against a copy of the x86 IPC fixture: start, drift re-asserted on the next
// tick (ticks are driven directly, never by sleeping), reload with a good and a bad profile,
// stop with keep and with revert, the PM QoS note given back on every path, the state file
// and the Prometheus textfile.
#include "service/hold.h"

#include <signal.h>
#include <spdlog/sinks/ostream_sink.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "inspect/inspect_test_support.h"
#include "profile/loader.h"
#include "tune/journal.h"
#include "tune/memory_tuner.h"

using namespace rtagent;
using namespace rtagent::service;

namespace {

const std::string kIrq = kpath::ProcIrqFile(125, kpath::kIrqSmpAffinityList);  // eno1
const std::string kStat = kpath::Sysctl("vm.stat_interval");
const std::string kNoteOff = "2000000000\n";  // the fixture's aggregate with no request

std::string ProfileText(const std::string& extra_service = "", int note = 0, int stat_interval = 10) {
  return "version: 1\nname: held\n"
         "cores:\n  housekeeping: 0\n  isolated: 1-3\n"
         "irqs:\n  default: housekeeping\n"
         "power:\n  cpu_dma_latency_us: " + std::to_string(note) + "\n"
         "memory:\n  sysctl:\n    vm.stat_interval: " + std::to_string(stat_interval) + "\n"
         "service:\n  watch_interval: 1s\n" + extra_service;
}

// The daemon's own syscalls, recorded: where it pinned itself, when it gave memory back (the
// number of notifications sent by then), and a pinning failure on demand. Signals go to the real
// mask (OpenSignalFd's test checks the process's mask is as it was), signalfd fails on demand.
struct FakeSelf : SelfCalls {
  const RecordingNotifier* notifier = nullptr;
  int affinity_errno = 0;
  int signalfd_errno = 0;
  int sigmask_errno = 0;  // fails SignalMask(SIG_BLOCK, ...)
  int signalfds_asked = 0;
  std::vector<std::string> pinned;
  std::vector<size_t> trimmed_after;  // notifier.messages.size() at each trim
  int drops = 0;

  Result<void> SignalMask(int how, const sigset_t& set, sigset_t* old) override {
    if (sigmask_errno && how == SIG_BLOCK) return MakeError("sigprocmask", sigmask_errno);
    if (::sigprocmask(how, &set, old) != 0) return MakeError("sigprocmask", errno);
    return Ok();
  }
  Result<int> SignalFd(const sigset_t&) override {
    ++signalfds_asked;
    if (signalfd_errno) return MakeError("signalfd", signalfd_errno);
    return MakeError("signalfd: not in this test", ENOSYS);
  }
  Result<void> SetOtherPolicy() override { return Ok(); }
  Result<void> SetTimerSlack(uint64_t) override { return Ok(); }
  Result<void> SetAffinity(const CpuSet& cpus) override {
    if (affinity_errno) return MakeError("sched_setaffinity(" + cpus.ToList() + ")", affinity_errno);
    pinned.push_back(cpus.ToList());
    return Ok();
  }
  Result<std::string> OwnSmaps() override {
    return std::string("55afa2cbb000-55afa2fd9000 r-xp 00014000 fe:00 5431397  /usr/bin/rtagent\n"
                       "Rss:                2624 kB\nAnonymous:             0 kB\n");
  }
  Result<void> DropPages(uint64_t, uint64_t) override {
    ++drops;
    return Ok();
  }
  void TrimHeap() override { trimmed_after.push_back(notifier ? notifier->messages.size() : 0); }
};

// A fixture board, a profile file beside it, a log captured in memory, a recording notifier.
struct Rig {
  TempTree tree{std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu"};
  TempTree files;
  FaultRoot root{tree.dir()};
  std::ostringstream log_text;
  std::shared_ptr<spdlog::logger> log;
  RecordingNotifier notifier;
  std::string profile_path;
  std::unique_ptr<HoldDaemon> daemon;
  int64_t clock_ms = 1000;  // the daemon's steady clock: tests move it by hand
  profile::Duration replan = std::chrono::minutes(5);  // hold --replan-interval

  explicit Rig(const std::string& profile_text) {
    log = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_st>(log_text));
    log->set_pattern("%l: %v");
    profile_path = files.dir() + "/held.yaml";
    WriteProfile(profile_text);
  }
  void WriteProfile(const std::string& text) { files.Put("held.yaml", text); }
  /// The textfile as the profile names it, and where a hold of this fixture tree writes it.
  std::string Prom() const { return "/var/lib/prometheus/node-exporter/rtagent.prom"; }
  std::string PromOnHost() const { return tree.dir() + Prom(); }

  HoldDaemon& Make(std::function<std::optional<VerdictSummary>()> verdict = {}, SelfCalls* self = nullptr,
                   bool give_back_memory = true) {
    profile::Diagnostics diags;
    auto p = profile::LoadProfile(profile_path, root, &diags);
    INFO(diags.FormatText(false));
    REQUIRE(p.ok());
    HoldOptions o;
    o.profile_path = profile_path;
    o.check_wait = [](profile::Duration) { return true; };
    o.log = log;
    o.verdict = std::move(verdict);
    o.self = self;
    o.give_back_memory = give_back_memory;
    o.clock_ms = [this] { return clock_ms; };
    o.replan_interval = replan;
    daemon = std::make_unique<HoldDaemon>(root, std::move(*p), std::move(o), notifier, MakeQosDevice(root));
    return *daemon;
  }
  nlohmann::json StateFile() const { return nlohmann::json::parse(tree.Get(StatePath())); }
  std::string Log() const { return log_text.str(); }
};

// The drift event of `section` in a state file (null when there is none).
nlohmann::json DriftOf(const nlohmann::json& state, const std::string& section) {
  for (const auto& e : state["drift"])
    if (e["section"] == section) return e;
  return nlohmann::json::object();
}

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t i = hay.find(needle); i != std::string::npos; i = hay.find(needle, i + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("hold applies the profile, holds the note and says READY", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(r.tree.Get(kIrq) == "0\n");
  CHECK(r.tree.Get(kStat) == "10\n");
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == "0\n");
  CHECK(d.HoldsPmQos());
  CHECK(r.notifier.Sent("READY=1"));
  CHECK_THAT(r.notifier.LastStatus(), Catch::Contains("holding held") && Catch::Contains("PM QoS 0 us held"));
  auto j = r.StateFile();
  CHECK(j["state"] == "holding");
  CHECK(j["pid"] == static_cast<int>(::getpid()));
  CHECK(j["pm_qos_us"] == 0);
  CHECK(j["applied"].get<int>() > 0);
  CHECK(j["cpus"].get<std::string>().find("not pinned (fixture root") == 0);
  CHECK(j["last_verify"]["time"].get<int64_t>() > 0);
  CHECK(j["last_verify"]["differs"] == 0);
  CHECK(r.root.Exists(Journal::Path()));
  CHECK(d.Tick() == 0);  // nothing drifted
}

TEST_CASE("drift injected into the tree is re-asserted on the next tick, one log line each", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.tree.Put(kIrq, "0-3\n");   // irqbalance moved eno1 back
  r.tree.Put(kStat, "1\n");    // a vendor script reset the sysctl
  CHECK(d.Tick() == 2);
  CHECK(r.tree.Get(kIrq) == "0\n");
  CHECK(r.tree.Get(kStat) == "10\n");
  const std::string log = r.Log();
  CHECK(Count(log, "drift: ") == 2);
  CHECK_THAT(log, Catch::Contains("drift: IRQ 125") && Catch::Contains("0-3 -> 0 (re-asserted)"));
  CHECK_THAT(log, Catch::Contains("1 -> 10 (re-asserted)"));
  auto j = r.StateFile();
  CHECK(j["drift_total"] == 2);
  REQUIRE(j["drift"].size() == 2);
  const auto& irq = DriftOf(j, "irqs");
  CHECK(irq["old"] == "0-3");
  CHECK(irq["new"] == "0");
  CHECK(irq["key"] == kIrq);
  CHECK(DriftOf(j, "memory")["old"] == "1");
  CHECK(d.Tick() == 0);  // held again: the next tick finds nothing
  CHECK(Count(r.Log(), "drift: ") == 2);
  CHECK_THAT(r.notifier.LastStatus(), Catch::Contains("2 drift re-asserted"));
}

TEST_CASE("a CPU mask that drifted is logged and shown with the CPUs it names, kept raw in the state file",
          "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  REQUIRE(r.tree.Get(kpath::kDefaultSmpAffinity) == "1\n");  // irqs.default: housekeeping (CPU 0)
  r.tree.Put(kpath::kDefaultSmpAffinity, "f\n");
  CHECK(d.Tick() == 1);
  CHECK(r.tree.Get(kpath::kDefaultSmpAffinity) == "1\n");
  // "f -> 1" alone reads as CPU 15 moved to CPU 1.
  CHECK_THAT(r.Log(), Catch::Contains(": f (CPUs 0-3) -> 1 (CPU 0) (re-asserted)"));
  const nlohmann::json j = r.StateFile();
  const nlohmann::json& e = DriftOf(j, "cores");
  CHECK(e["key"] == kpath::kDefaultSmpAffinity);
  CHECK(e["old"] == "f");
  CHECK(e["new"] == "1");
  CHECK(e["cpu_mask"] == true);
  auto back = ReadHoldState(r.root);
  REQUIRE(back);
  REQUIRE(*back);
  CHECK_THAT(RenderStatusText(**back, true, 0), Catch::Contains(": f (CPUs 0-3) -> 1 (CPU 0)  re-asserted"));
  // A list is shown as it is, and its state entry says nothing of masks.
  r.tree.Put(kIrq, "0-3\n");
  CHECK(d.Tick() == 1);
  CHECK_THAT(r.Log(), Catch::Contains("0-3 -> 0 (re-asserted)"));
  const nlohmann::json after = r.StateFile();
  const nlohmann::json& listed = DriftOf(after, "irqs");
  CHECK(listed["key"] == kIrq);
  CHECK_FALSE(listed.contains("cpu_mask"));
}

TEST_CASE("an IRQ moved back while irqbalance runs is logged as irqbalance's doing", "[service]") {
  Rig r(ProfileText("", 0, 10));
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  testing::PutIrqbalanceProcess(r.tree, 4242);
  r.tree.Put(kIrq, "0-3\n");
  CHECK(d.Tick() >= 1);
  CHECK(r.tree.Get(kIrq) == "0\n");
  CHECK_THAT(r.Log(), Catch::Contains("drift: IRQ 125") &&
                          Catch::Contains("0-3 -> 0 (re-asserted; moved by irqbalance (process 4242;"));
  // The state file says it too, as the drift's cause (rtagent status, node_exporter readers).
  const nlohmann::json state = r.StateFile();
  nlohmann::json irq;
  for (const auto& e : state["drift"]) {
    if (e["key"] == kIrq) irq = e;
  }
  INFO(state["drift"].dump());
  CHECK(irq["outcome"] == "re-asserted");
  REQUIRE(irq.contains("cause"));
  CHECK_THAT(irq["cause"].get<std::string>(), Catch::StartsWith("irqbalance (process 4242"));
}

TEST_CASE("a drift without irqbalance running has no cause in the state file", "[service]") {
  Rig r(ProfileText("", 0, 10));
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.tree.Put(kIrq, "0-3\n");
  CHECK(d.Tick() >= 1);
  auto irq = DriftOf(r.StateFile(), "irqs");
  CHECK(irq["outcome"] == "re-asserted");
  CHECK_FALSE(irq.contains("cause"));
  CHECK_THAT(r.Log(), !Catch::Contains("irqbalance"));
}

TEST_CASE("a new IRQ appearing after start is moved on the next tick", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  // A USB network adapter is plugged in: IRQ 140 appears, spread over every CPU.
  std::string interrupts = r.tree.Get(kpath::kInterrupts);
  interrupts += "140:          0          0          0          0  IR-PCI-MSI 2097152-edge      usb0\n";
  r.tree.Put(kpath::kInterrupts, interrupts);
  r.tree.Put(kpath::ProcIrqFile(140, kpath::kIrqSmpAffinityList), "0-3\n");
  r.tree.Put(kpath::ProcIrqFile(140, kpath::kIrqEffectiveAffinityList), "2\n");
  r.tree.Put(kpath::SysIrqFile(140, kpath::kSysIrqActions), "usb0\n");
  r.tree.Put(kpath::SysIrqFile(140, kpath::kSysIrqChipName), "IR-PCI-MSI\n");
  CHECK(d.Tick() == 1);
  CHECK(r.tree.Get(kpath::ProcIrqFile(140, kpath::kIrqSmpAffinityList)) == "0\n");
  CHECK_THAT(r.Log(), Catch::Contains("drift: IRQ 140"));
}

TEST_CASE("an IRQ that goes away while held (its card unplugged) is no error, and revert skips it", "[service]") {
  // rt-hold-chaos's step 5 on a fixture: a card hot-plugged, its IRQ moved, the card unplugged.
  Rig r(ProfileText("  on_stop: revert\n"));
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  const std::string before = r.tree.Get(kpath::kInterrupts);
  r.tree.Put(kpath::kInterrupts, before + "140:          0          0          0          0  IR-PCI-MSI 2097152-edge      virtio0-input.0\n");
  r.tree.Put(kpath::ProcIrqFile(140, kpath::kIrqSmpAffinityList), "0-3\n");
  r.tree.Put(kpath::ProcIrqFile(140, kpath::kIrqEffectiveAffinityList), "2\n");
  r.tree.Put(kpath::SysIrqFile(140, kpath::kSysIrqActions), "virtio0-input.0\n");
  r.tree.Put(kpath::SysIrqFile(140, kpath::kSysIrqChipName), "IR-PCI-MSI\n");
  REQUIRE(d.Tick() == 1);  // moved to the housekeeping CPU, journaled
  REQUIRE(r.tree.Get(kpath::ProcIrqFile(140, kpath::kIrqSmpAffinityList)) == "0\n");
  const size_t log_before = r.Log().size();

  // device_del: the kernel frees the IRQ; its line and both of its directories go.
  r.tree.Put(kpath::kInterrupts, before);
  std::filesystem::remove_all(r.tree.dir() + "/" + kpath::ProcIrq(140));
  std::filesystem::remove_all(r.tree.dir() + "/" + kpath::SysIrq(140));
  CHECK(d.Tick() == 0);
  CHECK(d.state().last_replan == "the list of interrupts in /" + kpath::kInterrupts + " changed");
  CHECK(d.Tick() == 0);  // no error loop: the next tick finds nothing to plan
  CHECK(d.state().state == "holding");
  const std::string after = r.Log().substr(log_before);
  CHECK_THAT(after, !Catch::Contains("error") && !Catch::Contains("failed") && !Catch::Contains("drift"));
  r.tree.Put(kIrq, "0-3\n");  // drift is still put back
  CHECK(d.Tick() == 1);
  CHECK(r.tree.Get(kIrq) == "0\n");

  CHECK(d.Stop("SIGTERM"));  // complete: the gone IRQ's entry has nothing to put back
  CHECK_FALSE(r.root.Exists(kpath::ProcIrq(140)));
  CHECK_FALSE(r.root.Exists(Journal::Path()));
  CHECK_THAT(r.Log(), !Catch::Contains("revert: "));
}

TEST_CASE("a drift the kernel refuses is logged once, not on every tick", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.tree.Put(kIrq, "0-3\n");
  r.root.FailWrites(kIrq, EIO);  // the IRQ became managed / per-CPU
  CHECK(d.Tick() == 1);
  CHECK(r.tree.Get(kIrq) == "0-3\n");
  CHECK_THAT(r.Log(), Catch::Contains("unchangeable"));
  CHECK(d.Tick() == 0);
  CHECK(Count(r.Log(), "drift: ") == 1);
  CHECK(d.Verify().differs == 0);  // a known refusal does not fail verify
}

TEST_CASE("a re-assert that fails is a drift event with the error, and the others still go through", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.tree.Put(kIrq, "0-3\n");
  r.tree.Put(kStat, "1\n");
  r.root.FailWrites(kIrq, EACCES);
  CHECK(d.Tick() == 2);
  CHECK(r.tree.Get(kIrq) == "0-3\n");
  CHECK(r.tree.Get(kStat) == "10\n");  // not rolled back by the other's failure
  CHECK_THAT(r.Log(), Catch::Contains("(failed: "));
  auto j = r.StateFile();
  CHECK(DriftOf(j, "irqs")["outcome"].get<std::string>().rfind("failed: ", 0) == 0);
  CHECK(DriftOf(j, "memory")["outcome"] == "re-asserted");
  CHECK(d.Tick() == 1);  // still drifted: tried again on the next tick
}

TEST_CASE("SIGHUP with a good profile applies it and changes the note in place", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.WriteProfile(ProfileText("", /*note=*/20, /*stat_interval=*/5));
  CHECK(d.Reload());
  CHECK(r.tree.Get(kStat) == "5\n");
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == "20\n");
  CHECK(d.HoldsPmQos());
  auto j = r.StateFile();
  CHECK(j["last_reload"] == "ok");
  CHECK(j["pm_qos_us"] == 20);
  CHECK(r.notifier.Sent("RELOADING=1"));
  // The reloaded profile is the one held: drift goes back to its value.
  r.tree.Put(kStat, "10\n");
  CHECK(d.Tick() == 1);
  CHECK(r.tree.Get(kStat) == "5\n");
  // The journal still holds the value from before the first start.
  CHECK(d.Stop("test"));
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
}

TEST_CASE("what the plan cannot make is said at start and at reload, not on every tick", "[service]") {
  // The fixture board has no network interface: the channels of eth9 cannot be planned.
  Rig r(ProfileText() + "network:\n  channels:\n    devices: [eth9]\n");
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  const std::string line = "error: [network] " + r.profile_path +
                           ":17:14: network.channels.devices names eth9, which is no network interface here; not held "
                           "(the interfaces are the names under /sys/class/net (`ip link`); fix the name or leave it out)\n";
  INFO(r.Log());
  CHECK(Count(r.Log(), line) == 1);
  CHECK(r.tree.Get(kStat) == "10\n");  // the rest is held
  CHECK(d.Tick() == 0);
  CHECK(Count(r.Log(), line) == 1);
  CHECK(d.Reload());
  CHECK(Count(r.Log(), line) == 2);
}

TEST_CASE("SIGHUP with a bad profile keeps the old state and logs why", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  SECTION("invalid YAML key") { r.WriteProfile(ProfileText() + "bogus_section: 1\n"); }
  SECTION("a CPU the board does not have") { r.WriteProfile("version: 1\ncores:\n  housekeeping: 0\n  isolated: 1-9\n"); }
  SECTION("the file is gone") { std::remove(r.profile_path.c_str()); }
  SECTION("the new profile cannot be planned") {
    std::string text = ProfileText("", 0, 5);
    text.insert(text.find("irqs:"), "  bootloader:\n    type: grub\n    path: /etc/default/grub.d/90-rtagent.cfg\n");
    r.WriteProfile(text);
    r.root.FailReads("etc/default/grub", EACCES);  // GRUB's own file, read first for the drop-in
  }
  CHECK_FALSE(d.Reload());
  CHECK(d.profile().name.value == "held");
  CHECK(r.tree.Get(kStat) == "10\n");
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == "0\n");
  CHECK(d.HoldsPmQos());
  CHECK_THAT(r.Log(), Catch::Contains("reload failed, keeping the state of"));
  auto j = r.StateFile();
  CHECK(j["last_reload"].get<std::string>().rfind("failed: ", 0) == 0);
  CHECK(j["state"] == "holding");
  CHECK(r.notifier.LastStatus().find("reload failed") != std::string::npos);
  // Still watching with the old profile.
  r.tree.Put(kIrq, "1\n");
  CHECK(d.Tick() == 1);
  CHECK(r.tree.Get(kIrq) == "0\n");
}

TEST_CASE("a reload whose new note cannot be written keeps the old profile and note", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.WriteProfile(ProfileText("", 30, 5));
  r.root.FailWrites(kpath::kCpuDmaLatency, EACCES);
  CHECK_FALSE(d.Reload());
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == "0\n");
  CHECK(r.tree.Get(kStat) == "10\n");
  CHECK(d.HoldsPmQos());
}

TEST_CASE("a reload whose write fails is rolled back and keeps the old profile", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.WriteProfile(ProfileText("", 0, 5));
  r.root.FailWrites(kStat, EACCES);
  CHECK_FALSE(d.Reload());
  CHECK(r.tree.Get(kStat) == "10\n");
  CHECK_THAT(r.Log(), Catch::Contains("rolled back"));
  CHECK(MemoryOf(d.profile()).sysctls.size() == 1);
  CHECK(d.HoldsPmQos());
}

TEST_CASE("SIGTERM keeps the state by default and gives the note back", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(d.Stop("SIGTERM"));
  CHECK(r.tree.Get(kIrq) == "0\n");
  CHECK(r.tree.Get(kStat) == "10\n");
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
  CHECK_FALSE(d.HoldsPmQos());
  CHECK(r.root.Exists(Journal::Path()));  // `rtagent revert` can still put it back
  auto j = r.StateFile();
  CHECK(j["state"] == "stopped");
  CHECK_THAT(j["stop_reason"].get<std::string>(), Catch::Contains("SIGTERM: state kept"));
  CHECK(r.notifier.Sent("STOPPING=1"));
  CHECK(d.Stop("again"));  // idempotent
  CHECK(d.Tick() == 0);         // a stopped daemon does nothing
}

TEST_CASE("SIGTERM with on_stop: revert puts every value back", "[service]") {
  Rig r(ProfileText("  on_stop: revert\n"));
  const std::string irq_before = r.tree.Get(kIrq), stat_before = r.tree.Get(kStat);
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.tree.Put(kIrq, "2\n");
  CHECK(d.Tick() == 1);  // a drift re-asserted is still reverted to the original value
  CHECK(d.Stop("SIGTERM"));
  CHECK(r.tree.Get(kIrq) == irq_before);
  CHECK(r.tree.Get(kStat) == stat_before);
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
  CHECK_FALSE(r.root.Exists(Journal::Path()));
  CHECK_THAT(r.StateFile()["stop_reason"].get<std::string>(), Catch::Contains("state reverted"));
  CHECK(r.StateFile()["put_back_at_stop"]["restored"].get<int>() >= 2);  // at least the IRQ and the sysctl
  CHECK(r.StateFile()["put_back_at_stop"]["failed"] == 0);
}

TEST_CASE("the Prometheus textfile of a stopped hold: values counted while kept, 0 once put back at stop", "[service]") {
  const bool revert = GENERATE(false, true);
  INFO((revert ? "on_stop: revert" : "on_stop: keep"));
  Rig r(ProfileText("  prometheus_textfile: /var/lib/prometheus/node-exporter/rtagent.prom\n" +
                    std::string(revert ? "  on_stop: revert\n" : "")));
  r.tree.Put("var/lib/prometheus/node-exporter/.keep", "");
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(d.Stop("SIGTERM"));
  const std::string prom = r.tree.Get("var/lib/prometheus/node-exporter/rtagent.prom");
  INFO(prom);
  CHECK_THAT(prom, Catch::Contains("\nrtagent_hold_up{profile=\"" + r.profile_path + "\"} 0\n"));
  if (revert) {
    CHECK_THAT(prom, Catch::Contains("\nrtagent_held_values 0\n"));
    CHECK_THAT(prom, Catch::Contains("\nrtagent_revert_failed_values 0\n"));
    CHECK_THAT(prom, Catch::Contains("\nrtagent_revert_time_seconds "));
  } else {
    CHECK_THAT(prom, Catch::Contains("\nrtagent_held_values " + std::to_string(d.state().applied) + "\n"));
    CHECK(d.state().applied >= 2);
    CHECK_THAT(prom, !Catch::Contains("rtagent_revert_"));
  }
}

TEST_CASE("a revert that cannot put a value back says so and names it", "[service]") {
  Rig r(ProfileText("  on_stop: revert\n"));
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  r.root.FailWrites(kStat, EACCES);
  CHECK_FALSE(d.Stop("SIGTERM"));
  CHECK_THAT(r.Log(), Catch::Contains("revert: ") && Catch::Contains("stat_interval"));
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
}

TEST_CASE("start fails cleanly: nothing held, nothing changed, no READY", "[service]") {
  Rig r(ProfileText());
  const std::string irq_before = r.tree.Get(kIrq);
  StartResult want = StartResult::kHolding;
  SECTION("the PM QoS device refuses") {
    r.root.FailWrites(kpath::kCpuDmaLatency, EACCES);
    want = StartResult::kRefused;
  }
  SECTION("a corrupt journal") {
    r.tree.Put(Journal::Path(), "{not json");
    want = StartResult::kRefused;
  }
  SECTION("a write fails: this run is rolled back") {
    r.root.FailWrites(kStat, EACCES);
    want = StartResult::kRolledBack;
  }
  HoldDaemon& d = r.Make();
  CHECK(d.Start() == want);
  CHECK_FALSE(d.HoldsPmQos());
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
  CHECK(r.tree.Get(kIrq) == irq_before);
  CHECK_FALSE(r.notifier.Sent("READY=1"));
  CHECK_THAT(r.notifier.LastStatus(), Catch::StartsWith("failed: "));
  CHECK(r.StateFile()["state"] == "failed");
  CHECK(d.Tick() == 0);
  CHECK_FALSE(d.Reload());
  CHECK(d.Stop("SIGTERM"));
  CHECK(r.StateFile()["state"] == "failed");
}

TEST_CASE("the note is given back when the daemon is destroyed without Stop", "[service]") {
  Rig r(ProfileText());
  {
    HoldDaemon& d = r.Make();
    REQUIRE(d.Start() == StartResult::kHolding);
    CHECK(r.tree.Get(kpath::kCpuDmaLatency) == "0\n");
    r.daemon.reset();  // an exception or early return unwinding past it
  }
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
}

TEST_CASE("the Prometheus textfile holds state, drift counts, verify status and the verdict", "[service]") {
  Rig r(ProfileText(""));
  r.WriteProfile(ProfileText("  prometheus_textfile: " + r.Prom() + "\n"));
  r.tree.Put("var/lib/prometheus/node-exporter/.keep", "");  // node_exporter's directory, in the tree
  HoldDaemon& d = r.Make([] {
    VerdictSummary v;
    v.path = "/var/lib/rtagent/last.json";
    v.pass = true;
    v.started_at = "2026-11-30T01:00:00Z";
    v.worst_us = 42.5;
    v.ended_at = 1796007600;
    v.cpus = {{2, 42.5, 11.0, 2, 600000}, {3, 9.25, std::nullopt, 0, 36000000}};
    return std::optional<VerdictSummary>(v);
  });
  REQUIRE(d.Start() == StartResult::kHolding);
  r.tree.Put(kIrq, "0-3\n");
  REQUIRE(d.Tick() == 1);
  std::ifstream in(r.PromOnHost());  // under the fixture's root, never the running system's file
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string prom = ss.str();
  INFO(prom);
  CHECK_THAT(prom, Catch::Contains("# TYPE rtagent_hold_up gauge\nrtagent_hold_up{profile=\"" + r.profile_path + "\"} 1\n"));
  CHECK_THAT(prom, Catch::Contains("rtagent_pm_qos_held_us 0\n"));
  CHECK_THAT(prom, Catch::Contains("# TYPE rtagent_drift_events_total counter\nrtagent_drift_events_total 1\n"));
  CHECK_THAT(prom, Catch::Contains("rtagent_recent_drift_events{section=\"irqs\"} 1\n"));
  CHECK(Count(prom, "rtagent_last_verify_status{") == 4);
  CHECK(Count(prom, "rtagent_last_verify_status{status=\"" + d.state().last_verify.result + "\"} 1\n") == 1);
  CHECK(Count(prom, "\"} 0\n") >= 3);  // the three other statuses
  CHECK_THAT(prom, Catch::Contains("rtagent_latency_verdict_pass{verdict=\"/var/lib/rtagent/last.json\"} 1\n"));
  CHECK_THAT(prom, Catch::Contains("rtagent_latency_worst_us 42.5\n"));
  CHECK_THAT(prom, Catch::Contains("rtagent_latency_run_end_time_seconds 1796007600\n"));
  CHECK_THAT(prom, Catch::Contains("# TYPE rtagent_latency_cpu_worst_us gauge\nrtagent_latency_cpu_worst_us{cpu=\"2\"} 42.5\n"
                                   "rtagent_latency_cpu_worst_us{cpu=\"3\"} 9.25\n"));
  // CPU 3's p99 lies beyond the histogram's limit: left out, never written as 0.
  CHECK_THAT(prom, Catch::Contains("rtagent_latency_cpu_p99_us{cpu=\"2\"} 11\n"));
  CHECK(Count(prom, "rtagent_latency_cpu_p99_us{") == 1);
  CHECK_THAT(prom, Catch::Contains("rtagent_latency_cpu_overflows{cpu=\"2\"} 2\n"));
  CHECK_THAT(prom, Catch::Contains("rtagent_latency_cpu_samples{cpu=\"3\"} 36000000\n"));
  // Every sample line is "name{labels} value" or "name value"; every metric has HELP and TYPE.
  std::istringstream lines(prom);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("# ", 0) == 0) continue;
    CHECK(l.find(' ') != std::string::npos);
    CHECK(l.rfind("rtagent_", 0) == 0);
  }
  CHECK(d.Stop("SIGTERM"));
  std::ifstream again(r.PromOnHost());
  std::stringstream s2;
  s2 << again.rdbuf();
  CHECK_THAT(s2.str(), Catch::Contains("} 0\n") && Catch::Contains("rtagent_pm_qos_held_us -1\n"));
}

TEST_CASE("a Prometheus directory that does not exist is a warning, not a stop", "[service]") {
  Rig r(ProfileText("  prometheus_textfile: /nonexistent-rtagent-dir/rtagent.prom\n"));
  HoldDaemon& d = r.Make();
  CHECK(d.Start() == StartResult::kHolding);
  CHECK_THAT(r.Log(), Catch::Contains("cannot write the Prometheus textfile: cannot create " + r.tree.dir() +
                                      "/nonexistent-rtagent-dir/rtagent.prom.tmp."));
}

TEST_CASE("Run: signals from a signalfd reload, stop, and the watchdog is pinged", "[service]") {
  Rig r(ProfileText());
  r.notifier.watchdog = std::chrono::seconds(20);
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  auto fd = OpenSignalFd();
  REQUIRE(fd.ok());
  r.WriteProfile(ProfileText("", 0, 7));
  // Both stay pending on the blocked set; the kernel hands out the lower number (SIGHUP) first.
  ::kill(::getpid(), SIGHUP);
  ::kill(::getpid(), SIGTERM);
  const bool stopped_clean = d.Run(*fd);
  ::close(*fd);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  CHECK(stopped_clean);
  CHECK(r.notifier.Sent("WATCHDOG=1"));
  CHECK(r.tree.Get(kStat) == "7\n");
  CHECK(r.StateFile()["state"] == "stopped");
  CHECK_THAT(r.StateFile()["stop_reason"].get<std::string>(), Catch::StartsWith("SIGTERM"));
}

// Found writing the QEMU chaos scenario (rt-hold-chaos): each SIGHUP pushed the next tick a whole
// interval away, so reloads coming faster than the watch interval stopped every tick.
TEST_CASE("a SIGHUP storm faster than the watch interval does not starve the watch ticks", "[service]") {
  std::string text = ProfileText();
  text.replace(text.find("watch_interval: 1s"), 18, "watch_interval: 100ms");
  Rig r(text);
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  auto fd = OpenSignalFd();
  REQUIRE(fd.ok());
  // A SIGHUP every 20 ms for 1 s (five to each 100 ms interval), then SIGTERM. The thread
  // inherits the blocked mask, so every signal waits on the signalfd.
  std::thread storm([] {
    for (int i = 0; i < 50; ++i) {
      ::kill(::getpid(), SIGHUP);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(::getpid(), SIGTERM);
  });
  const bool stopped_clean = d.Run(*fd);
  storm.join();
  ::close(*fd);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  CHECK(stopped_clean);
  const auto state = r.StateFile();
  CHECK(state["last_reload"] == "ok");
  // Starved, no tick would run while the storm lasts. Fed, a tick follows each reload that
  // ends an interval after the last tick: about one per five reloads where a reload is
  // quick (five SIGHUPs to an interval), one per reload where it is slow (a loaded machine
  // takes several SIGHUPs into one reload). At least one per ten holds either way.
  const int reloads = static_cast<int>(Count(r.Log(), "reload: reading"));
  CHECK(reloads >= 1);
  CHECK(state["ticks"].get<int>() >= std::max(1, reloads / 10));
}

TEST_CASE("an irq/* thread re-created by a driver reload is ranked again on the next tick", "[service]") {
  Rig r(ProfileText() + "ranks:\n  rules:\n    mei:\n      threads: \"irq/132-.*\"\n      policy: fifo\n      priority: 60\n");
  // The fixture's irq/132-mei_me is thread 152 at FIFO 50.
  const std::string old_stat = r.tree.Get(kpath::TaskStat(152, 152));
  const std::string old_status = r.tree.Get(kpath::TaskStatus(152, 152));
  REQUIRE(old_stat.rfind("152 (irq/132-mei_me)", 0) == 0);
  auto field = [](const std::string& stat, int n) {  // field n (1-based) of a stat line
    std::istringstream in(stat.substr(stat.rfind(')') + 2));
    std::string w;
    for (int i = 3; i <= n && in >> w; ++i) {
    }
    return w;
  };
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(field(r.tree.Get(kpath::TaskStat(152, 152)), 40) == "60");
  // rmmod + modprobe: the thread is gone and a new one, at the kernel's FIFO 50, takes its name.
  std::filesystem::remove_all(r.tree.dir() + "/" + kpath::Pid(152));
  r.tree.Put(kpath::TaskStat(170, 170), "170" + old_stat.substr(3));
  r.tree.Put(kpath::TaskStatus(170, 170), old_status);
  CHECK(field(r.tree.Get(kpath::TaskStat(170, 170)), 40) == "50");
  CHECK(d.Tick() >= 1);
  CHECK(field(r.tree.Get(kpath::TaskStat(170, 170)), 40) == "60");
  CHECK_THAT(r.Log(), Catch::Contains("drift: ") && Catch::Contains("irq/132-mei_me"));
  CHECK(d.Tick() == 0);
}

TEST_CASE("a system that cannot be planned: start is refused, a tick or a verify says why", "[service]") {
  const std::string grub = "etc/default/grub";  // read first to make the drop-in
  const std::string boot = "  bootloader:\n    type: grub\n    path: /etc/default/grub.d/90-rtagent.cfg\n";
  std::string text = ProfileText();
  text.insert(text.find("irqs:"), boot);
  Rig r(text);
  const std::string irq_before = r.tree.Get(kIrq);
  SECTION("at start") {
    r.root.FailReads(grub, EACCES);
    HoldDaemon& d = r.Make();
    CHECK(d.Start() == StartResult::kRefused);
    CHECK_FALSE(d.HoldsPmQos());
    CHECK(r.tree.Get(kIrq) == irq_before);
    CHECK_THAT(r.Log(), Catch::Contains("cannot plan"));
    CHECK(r.StateFile()["state"] == "failed");
  }
  SECTION("later") {
    HoldDaemon& d = r.Make();
    REQUIRE(d.Start() == StartResult::kHolding);
    r.root.FailReads(grub, EACCES);
    CHECK(d.Tick() == 0);
    CHECK_THAT(r.Log(), Catch::Contains("watch: cannot plan"));
    VerifyResult v = d.Verify();
    CHECK(v.result == "FAIL");
    CHECK_THAT(v.summary, Catch::StartsWith("cannot plan: "));
    CHECK(d.HoldsPmQos());  // still holding what it holds
  }
}

TEST_CASE("hold pins itself to service.cpus and gives start-up memory back once READY and after a reload", "[service]") {
  Rig r(ProfileText("  cpus: 0\n"));
  FakeSelf self;
  self.notifier = &r.notifier;
  HoldDaemon& d = r.Make({}, &self);
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(self.pinned == std::vector<std::string>{"0"});
  CHECK(r.StateFile()["cpus"] == "0");
  REQUIRE(self.trimmed_after.size() == 1);
  CHECK(self.drops == 1);
  // READY was the last message before the trim: start-up was over.
  CHECK_THAT(r.notifier.messages.at(self.trimmed_after[0] - 1), Catch::StartsWith("READY=1"));
  CHECK(d.Tick() == 0);
  CHECK(self.trimmed_after.size() == 2);  // once more after the first tick: its first-run code
  CHECK(d.Tick() == 0);
  CHECK(self.trimmed_after.size() == 2);  // later ticks give nothing back: they keep what they touch
  r.tree.Put(kIrq, "0-3\n");
  CHECK(d.Tick() == 1);  // still watching after the drops
  CHECK(r.tree.Get(kIrq) == "0\n");

  SECTION("a good reload pins to the new CPUs and trims again") {
    r.WriteProfile(ProfileText("  cpus: 0-1\n", 0, 5));
    CHECK(d.Reload());
    CHECK(self.pinned == std::vector<std::string>{"0", "0-1"});
    CHECK(self.trimmed_after.size() == 3);
    CHECK(d.Tick() == 0);
    CHECK(self.trimmed_after.size() == 4);  // and after the first tick of the new profile
    CHECK(r.StateFile()["cpus"] == "0-1");
  }
  SECTION("a bad reload trims again too: the parse ran") {
    r.WriteProfile(ProfileText() + "bogus_section: 1\n");
    CHECK_FALSE(d.Reload());
    CHECK(self.trimmed_after.size() == 3);
    CHECK(d.Tick() == 0);
    CHECK(self.trimmed_after.size() == 3);  // the ticks run the same code as before
  }
  SECTION("a reload to CPUs it cannot pin to keeps the old profile, values and pinning") {
    r.WriteProfile(ProfileText("  cpus: 1\n", 0, 5));
    self.affinity_errno = EINVAL;
    CHECK_FALSE(d.Reload());
    CHECK(r.tree.Get(kStat) == "10\n");
    CHECK(d.profile().service.cpus->cpus.ToList() == "0");
    CHECK(r.StateFile()["cpus"] == "0");
    CHECK_THAT(r.StateFile()["last_reload"].get<std::string>(),
               Catch::Contains("cannot pin itself to CPUs 1 (service.cpus)") && Catch::Contains("Invalid argument"));
  }
  CHECK(d.Stop("test"));
}

TEST_CASE("hold --once gives no memory back: it stops right away", "[service]") {
  Rig r(ProfileText("  cpus: 0\n"));
  FakeSelf self;
  HoldDaemon& d = r.Make({}, &self, /*give_back_memory=*/false);
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(d.Tick() == 0);
  CHECK(self.pinned == std::vector<std::string>{"0"});
  CHECK(self.trimmed_after.empty());
  CHECK(self.drops == 0);
  CHECK(d.Stop("--once"));
}

TEST_CASE("hold that cannot pin itself to service.cpus refuses to start, says why and changes nothing", "[service]") {
  Rig r(ProfileText("  cpus: 0\n"));
  const std::string irq_before = r.tree.Get(kIrq), stat_before = r.tree.Get(kStat);
  FakeSelf self;
  self.affinity_errno = EINVAL;  // e.g. CPU 0 is outside the unit's cpuset
  HoldDaemon& d = r.Make({}, &self);
  CHECK(d.Start() == StartResult::kRefused);
  CHECK_THAT(r.Log(), Catch::Contains("error: cannot pin itself to CPUs 0 (service.cpus): sched_setaffinity(0): "
                                      "Invalid argument; nothing was changed"));
  CHECK_FALSE(d.HoldsPmQos());
  CHECK(r.tree.Get(kpath::kCpuDmaLatency) == kNoteOff);
  CHECK(r.tree.Get(kIrq) == irq_before);
  CHECK(r.tree.Get(kStat) == stat_before);
  CHECK_FALSE(r.root.Exists(Journal::Path()));
  CHECK_FALSE(r.notifier.Sent("READY=1"));
  CHECK_THAT(r.notifier.LastStatus(), Catch::StartsWith("failed: cannot pin itself to CPUs 0"));
  auto j = r.StateFile();
  CHECK(j["state"] == "failed");
  CHECK_THAT(j["stop_reason"].get<std::string>(), Catch::StartsWith("cannot pin itself to CPUs 0"));
  CHECK(self.trimmed_after.empty());
  CHECK(d.Stop("SIGTERM"));
}

TEST_CASE("a signalfd that cannot be opened is an error naming the errno, and the signal mask is as it was", "[service]") {
  sigset_t before;
  sigemptyset(&before);
  REQUIRE(::sigprocmask(SIG_BLOCK, nullptr, &before) == 0);
  FakeSelf self;
  self.signalfd_errno = EMFILE;
  auto fd = OpenSignalFd(self);
  REQUIRE_FALSE(fd.ok());
  CHECK(fd.error().err == EMFILE);
  CHECK_THAT(fd.error().message, Catch::StartsWith("cannot open a signalfd for SIGHUP/SIGTERM/SIGINT: signalfd: ") &&
                                     Catch::Contains("Too many open files"));
  sigset_t after;
  sigemptyset(&after);
  REQUIRE(::sigprocmask(SIG_BLOCK, nullptr, &after) == 0);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) CHECK(sigismember(&after, sig) == sigismember(&before, sig));
}

TEST_CASE("signals that cannot be blocked are an error naming the errno, and no signalfd is opened", "[service]") {
  sigset_t before;
  sigemptyset(&before);
  REQUIRE(::sigprocmask(SIG_BLOCK, nullptr, &before) == 0);
  FakeSelf self;
  self.sigmask_errno = EINVAL;
  auto fd = OpenSignalFd(self);
  REQUIRE_FALSE(fd.ok());
  CHECK(fd.error().err == EINVAL);
  CHECK(fd.error().message == "cannot block SIGHUP/SIGTERM/SIGINT: sigprocmask: Invalid argument");
  CHECK(self.signalfds_asked == 0);
  sigset_t after;
  sigemptyset(&after);
  REQUIRE(::sigprocmask(SIG_BLOCK, nullptr, &after) == 0);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) CHECK(sigismember(&after, sig) == sigismember(&before, sig));
}

// ---- the cheap tick (issue 19): signals first, a full plan only when one moved ----

namespace {

// Field n (1-based) of a stat line.
std::string StatField(const std::string& stat, int n) {
  std::istringstream in(stat.substr(stat.rfind(')') + 2));
  std::string w;
  for (int i = 3; i <= n && in >> w; ++i) {
  }
  return w;
}

// /proc/interrupts with `delta` added to IRQ `irq`'s count on the CPU of column `col`.
std::string BumpCount(const std::string& interrupts, int irq, int col, int delta) {
  std::istringstream in(interrupts);
  std::string line, out;
  const std::string label = std::to_string(irq) + ":";
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, label.size(), label) == 0) {
      std::istringstream words(line.substr(start + label.size()));
      std::vector<std::string> counts;
      std::string w;
      for (int i = 0; i < 4 && words >> w; ++i) counts.push_back(w);
      std::string rest;
      std::getline(words, rest);
      counts.at(col) = std::to_string(std::stoull(counts.at(col)) + delta);
      line = label;
      for (const auto& c : counts) line += "  " + c;
      line += rest;
    }
    out += line + "\n";
  }
  return out;
}

const char kMeiRank[] = "ranks:\n  rules:\n    mei:\n      threads: \"irq/132-.*\"\n      policy: fifo\n      priority: 60\n";

}  // namespace

TEST_CASE("a tick that finds no signal moved does not plan again, and status counts the plans", "[service]") {
  Rig r(ProfileText() + kMeiRank);
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  CHECK(d.Tick() == 0);  // the first tick plans and takes the baseline
  CHECK(d.state().replans == 1);
  CHECK(d.state().last_replan == "first tick");
  for (int i = 0; i < 5; ++i) CHECK(d.Tick() == 0);
  CHECK(d.state().ticks == 6);
  CHECK(d.state().replans == 1);  // nothing moved: no plan
  CHECK(d.state().replan_interval == "5m");
  CHECK_THAT(RenderStatusText(d.state(), true, 0),
             Catch::Contains("full re-plans:  1 (when a cheap signal moves, at least every 5m), last: first tick"));
  CHECK_THAT(RenderPrometheus(d.state(), true), Catch::Contains("rtagent_watch_replans_total 1"));
  auto j = ToJson(d.state());
  CHECK(j["replans"] == 1);
  CHECK(ParseHoldState(j.dump())->replans == 1);
}

TEST_CASE("each cheap signal that moves makes the next tick plan again and the drift is fixed", "[service]") {
  Rig r(ProfileText() + kMeiRank);
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  REQUIRE(d.Tick() == 0);
  REQUIRE(d.Tick() == 0);
  REQUIRE(d.state().replans == 1);

  SECTION("a new line in /proc/interrupts") {
    std::string interrupts = r.tree.Get(kpath::kInterrupts);
    interrupts += "140:          0          0          0          0  IR-PCI-MSI 2097152-edge      usb0\n";
    r.tree.Put(kpath::kInterrupts, interrupts);
    r.tree.Put(kpath::ProcIrqFile(140, kpath::kIrqSmpAffinityList), "0-3\n");
    r.tree.Put(kpath::ProcIrqFile(140, kpath::kIrqEffectiveAffinityList), "2\n");
    r.tree.Put(kpath::SysIrqFile(140, kpath::kSysIrqActions), "usb0\n");
    r.tree.Put(kpath::SysIrqFile(140, kpath::kSysIrqChipName), "IR-PCI-MSI\n");
    CHECK(d.Tick() == 1);
    CHECK(d.state().last_replan == "the list of interrupts in /" + kpath::kInterrupts + " changed");
    CHECK(r.tree.Get(kpath::ProcIrqFile(140, kpath::kIrqSmpAffinityList)) == "0\n");
  }
  SECTION("a held IRQ firing on a CPU outside its set") {
    r.tree.Put(kIrq, "0-3\n");  // irqbalance moved eno1 and it fired on CPU 2
    r.tree.Put(kpath::kInterrupts, BumpCount(r.tree.Get(kpath::kInterrupts), 125, 2, 5));
    CHECK(d.Tick() == 1);
    CHECK(d.state().last_replan == "IRQ 125 fired outside CPUs 0");
    CHECK(r.tree.Get(kIrq) == "0\n");
  }
  SECTION("a held IRQ firing on its own CPU is no signal") {
    r.tree.Put(kpath::kInterrupts, BumpCount(r.tree.Get(kpath::kInterrupts), 125, 0, 1000));
    CHECK(d.Tick() == 0);
    CHECK(d.state().replans == 1);
  }
  SECTION("a new thread") {
    // rmmod + modprobe: irq/132-mei_me comes back as thread 170 at the kernel's FIFO 50.
    const std::string old_stat = r.tree.Get(kpath::TaskStat(152, 152));
    const std::string old_status = r.tree.Get(kpath::TaskStatus(152, 152));
    std::filesystem::remove_all(r.tree.dir() + "/" + kpath::Pid(152));
    std::string stat = "170" + old_stat.substr(3);
    r.tree.Put(kpath::TaskStat(170, 170), stat);
    r.tree.Put(kpath::TaskStatus(170, 170), old_status);
    REQUIRE(StatField(r.tree.Get(kpath::TaskStat(170, 170)), 40) == "60");  // held before the reload
    // the new thread at the kernel's default: FIFO 50
    std::string fresh = r.tree.Get(kpath::TaskStat(170, 170));
    size_t tail = fresh.rfind(')') + 2;
    std::istringstream in(fresh.substr(tail));
    std::vector<std::string> f;
    for (std::string w; in >> w;) f.push_back(w);
    f.at(40 - 3) = "50";
    std::string line = fresh.substr(0, tail);
    for (size_t i = 0; i < f.size(); ++i) line += (i ? " " : "") + f[i];
    r.tree.Put(kpath::TaskStat(170, 170), line + "\n");
    CHECK(d.Tick() >= 1);
    CHECK(d.state().last_replan == "the thread list changed");
    CHECK(StatField(r.tree.Get(kpath::TaskStat(170, 170)), 40) == "60");
  }
  SECTION("a managed file rewritten") {
    r.tree.Put(kStat, "1\n");
    CHECK(d.Tick() == 1);
    CHECK(d.state().last_replan == "/" + kStat + " changed");
    CHECK(r.tree.Get(kStat) == "10\n");
  }
  CHECK(d.state().replans == (d.state().last_replan == "first tick" ? 1u : 2u));
  CHECK(d.Tick() == 0);  // held again, and the baseline taken again: no further plan
  CHECK(d.state().replans == (d.state().last_replan == "first tick" ? 1u : 2u));
}

TEST_CASE("a drift no cheap signal sees is fixed at the safety re-plan of hold --replan-interval", "[service]") {
  Rig r(ProfileText() + kMeiRank);
  r.replan = std::chrono::minutes(2);
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  REQUIRE(d.Tick() == 0);
  // Another program puts irq/132-mei_me back to FIFO 50: same thread list, no managed file.
  std::string stat = r.tree.Get(kpath::TaskStat(152, 152));
  REQUIRE(StatField(stat, 40) == "60");
  size_t tail = stat.rfind(')') + 2;
  std::istringstream in(stat.substr(tail));
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  f.at(40 - 3) = "50";
  std::string line = stat.substr(0, tail);
  for (size_t i = 0; i < f.size(); ++i) line += (i ? " " : "") + f[i];
  r.tree.Put(kpath::TaskStat(152, 152), line + "\n");
  r.clock_ms += 119 * 1000;
  CHECK(d.Tick() == 0);  // not seen yet
  CHECK(d.state().replans == 1);
  r.clock_ms += 1000;
  CHECK(d.Tick() >= 1);
  CHECK(d.state().replans == 2);
  CHECK(d.state().last_replan == "safety interval (2m)");
  CHECK(StatField(r.tree.Get(kpath::TaskStat(152, 152)), 40) == "60");
}

TEST_CASE("a write that failed is tried again by a full plan on the next tick", "[service]") {
  Rig r(ProfileText());
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  REQUIRE(d.Tick() == 0);
  r.tree.Put(kStat, "1\n");
  r.root.FailWrites(kStat, EACCES);
  CHECK(d.Tick() == 1);
  CHECK(d.state().replans == 2);
  CHECK(d.Tick() == 1);  // no baseline after a failure: planned again
  CHECK(d.state().replans == 3);
  CHECK(d.state().last_replan == "a write failed on the last tick");
}

TEST_CASE("the IRQ of an irqs item is read from its key, nothing else", "[service]") {
  CHECK(AffinityListIrq(kpath::ProcIrqFile(125, kpath::kIrqSmpAffinityList)) == 125);
  CHECK(AffinityListIrq(kpath::ProcIrqFile(125, kpath::kIrqEffectiveAffinityList)) == -1);
  CHECK(AffinityListIrq(kpath::kDefaultSmpAffinity) == -1);
  CHECK(AffinityListIrq(kStat) == -1);
  CHECK(AffinityListIrq(kpath::kProcIrqDir + "/x1/" + kpath::kIrqSmpAffinityList) == -1);
  CHECK(AffinityListIrq("") == -1);
}

TEST_CASE("with /proc/loadavg the thread list is read only when the last PID moved", "[service]") {
  Rig r(ProfileText() + kMeiRank);
  r.tree.Put(kLoadavg, "0.10 0.20 0.30 1/200 4000\n");
  HoldDaemon& d = r.Make();
  REQUIRE(d.Start() == StartResult::kHolding);
  REQUIRE(d.Tick() == 0);
  REQUIRE(d.state().replans == 1);
  // A process that came and went: the last PID moved, the thread list did not.
  r.tree.Put(kLoadavg, "0.10 0.20 0.30 1/200 4007\n");
  CHECK(d.Tick() == 0);
  CHECK(d.state().replans == 1);
  // irq/132-mei_me re-created as thread 4010 at FIFO 50: the last PID moved and the list changed.
  std::string stat = r.tree.Get(kpath::TaskStat(152, 152));
  size_t tail = stat.rfind(')') + 2;
  std::istringstream in(stat.substr(tail));
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  f.at(40 - 3) = "50";
  std::string line = "4010 " + stat.substr(stat.find('('), tail - stat.find('('));
  for (size_t i = 0; i < f.size(); ++i) line += (i ? " " : "") + f[i];
  const std::string status = r.tree.Get(kpath::TaskStatus(152, 152));
  std::filesystem::remove_all(r.tree.dir() + "/" + kpath::Pid(152));
  r.tree.Put(kpath::TaskStat(4010, 4010), line + "\n");
  r.tree.Put(kpath::TaskStatus(4010, 4010), status);
  r.tree.Put(kLoadavg, "0.10 0.20 0.30 1/200 4010\n");
  CHECK(d.Tick() >= 1);
  CHECK(d.state().replans == 2);
  CHECK(d.state().last_replan == "the thread list changed");
  CHECK(StatField(r.tree.Get(kpath::TaskStat(4010, 4010)), 40) == "60");
  CHECK(d.Tick() == 0);
  CHECK(d.state().replans == 2);
}
