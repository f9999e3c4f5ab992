// The network section: RPS/XPS masks of every queue planned as CPU masks (loopback left
// alone), busy polling as sysctls owned here only, apply + revert byte-identical on a fixture
// tree made with network queues. Never on this machine: its network must keep working.
#include "tune/network_tuner.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/tuner_test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;
using namespace rtagent::tune_testing;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
const std::string kOnly =
    "cores:\n  housekeeping: 0\n  isolated: 1-3\n  bootloader: print\n"
    "  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
    "irqs:\n  default: keep\n  irqbalance: leave\n";

// The x86 board with an igb NIC of two queue pairs and loopback, as sysfs shows them.
void AddQueues(const TempTree& t) {
  for (const std::string q : {"rx-0", "rx-1"}) t.Put(kpath::NetQueueFile("enp2s0", q, kpath::kRpsCpus), "0\n");
  for (const std::string q : {"tx-0", "tx-1"}) t.Put(kpath::NetQueueFile("enp2s0", q, kpath::kXpsCpus), "0\n");
  t.Put(kpath::NetQueueFile("lo", "rx-0", kpath::kRpsCpus), "0\n");
  t.Put(kpath::NetQueueFile("lo", "tx-0", kpath::kXpsCpus), "0\n");
}

SectionPlan PlanOf(const profile::Profile& p, const SysRoot& root) { return PlanWith(NetworkTuner(), p, root); }

}  // namespace

TEST_CASE("network: RPS and XPS masks of every queue but loopback, and busy polling, are planned", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "network:\n  rps: housekeeping\n  xps: 0\n  busy_poll: 50\n  busy_read: 50\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.items.size() == 6);
  CHECK(plan.items[0].what == "enp2s0 rx-0 RPS mask");
  CHECK(plan.items[0].key == kpath::NetQueueFile("enp2s0", "rx-0", kpath::kRpsCpus));
  CHECK(plan.items[0].compare == Compare::kCpuMask);
  CHECK(plan.items[0].after == "1");
  CHECK(Pending(plan.items[0]));
  CHECK(plan.items[3].what == "enp2s0 tx-1 XPS mask");
  CHECK(plan.items[4].key == kpath::Sysctl("net.core.busy_poll"));
  CHECK(plan.items[4].after == "50");
  CHECK(plan.items[5].what == "net.core.busy_read");
  for (const Change& c : plan.items) CHECK(c.key.find("/lo/") == std::string::npos);
  CHECK(plan.findings.empty());
}

TEST_CASE("network: left out, nothing is planned", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly);
  REQUIRE(l.result);
  CHECK(PlanOf(*l.result, root).items.empty());
  CHECK(NetworkOf(*l.result).rps->keyword == profile::CpuKeyword::kKeep);
}

TEST_CASE("network: isolated CPUs in a mask warn, a busy polling sysctl set twice is refused", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto iso = LoadOn(dir, root, kOnly + "network:\n  rps: 0-1\n");
  REQUIRE(iso.result);
  const profile::Diagnostic& w = Only(iso, "network.rps includes isolated CPU 1");
  CHECK(w.severity == profile::Severity::kWarning);
  CheckAt(w, iso.path, 10, 8);

  auto twice = LoadOn(dir, root, kOnly + "network:\n  busy_poll: 50\nsysctls:\n  net.core.busy_poll: 50\n");
  REQUIRE_FALSE(twice.result);
  CheckAt(Only(twice, "network.busy_poll and sysctls net.core.busy_poll (" + twice.path + ":12:3) set the same file"),
          twice.path, 10, 14);

  auto range = LoadOn(dir, root, kOnly + "network:\n  busy_read: -5\n");
  REQUIRE_FALSE(range.result);
  Only(range, "'network.busy_read' is -5");

  auto word = LoadOn(dir, root, kOnly + "network:\n  xps: everywhere\n");
  REQUIRE_FALSE(word.result);
  Only(word, "'network.xps'");
}

