// memory.hugepages: sizes and nodes checked against the target, pools planned as items of the
// "hugepages" actuator, apply + revert on a copy of a fixture board (byte-identical after), a
// shortfall (the kernel found fewer pages) failing the apply and rolling it back, and the
// default size on this machine ([host]), put back after.
#include "tune/hugepages.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/skip_test_support.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/apply_profile.h"
#include "tune/journal.h"
#include "tune/memory_tuner.h"
#include "tune/tuner_test_support.h"

using namespace rtagent;
using namespace rtagent::profile::testing;
using namespace rtagent::tune_testing;
using profile::Diagnostic;

namespace {

const std::string kX86 = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";
// Every other section left alone: no boot loader file, no IRQ, no runtime mask.
const std::string kOnlyMemory =
    "cores:\n  bootloader: print\n  runtime: {workqueue_cpumask: keep, default_smp_affinity: keep}\n"
    "irqs:\n  default: keep\n  irqbalance: leave\n";

SectionPlan PlanOf(const profile::Profile& p, const SysRoot& root) { return PlanWith(MemoryTuner(), p, root); }

// A kernel short of memory: a write to `path` leaves `found` pages whatever was asked.
class ShortRoot : public FaultRoot {
 public:
  ShortRoot(std::string dir, std::string path, int found) : FaultRoot(std::move(dir)), path_(std::move(path)), found_(found) {}
  Result<void> Write(const std::string& path, const std::string& value) override {
    if (path == path_ && ParseInt(value).value_or(0) > found_) return FaultRoot::Write(path, std::to_string(found_));
    return FaultRoot::Write(path, value);
  }

 private:
  std::string path_;
  int found_;
};

}  // namespace

TEST_CASE("hugepages: sizes are read with their unit and written back the same way", "[tune]") {
  CHECK(ParseHugepageSize("2M") == 2048);
  CHECK(ParseHugepageSize("2MB") == 2048);
  CHECK(ParseHugepageSize("1G") == 1048576);
  CHECK(ParseHugepageSize("1gb") == 1048576);
  CHECK(ParseHugepageSize("2048kB") == 2048);
  CHECK(ParseHugepageSize("64K") == 64);
  CHECK_FALSE(ParseHugepageSize("2048"));  // kB or pages? refused
  CHECK_FALSE(ParseHugepageSize("M"));
  CHECK_FALSE(ParseHugepageSize("0M"));
  CHECK_FALSE(ParseHugepageSize("2T"));
  CHECK(HugepageSizeText(2048) == "2M");
  CHECK(HugepageSizeText(1048576) == "1G");
  CHECK(HugepageSizeText(64) == "64K");
  CHECK(HugepagePoolPath(2048, std::nullopt) == kpath::HugepagesNr(2048));
  CHECK(HugepagePoolPath(2048, 0) == kpath::NodeHugepagesNr(0, 2048));
  CHECK(HugepagePoolName(1048576, 1) == "1G huge pages on node 1");
}

TEST_CASE("hugepages: the target's sizes and NUMA nodes are read with its CPUs", "[tune]") {
  FsRoot root(kX86);
  auto sys = profile::ReadSystemCpus(root);
  REQUIRE(sys);
  REQUIRE(sys->hugepage_sizes_kb);
  CHECK(*sys->hugepage_sizes_kb == std::vector<long long>{2048, 1048576});
  REQUIRE(sys->numa_nodes);
  CHECK(*sys->numa_nodes == std::vector<int>{0});
  // A board without the directory (the arm64 fixture): nothing known, nothing checked at load.
  FsRoot arm(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu");
  auto arm_sys = profile::ReadSystemCpus(arm);
  REQUIRE(arm_sys);
  CHECK_FALSE(arm_sys->hugepage_sizes_kb);
}

TEST_CASE("hugepages: pools per size and node are planned in file order, compared as integers", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto l = LoadOn(dir, root,
                  "memory:\n  hugepages:\n    - {size: 2M, count: 512}\n    - {size: 1G, count: 2, node: 0}\n"
                  "    - {size: 1048576kB, count: \"00\", node: 0}\n");
  // The last item repeats the second pool: an error naming the first.
  REQUIRE_FALSE(l.result);
  CheckAt(Only(l, "1G huge pages on node 0 are set already at " + l.path + ":4:7"), l.path, 5, 7);

  auto ok = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M, count: 512}\n    - {size: 1G, count: 0, node: 0}\n");
  INFO(ok.diags.FormatText());
  REQUIRE(ok.result);
  SectionPlan plan = PlanOf(*ok.result, root);
  REQUIRE(plan.items.size() == 2);
  CHECK(plan.items[0].what == "2M huge pages");
  CHECK(plan.items[0].actuator == "hugepages");
  CHECK(plan.items[0].key == kpath::HugepagesNr(2048));
  CHECK(plan.items[0].before == "0");
  CHECK(plan.items[0].after == "512");
  CHECK(Pending(plan.items[0]));
  CHECK(plan.items[1].key == kpath::NodeHugepagesNr(0, 1048576));
  CHECK_FALSE(Pending(plan.items[1]));  // already 0
  CHECK_THAT(plan.items[1].why, Catch::Contains("memory.hugepages (" + ok.path + ":4:7)"));
  CHECK(plan.findings.empty());
}

