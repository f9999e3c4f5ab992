// Every write of an apply failing in turn (issue 17): on each fixture board, the writes a clean
// apply makes are counted, then write k fails with each errno the kernel gives, for every k
// (a spread of k on the generated tree). Each run must end as `rtagent apply` documents: rolled
// back (exit 4) with the whole tree byte-identical to the start and no journal left, or, where
// the errno is the kernel's known refusal of that item, the item recorded as unchangeable, the
// run finished (exit 0), and a revert giving the start back byte for byte.
// RTAGENT_SWEEP_TABLE=1 prints the figures as docs/reliability.md's table rows.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>

#include "tune/fault_sweep_support.h"

using namespace rtagent;
using namespace rtagent::test;

namespace {

struct Errno {
  int err;
  const char* name;
};
const Errno kErrnos[] = {{EIO, "EIO"},       {EINVAL, "EINVAL"}, {EBUSY, "EBUSY"},
                         {EACCES, "EACCES"}, {ENOSPC, "ENOSPC"}, {EPERM, "EPERM"}};

// What the runs of one errno on one board came to.
struct Tally {
  int points = 0;        // runs (one per k)
  int rolled_back = 0;   // exit 4, tree identical, no journal
  int unchangeable = 0;  // exit 0 with the item unchangeable; revert gave the tree back
  int identical = 0;     // runs whose tree ended byte-identical (after the revert, for the above)
};

const char* KindName(FaultRoot::Call::Kind k) {
  switch (k) {
    case FaultRoot::Call::kWrite: return "kernel";
    case FaultRoot::Call::kDurable: return "durable";
    case FaultRoot::Call::kRemove: return "remove";
  }
  return "?";
}

// One run: write k fails with `err`. Returns false (and says why) when the run broke a rule;
// `tree` is then a fresh copy so the sweep goes on from the start.
bool FaultRun(const SweepBoard& b, const profile::Profile& p, std::unique_ptr<TempTree>& tree,
              const std::map<std::string, std::string>& start, size_t k, const Errno& e, Tally& tally) {
  std::ostringstream why;
  FaultRoot root(tree->dir());
  root.FailNthWrite(k, e.err);
  ++tally.points;
  auto applied = ApplyProfile(p, root);
  std::string failed_at = k <= root.calls().size()
                              ? std::string(KindName(root.calls()[k - 1].kind)) + " write of " + root.calls()[k - 1].path
                              : "(beyond the writes made)";
  bool ok = true;
  if (!applied) {
    why << "apply returned an error: " << applied.error().message;
    ok = false;
  } else if (applied->report.rolled_back) {
    if (!applied->report.rollback_errors.empty()) {
      why << "the rollback left values behind: " << applied->report.rollback_errors;
      ok = false;
    }
    Journal j(root);
    if (!j.Load() || !j.Empty() || JournalPresent(root)) {
      why << "a journal is left after the rollback; ";
      ok = false;
    }
    if (ok) ++tally.rolled_back;
  } else {
    // Not rolled back: only a known refusal of the kernel may be taken as an outcome.
    if (applied->report.Count(Outcome::kUnchangeable) == 0) {
      why << "the injected failure was neither rolled back nor recorded as unchangeable; ";
      ok = false;
    }
    auto reverted = RevertJournal(root);
    if (!reverted || !reverted->complete) {
      why << "the revert after it did not complete; ";
      ok = false;
    }
    if (ok) ++tally.unchangeable;
  }
  auto diff = Differences(start, WholeTree(tree->dir()));
  if (diff.empty()) {
    ++tally.identical;
  } else {
    why << "the tree is not the start: ";
    for (size_t i = 0; i < diff.size() && i < 8; ++i) why << diff[i] << "; ";
    ok = false;
  }
  if (!ok) {
    FAIL_CHECK(b.name << ": write " << k << " (" << failed_at << ") failing with " << e.name << ": " << why.str());
    tree = std::make_unique<TempTree>(b.tree);
  }
  return ok;
}

// Counts a clean apply's writes on a copy of the board (and proves apply then revert gives
// the start back), then sweeps `ks` (empty: every k) with every errno.
void Sweep(const SweepBoard& b, std::vector<size_t> ks) {
  ScratchIn in_memory("/dev/shm");
  auto tree = std::make_unique<TempTree>(b.tree);
  const auto start = WholeTree(tree->dir());
  size_t n = 0;
  std::map<std::string, int> kinds;
  profile::Profile p;
  {
    FaultRoot root(tree->dir());
    p = LoadBoardProfile(b, root);
    auto applied = ApplyProfile(p, root);
    REQUIRE(applied.ok());
    REQUIRE_FALSE(applied->report.rolled_back);
    n = root.calls().size();
    for (const auto& c : root.calls()) ++kinds[KindName(c.kind)];
    auto reverted = RevertJournal(root);
    REQUIRE(reverted.ok());
    REQUIRE(reverted->complete);
    REQUIRE(Differences(start, WholeTree(tree->dir())).empty());
  }
  INFO(b.name << ": a clean apply makes " << n << " writes");
  REQUIRE(n > 0);
  if (ks.empty()) {
    for (size_t k = 1; k <= n; ++k) ks.push_back(k);
  } else {
    for (auto& k : ks) k = std::min(std::max<size_t>(k, 1), n);
  }
  std::vector<Tally> tallies(std::size(kErrnos));
  for (size_t k : ks) {
    for (size_t i = 0; i < std::size(kErrnos); ++i) FaultRun(b, p, tree, start, k, kErrnos[i], tallies[i]);
  }
  for (size_t i = 0; i < std::size(kErrnos); ++i) {
    CHECK(tallies[i].identical == tallies[i].points);
    CHECK(tallies[i].rolled_back + tallies[i].unchangeable == tallies[i].points);
  }
  if (std::getenv("RTAGENT_SWEEP_TABLE")) {
    std::cout << "| " << b.name << " | " << n << " (" << kinds["kernel"] << " kernel, " << kinds["durable"]
              << " durable, " << kinds["remove"] << " remove) | " << ks.size() << " |";
    for (size_t i = 0; i < std::size(kErrnos); ++i) {
      std::cout << " " << tallies[i].identical << "/" << tallies[i].points << " (" << tallies[i].rolled_back << " r, "
                << tallies[i].unchangeable << " u) |";
    }
    std::cout << "\n";
  }
}

}  // namespace