TEST_CASE("network: a kernel without busy polling is an error finding", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "network:\n  busy_poll: 50\n");
  REQUIRE(l.result);
  root.FailReads(kpath::Sysctl("net.core.busy_poll"), ENOENT);
  SectionPlan plan = PlanOf(*l.result, root);
  CHECK(plan.items.empty());
  REQUIRE(plan.findings.size() == 1);
  CHECK(plan.findings[0].level == Finding::Level::kError);
  CHECK_THAT(plan.findings[0].why, Catch::Contains("CONFIG_NET_RX_BUSY_POLL"));
}

TEST_CASE("network: busy polling on a PREEMPT_RT kernel, which has none, is a note and no change", "[tune]") {
  TempTree t(kX86);
  t.Put(kpath::kRealtime, "1\n");
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "network:\n  busy_poll: 50\n  busy_read: 50\n");
  REQUIRE(l.result);
  root.FailReads(kpath::Sysctl("net.core.busy_poll"), ENOENT);
  root.FailReads(kpath::Sysctl("net.core.busy_read"), ENOENT);
  SectionPlan plan = PlanOf(*l.result, root);
  CHECK(plan.items.empty());
  REQUIRE(plan.findings.size() == 2);
  for (const Finding& f : plan.findings) {
    CHECK(f.level == Finding::Level::kInfo);
    CHECK_THAT(f.message, Catch::EndsWith("a PREEMPT_RT kernel has no busy polling (nothing to set)"));
  }
}

TEST_CASE("network: apply then revert on a fixture tree leaves it byte-identical", "[tune]") {
  TempTree before(kX86);
  AddQueues(before);
  TempTree t(before.dir());
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "network:\n  rps: housekeeping\n  xps: housekeeping\n  busy_poll: 50\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(applied->report.Count(Outcome::kApplied) == 5);
  CHECK(t.Get(kpath::NetQueueFile("enp2s0", "rx-1", kpath::kRpsCpus)) == "1\n");
  CHECK(t.Get(kpath::NetQueueFile("lo", "rx-0", kpath::kRpsCpus)) == "0\n");
  for (const Change& c : PlanOf(*l.result, root).items) CHECK_FALSE(Pending(c));
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::TreeDiff(before.dir(), t.dir()).empty());
}

// ------------------------------------------------------------------------------- channels