TEST_CASE("hugepages: a size or node the target lacks is an error naming what it has", "[tune]") {
  FsRoot root(kX86);
  TempDir dir;
  auto size = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 16M, count: 4}\n");
  REQUIRE_FALSE(size.result);
  const Diagnostic& d = Only(size, "'memory.hugepages[].size' 16M: the target has no 16M huge pages");
  CheckAt(d, size.path, 3, 14);
  CHECK_THAT(d.message, Catch::Contains(kpath::HugepagesNr(16384)));
  CHECK(d.hint == "the sizes it has: 2M, 1G");

  auto node = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M, count: 4, node: 1}\n");
  REQUIRE_FALSE(node.result);
  const Diagnostic& n = Only(node, "'memory.hugepages[].node' 1: the target has no NUMA node 1");
  CHECK(n.hint == "the nodes it has: 0; or leave out 'node' for the global pool");

  auto unit = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2048, count: 4}\n");
  CHECK_THAT(Only(unit, "'memory.hugepages[].size' is \"2048\", not a page size").hint, Catch::Contains("2M, 1G, 64K"));

  auto missing = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M}\n");
  CheckAt(Only(missing, "'memory.hugepages[]' needs a 'count'"), missing.path, 3, 7);

  auto negative = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M, count: -1}\n");
  Only(negative, "'memory.hugepages[].count'");

  auto unknown = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M, count: 1, nodes: 0}\n");
  Only(unknown, "nodes");

  auto notlist = LoadOn(dir, root, "memory:\n  hugepages: {size: 2M, count: 1}\n");
  Only(notlist, "'memory.hugepages'");

  auto both = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M, count: 8, node: 0}\n    - {size: 2M, count: 8}\n");
  REQUIRE_FALSE(both.result);
  const Diagnostic& b = Only(both, "2M huge pages are given both for the whole system and per node");
  CheckAt(b, both.path, 4, 7);
  CHECK_THAT(b.hint, Catch::Contains("spreads a global count over every node"));
}

TEST_CASE("hugepages: apply then revert on a fixture board leaves it byte-identical", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, kOnlyMemory + "memory:\n  hugepages:\n    - {size: 2M, count: 512}\n"
                                           "    - {size: 1G, count: 2, node: 0}\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(applied->report.Count(Outcome::kApplied) == 2);
  CHECK(t.Get(kpath::HugepagesNr(2048)) == "512\n");
  CHECK(t.Get(kpath::NodeHugepagesNr(0, 1048576)) == "2\n");
  for (const Change& c : PlanOf(*l.result, root).items) CHECK_FALSE(Pending(c));  // verify
  auto reverted = RevertJournal(root);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(test::TreeDiff(kX86, t.dir()).empty());
}

TEST_CASE("hugepages: a shortfall fails the apply with both numbers and rolls the run back", "[tune]") {
  TempTree t(kX86);
  ShortRoot root(t.dir(), kpath::NodeHugepagesNr(0, 1048576), 1);
  TempDir dir;
  auto l = LoadOn(dir, root, kOnlyMemory + "memory:\n  hugepages:\n    - {size: 2M, count: 512}\n"
                                           "    - {size: 1G, count: 4, node: 0}\n");
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, root);
  REQUIRE(applied);
  CHECK(applied->report.rolled_back);
  CHECK(applied->report.rollback_errors.empty());
  const ChangeResult* failed = nullptr;
  for (const ChangeResult& r : applied->report.results) {
    if (r.outcome == Outcome::kFailed) failed = &r;
  }
  REQUIRE(failed != nullptr);
  CHECK(failed->change.what == "1G huge pages on node 0");
  CHECK_THAT(failed->detail, Catch::Contains("the kernel found 1 of the 4 huge pages asked for"));
  CHECK_THAT(failed->detail, Catch::EndsWith("the pool is back at 0"));
  CHECK(applied->report.Count(Outcome::kRolledBack) == 1);  // the 2M pool written before it
  // Everything as it was, and no journal left behind.
  CHECK(test::TreeDiff(kX86, t.dir()).empty());
  CHECK_FALSE(JournalPresent(root));
}

