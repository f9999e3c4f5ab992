// The tuning in force that a verdict records: read from the journal apply left, counted whole,
// listed up to a bound, and an unreadable journal recorded as such rather than as "none".
#include "cli/acceptance_run.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "report/verdict_page.h"

using namespace rtagent;

namespace {

std::string Entry(int irq, const std::string& side_effect_of = "") {
  std::string e = R"({"section":"irqs","what":"IRQ )" + std::to_string(irq) +
                  R"(","actuator":"file","key":"proc/irq/)" + std::to_string(irq) +
                  R"(/smp_affinity_list","before":"0-3","after":"0-1","compare":"cpulist")";
  if (!side_effect_of.empty()) e += R"(,"side_effect_of":")" + side_effect_of + "\"";
  return e + "}";
}

}  // namespace

TEST_CASE("the verdict's tuning in force: none when nothing is journaled", "[cli][accept]") {
  TempTree tree;
  tree.Put("proc/irq/24/smp_affinity_list", "0-3\n");
  FsRoot root(tree.dir());
  const TuningInForce t = ReadTuningInForce(root);
  CHECK(t.error.empty());
  CHECK(t.total == 0);
  CHECK(t.changes.empty());
  CHECK(t.source == "/run/rtagent/journal.json and /var/lib/rtagent/boot-journal.json");
}

TEST_CASE("the verdict's tuning in force: every journaled write, not the kernel's side effects", "[cli][accept]") {
  TempTree tree;
  tree.Put("run/rtagent/journal.json", R"({"version":1,"entries":[)" + Entry(24) + "," + Entry(25) + "," +
                                           Entry(26, "cpuset rt") + "]}");
  FsRoot root(tree.dir());
  const TuningInForce t = ReadTuningInForce(root);
  CHECK(t.error.empty());
  CHECK(t.total == 2);
  REQUIRE(t.changes.size() == 2);
  CHECK(t.changes[0] == TuningChange{"irqs", "IRQ 24", "0-3", "0-1"});
  CHECK(t.changes[1].what == "IRQ 25");
}

TEST_CASE("the verdict's tuning in force: a large apply is counted whole and listed up to the bound", "[cli][accept]") {
  TempTree tree;
  std::string entries;
  const int n = static_cast<int>(TuningInForce::kListed) + 57;
  for (int i = 0; i < n; ++i) entries += (i ? "," : "") + Entry(100 + i);
  tree.Put("run/rtagent/journal.json", R"({"version":1,"entries":[)" + entries + "]}");
  FsRoot root(tree.dir());
  const TuningInForce t = ReadTuningInForce(root);
  CHECK(t.total == static_cast<size_t>(n));
  REQUIRE(t.changes.size() == TuningInForce::kListed);
  CHECK(t.changes.back().what == "IRQ " + std::to_string(100 + TuningInForce::kListed - 1));
}

TEST_CASE("the verdict's tuning in force: a corrupt journal is unknown, never none", "[cli][accept]") {
  TempTree tree;
  tree.Put("run/rtagent/journal.json", "{ not json");
  FsRoot root(tree.dir());
  const TuningInForce t = ReadTuningInForce(root);
  CHECK(t.total == 0);
  CHECK_THAT(t.error, Catch::Contains("run/rtagent/journal.json"));
  Verdict v;
  v.tuning = t;
  CHECK_THAT(TuningSentence(v), Catch::StartsWith("Unknown: rtagent's journal could not be read"));
}