namespace {

// Housekeeping 0-1: two channels wanted where the profile says `housekeeping`.
const std::string kTwo =
    "cores:\n  housekeeping: 0-1\n  isolated: 2-3\n  bootloader: print\n"
    "  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
    "irqs:\n  default: keep\n  irqbalance: leave\n";

// enp2s0 as its driver reports its channels: `combined` of at most `max`.
void AddChannels(const TempTree& t, uint32_t combined, uint32_t max) {
  Channels c;
  c.combined = combined;
  c.combined_max = max;
  t.Put(kpath::NetChannelsFixture("enp2s0"), FormatChannelsFixture(c));
}

const Finding* FindingWith(const SectionPlan& plan, const std::string& text) {
  for (const Finding& f : plan.findings)
    if (f.message.find(text) != std::string::npos) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("network.channels: combined defaults to the housekeeping count, and RPS covers the queues that will be", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  AddChannels(t, 2, 4);
  t.Put(kpath::NetDevice("wlan0") + "/mtu", "1500\n");  // a driver without channel settings
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "network:\n  channels:\n    devices: []\n  rps: housekeeping\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.items.size() == 2);
  const Change& ch = plan.items[0];
  CHECK(ch.what == "enp2s0 combined channels");
  CHECK(ch.actuator == "channels");
  CHECK(ch.key == "enp2s0 combined");
  CHECK(ch.before == "2");
  CHECK(ch.after == "1");  // housekeeping is CPU 0 alone
  CHECK(ch.compare == Compare::kInteger);
  // rx-1 goes away with the second channel: only rx-0 is steered.
  CHECK(plan.items[1].what == "enp2s0 rx-0 RPS mask");
  const Finding* skipped = FindingWith(plan, "network.channels leaves wlan0 alone");
  REQUIRE(skipped != nullptr);
  CHECK(skipped->level == Finding::Level::kInfo);
  for (const Finding& f : plan.findings) CHECK(f.level != Finding::Level::kError);
}

TEST_CASE("network.channels: more channels plan the new queues' masks from nothing", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  AddChannels(t, 1, 4);
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kTwo + "network:\n  channels:\n    combined: 3\n  xps: housekeeping\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.items.size() == 4);
  CHECK(plan.items[0].after == "3");
  CHECK(plan.items[3].what == "enp2s0 tx-2 XPS mask");
  CHECK(plan.items[3].before.empty());
  CHECK(Pending(plan.items[3]));
}

TEST_CASE("network.channels: a missing device, a driver without channels and a count above the maximum name their line", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  AddChannels(t, 2, 4);
  t.Put(kpath::NetDevice("wlan0") + "/mtu", "1500\n");
  FsRoot root(t.dir());
  TempDir dir;

  auto missing = LoadOn(dir, root, kOnly + "network:\n  channels:\n    devices: [enp2s0, eth9]\n");
  REQUIRE(missing.result);
  SectionPlan p1 = PlanOf(*missing.result, root);
  const Finding* gone = FindingWith(p1, "network.channels.devices names eth9, which is no network interface here");
  REQUIRE(gone != nullptr);
  CHECK(gone->level == Finding::Level::kError);
  CHECK(gone->mark.line == 11);
  CHECK_THAT(gone->why, Catch::Contains("ip link"));
  REQUIRE(p1.items.size() == 1);  // enp2s0 is still planned
  CHECK(p1.items[0].key == "enp2s0 combined");

  auto unsupported = LoadOn(dir, root, kOnly + "network:\n  channels:\n    devices: wlan0\n");
  REQUIRE(unsupported.result);
  SectionPlan p2 = PlanOf(*unsupported.result, root);
  const Finding* nosup = FindingWith(p2, "names wlan0, whose driver has no channel settings");
  REQUIRE(nosup != nullptr);
  CHECK(nosup->level == Finding::Level::kError);
  CHECK(nosup->mark.line == 11);
  CHECK_THAT(nosup->message, Catch::Contains(std::strerror(EOPNOTSUPP)));
  CHECK_THAT(nosup->why, Catch::Contains("leave it out"));
  CHECK(p2.items.empty());

  auto above = LoadOn(dir, root, kOnly + "network:\n  channels:\n    combined: 8\n");
  REQUIRE(above.result);
  SectionPlan p3 = PlanOf(*above.result, root);
  const Finding* big = FindingWith(p3, "network.channels.combined is 8, above the maximum of 4 combined channels of enp2s0");
  REQUIRE(big != nullptr);
  CHECK(big->level == Finding::Level::kError);
  CHECK(big->mark.line == 11);
  CHECK(big->mark.column == 15);
  CHECK_THAT(big->why, Catch::Contains("at most 4"));
  CHECK(p3.items.empty());

  auto rx = LoadOn(dir, root, kOnly + "network:\n  channels:\n    rx: 1\n    tx: 1\n");
  REQUIRE(rx.result);
  SectionPlan p4 = PlanOf(*rx.result, root);
  const Finding* norx = FindingWith(p4, "network.channels.rx: enp2s0's driver has no rx channels");
  REQUIRE(norx != nullptr);
  CHECK(norx->mark.line == 11);
  CHECK_THAT(norx->why, Catch::Contains("network.channels.combined"));
  CHECK(FindingWith(p4, "network.channels.tx: enp2s0's driver has no tx channels") != nullptr);
}

// A port whose every answer is the error `e` (the live port inside a sandbox).
class RefusingPort : public EthtoolPort {
 public:
  explicit RefusingPort(Error e) : e_(std::move(e)) {}
  Result<Channels> Get(const std::string&) const override { return e_; }
  Result<void> Set(const std::string&, const ChannelCounts&) override { return e_; }

 private:
  Error e_;
};

TEST_CASE("network.channels: channels a sandbox keeps from rtagent are errors whose hint names the unit's setting", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  AddChannels(t, 2, 4);
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnly + "network:\n  channels:\n    combined: 1\n");
  REQUIRE(l.result);
  auto plan_with = [&](const Error& e) {
    NetworkTuner tuner([e](const SysRoot&, SysRoot*) { return std::make_unique<RefusingPort>(e); });
    return PlanWith(tuner, *l.result, root);
  };
  SECTION("enp2s0 is in sysfs, which is the host's, but not in rtagent's network namespace") {
    SectionPlan plan = plan_with(MakeError("no network interface enp2s0", ENODEV));
    // Before, every interface was skipped as if it had gone: nothing planned and nothing said.
    const Finding* f = FindingWith(plan, "the channels of enp2s0 cannot be read: no network interface enp2s0");
    REQUIRE(f != nullptr);
    CHECK(f->level == Finding::Level::kError);
    CHECK(f->mark.line == 11);
    CHECK(f->why == "enp2s0 is under /sys/class/net but not in rtagent's network namespace: run it in the host's "
                    "(a systemd unit without PrivateNetwork=, as rtagent.service is)");
    for (const Change& c : plan.items) CHECK(c.actuator != "channels");
  }
  SECTION("the sockets ethtool's requests travel on are refused") {
    SectionPlan plan = plan_with(MakeError("channels of enp2s0: cannot open a generic netlink socket", EAFNOSUPPORT));
    const Finding* f = FindingWith(plan, "the channels of enp2s0 cannot be read");
    REQUIRE(f != nullptr);
    CHECK(f->level == Finding::Level::kError);
    CHECK_THAT(f->why, Catch::Contains("RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET"));
  }
  SECTION("any other answer points at ethtool, which asks the same") {
    SectionPlan plan = plan_with(MakeError("channels of enp2s0", EIO));
    const Finding* f = FindingWith(plan, "the channels of enp2s0 cannot be read");
    REQUIRE(f != nullptr);
    CHECK(f->why == "`ethtool -l enp2s0` asks the kernel the same question");
  }
}

TEST_CASE("network.channels: housekeeping above a driver's maximum is capped, with a note", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  AddChannels(t, 1, 1);
  FsRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kTwo + "network:\n  channels:\n    combined: housekeeping\n");
  REQUIRE(l.result);
  SectionPlan plan = PlanOf(*l.result, root);
  REQUIRE(plan.items.size() == 1);
  CHECK(plan.items[0].after == "1");
  CHECK_FALSE(Pending(plan.items[0]));
  const Finding* capped = FindingWith(plan, "2 housekeeping CPUs but enp2s0 has at most 1 combined channels; 1 it is");
  REQUIRE(capped != nullptr);
  CHECK(capped->level == Finding::Level::kInfo);
}

