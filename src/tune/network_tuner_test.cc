// The network section: RPS/XPS masks of every queue planned as CPU masks (loopback left
// alone), busy polling as sysctls owned here only, apply + revert byte-identical on a fixture
// tree made with network queues. Never on this machine: its network must keep working.
#include "tune/network_tuner.h"

#include <catch2/catch.hpp>

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
