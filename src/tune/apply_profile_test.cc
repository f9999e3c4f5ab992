// Applying a profile and putting it back through the one executor every command builds, on a
// copy of the arm64 fixture board.
#include "tune/apply_profile.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "profile/loader.h"

using namespace rtagent;

namespace {

const std::string kArm = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";

profile::Profile Load(const SysRoot& root) {
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus.ok());
  auto p = profile::LoadProfileText(
      "cores:\n  housekeeping: 0\n  isolated: 1-7\n  bootloader: print\nirqs:\n  default: housekeeping\n",
      "board.yaml", ".", *cpus, nullptr);
  REQUIRE(p.ok());
  return std::move(*p);
}

}  // namespace

TEST_CASE("ApplyProfile journals and applies the plan, RevertJournal puts every value back", "[tune]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  const std::string irq21 = t.Get(kpath::ProcIrq(21) + "/smp_affinity_list");
  const profile::Profile p = Load(root);
  CHECK_FALSE(JournalPresent(root));

  auto applied = ApplyProfile(p, root);
  REQUIRE(applied.ok());
  CHECK_FALSE(applied->report.rolled_back);
  CHECK(applied->journaled_before == 0);
  CHECK(applied->report.Count(Outcome::kApplied) > 0);
  CHECK(JournalPresent(root));
  CHECK(t.Get(kpath::ProcIrq(21) + "/smp_affinity_list") == "0\n");

  auto again = ApplyProfile(p, root);  // nothing left to do; the journal is kept as it was
  REQUIRE(again.ok());
  CHECK(again->report.Count(Outcome::kApplied) == 0);
  CHECK(again->journaled_before > 0);

  auto reverted = RevertJournal(root);
  REQUIRE(reverted.ok());
  CHECK(reverted->complete);
  CHECK_FALSE(JournalPresent(root));
  CHECK(t.Get(kpath::ProcIrq(21) + "/smp_affinity_list") == irq21);
}

TEST_CASE("a journal that cannot be read stops apply and revert before anything is written", "[tune]") {
  TempTree t(kArm);
  FaultRoot root(t.dir());
  const profile::Profile p = Load(root);
  t.Put(Journal::Path(), "{not json");
  auto applied = ApplyProfile(p, root);
  REQUIRE_FALSE(applied.ok());
  CHECK_THAT(applied.error().message, Catch::Contains("journal"));
  auto reverted = RevertJournal(root);
  REQUIRE_FALSE(reverted.ok());
  CHECK(root.writes().empty());
}