TEST_CASE("network.channels: wrong values in the profile are refused with their line", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto word = LoadOn(dir, root, kOnly + "network:\n  channels:\n    combined: many\n");
  REQUIRE_FALSE(word.result);
  const profile::Diagnostic& w = Only(word, "wrong type for 'network.channels.combined': expected a number of channels or `housekeeping`");
  CheckAt(w, word.path, 11, 15);
  CHECK_THAT(w.hint, Catch::Contains("combined: housekeeping"));

  auto zero = LoadOn(dir, root, kOnly + "network:\n  channels:\n    tx: 0\n");
  REQUIRE_FALSE(zero.result);
  Only(zero, "'network.channels.tx' is 0");

  auto twice = LoadOn(dir, root, kOnly + "network:\n  channels:\n    devices: [eth0, eth0]\n");
  REQUIRE_FALSE(twice.result);
  CheckAt(Only(twice, "network.channels.devices names eth0 twice"), twice.path, 11, 14);

  auto key = LoadOn(dir, root, kOnly + "network:\n  channels:\n    queues: 2\n");
  REQUIRE_FALSE(key.result);
  Only(key, "queues");
}

TEST_CASE("network.channels: apply then revert on a fixture tree leaves it byte-identical", "[tune]") {
  TempTree before(kX86);
  AddQueues(before);
  AddChannels(before, 1, 4);
  TempTree t(before.dir());
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kTwo + "network:\n  channels:\n    combined: housekeeping\n  rps: housekeeping\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(applied->report.Count(Outcome::kApplied) == 3);
  // The count is written before the masks, which need its queues.
  std::vector<std::string> order;
  for (const ChangeResult& r : applied->report.results)
    if (r.outcome == Outcome::kApplied) order.push_back(r.change.key);
  REQUIRE(order.size() == 3);
  CHECK(order[0] == "enp2s0 combined");
  CHECK(order[2] == kpath::NetQueueFile("enp2s0", "rx-1", kpath::kRpsCpus));
  FixtureEthtoolPort port(root, nullptr);
  CHECK(port.Get("enp2s0")->combined == 2);
  CHECK(t.Get(kpath::NetQueueFile("enp2s0", "rx-1", kpath::kRpsCpus)) == "3\n");
  for (const Change& c : PlanOf(*l.result, root).items) CHECK_FALSE(Pending(c));
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::TreeDiff(before.dir(), t.dir()).empty());
}