TEST_CASE("hugepages: a pool the kernel cannot read is a plan finding", "[tune]") {
  TempTree t(kX86);
  FaultRoot root(t.dir());
  TempDir dir;
  auto l = LoadOn(dir, root, "memory:\n  hugepages:\n    - {size: 2M, count: 8}\n");
  REQUIRE(l.result);
  root.FailReads(kpath::HugepagesNr(2048), EACCES);
  SectionPlan plan = PlanOf(*l.result, root);
  CHECK(plan.items.empty());
  REQUIRE(plan.findings.size() == 1);
  CHECK(plan.findings[0].level == Finding::Level::kError);
  CHECK_THAT(plan.findings[0].message, Catch::StartsWith("2M huge pages cannot be read"));
}

TEST_CASE("hugepages: 16 pages of the default size applied, verified and reverted on this machine", "[tune][host]") {
  auto opened = OpenRoot("/");
  REQUIRE(opened);
  SysRoot& live = **opened;
  if (::geteuid() != 0) RTAGENT_SKIP("needs root to reserve huge pages");
  if (JournalPresent(live)) RTAGENT_SKIP("a journal of an earlier apply is on this machine; not touching it");
  auto meminfo = live.Read(kpath::kMeminfo);
  if (!meminfo) RTAGENT_SKIP("no /proc/meminfo");
  long long size_kb = 0, avail_kb = 0;
  for (std::string_view line : SplitLines(*meminfo)) {
    auto field = [&](std::string_view name) -> std::optional<long long> {
      if (line.substr(0, name.size()) != name) return std::nullopt;
      std::string_view rest = line.substr(name.size());
      if (rest.size() > 3 && rest.substr(rest.size() - 3) == " kB") rest.remove_suffix(3);
      return ParseInt(rest);
    };
    if (auto v = field("Hugepagesize:")) size_kb = *v;
    if (auto v = field("MemAvailable:")) avail_kb = *v;
  }
  if (size_kb == 0) RTAGENT_SKIP("this kernel has no persistent huge pages");
  const long long kPages = 16;
  if (avail_kb < 4 * kPages * size_kb + 512 * 1024) RTAGENT_SKIP("not enough free memory to reserve 16 huge pages");
  // Other live tests change host state too: one at a time.
  int lock = ::open("/tmp/rtagent-live.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  REQUIRE(lock >= 0);
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  REQUIRE(::flock(lock, LOCK_EX) == 0);
  const std::string path = kpath::HugepagesNr(size_kb);
  auto before = live.ReadTrimmed(path);
  if (!before) RTAGENT_SKIP("no " + path);
  struct Restore {
    SysRoot& live;
    std::string path, value;
    ~Restore() {
      (void)RevertJournal(live);
      (void)live.Write(path, value);
    }
  } guard{live, path, *before};

  const long long want = ParseInt(*before).value_or(0) + kPages;
  // The kernel grants what it can find in one go, and a shortfall rolls apply back by design:
  // ask once first (the guard puts the count back), so a machine whose memory other work has
  // fragmented skips rather than fails.
  {
    REQUIRE(live.Write(path, std::to_string(want)));
    auto granted = live.ReadTrimmed(path);
    REQUIRE(live.Write(path, *before));
    REQUIRE(granted);
    if (*granted != std::to_string(want)) {
      RTAGENT_SKIP("the kernel granted " + *granted + " of " + std::to_string(want) + " huge pages (fragmented memory)");
    }
  }
  TempDir dir;
  auto l = LoadOn(dir, live, kOnlyMemory + "memory:\n  hugepages:\n    - {size: " + HugepageSizeText(size_kb) +
                                 ", count: " + std::to_string(want) + "}\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result);
  auto applied = ApplyProfile(*l.result, live);
  REQUIRE(applied);
  std::string details;
  for (const ChangeResult& r : applied->report.results) details += r.change.what + ": " + r.detail + "\n";
  INFO(details);
  REQUIRE_FALSE(applied->report.rolled_back);
  CHECK(*live.ReadTrimmed(path) == std::to_string(want));
  for (const Change& c : PlanOf(*l.result, live).items) CHECK_FALSE(Pending(c));
  auto reverted = RevertJournal(live);
  REQUIRE(reverted);
  CHECK(reverted->complete);
  CHECK(*live.ReadTrimmed(path) == *before);
}