TEST_CASE("every write failing in turn: arm64-rt-8cpu rolls back or records unchangeable, tree byte-identical",
          "[tune]") {
  Sweep(FixtureBoards()[0], {});
}

TEST_CASE("every write failing in turn: x86-ipc-4cpu rolls back or records unchangeable, tree byte-identical",
          "[tune]") {
  Sweep(FixtureBoards()[1], {});
}

TEST_CASE("every write failing in turn: vm-x86-captured rolls back or records unchangeable, tree byte-identical",
          "[tune]") {
  Sweep(FixtureBoards()[2], {});
}

TEST_CASE("write k failing on a generated tree, at 20 points spread over its writes, leaves it byte-identical",
          "[tune]") {
  ScratchIn in_memory("/dev/shm");
  TempTree gen;
  const SweepBoard b = GeneratedBoard(gen.dir() + "/tree", 8, 32, 120);
  // The count comes first; 20 points from the first write to the last.
  size_t n = 0;
  {
    TempTree copy(b.tree);
    FaultRoot root(copy.dir());
    REQUIRE(ApplyProfile(LoadBoardProfile(b, root), root).ok());
    n = root.calls().size();
  }
  REQUIRE(n >= 20);
  std::vector<size_t> ks;
  for (size_t i = 0; i < 20; ++i) ks.push_back(1 + i * (n - 1) / 19);
  Sweep(b, ks);
}