TEST_CASE("network.channels: a failed write after the channels puts them back", "[tune]") {
  TempTree before(kX86);
  AddQueues(before);
  AddChannels(before, 2, 4);
  TempTree t(before.dir());
  FaultRoot root(t.dir());
  TempDir dir;
  // Three channels want rx-2, which a fixture never grows: its RPS write fails (ENOENT) and
  // apply rolls the channel count back.
  auto l = LoadOn(dir, root, kTwo + "network:\n  channels:\n    combined: 3\n  rps: housekeeping\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK(applied->report.rolled_back);
  CHECK(applied->report.Count(Outcome::kFailed) == 1);
  CHECK(test::TreeDiff(before.dir(), t.dir()).empty());

  // A driver refusing the write (EPERM without CAP_NET_ADMIN) fails the item, naming the NIC.
  root.FailWrites(kpath::NetChannelsFixture("enp2s0"), EPERM);
  auto refused = ApplyProfile(*l.result, root);
  REQUIRE(refused);
  CHECK(refused->report.rolled_back);
  bool named = false;
  for (const ChangeResult& r : refused->report.results) {
    if (r.outcome != Outcome::kFailed) continue;
    CHECK(r.change.key == "enp2s0 combined");
    CHECK_THAT(r.detail, Catch::Contains(std::strerror(EPERM)));
    named = true;
  }
  CHECK(named);
  CHECK(test::TreeDiff(before.dir(), t.dir()).empty());
}

TEST_CASE("channels actuator: keys it cannot parse and counts that are no numbers are errors", "[tune]") {
  TempTree t(kX86);
  AddQueues(t);
  AddChannels(t, 2, 4);
  FsRoot root(t.dir());
  ChannelsActuator a(std::make_unique<FixtureEthtoolPort>(root, &root));
  CHECK(*a.Read("enp2s0 combined") == "2");
  CHECK(*a.Read("enp2s0 rx") == "0");
  CHECK_THAT(a.Read("enp2s0").error().message, Catch::Contains("expected \"IFACE KIND\""));
  CHECK_THAT(a.Read("enp2s0 other").error().message, Catch::Contains("unknown kind other"));
  CHECK_THAT(a.Write("enp2s0 combined", "two").error().message, Catch::Contains("\"two\" is not a count"));
  REQUIRE(a.Write("enp2s0 combined", "3"));
  CHECK(*a.Read("enp2s0 combined") == "3");
}
