// An apply killed at any point (issue 17). On each fixture board, a forked child runs the apply
// every `rtagent apply` runs (ApplyProfile) on a FaultRoot that raises SIGKILL at write k, for
// every k a clean apply makes: before a journal write, between the journal and the kernel write
// it covers, in the middle of a batch, between a partition's write and the re-placement of the
// tasks it moves, before a boot-loader file's write. Then, from the tree the child left:
//  - `revert` gives the start back byte for byte;
//  - separately, the next `apply` finishes (no rollback), leaves the tree a clean apply leaves
//    (rtagent's journal files aside, whose entries may be ordered otherwise), and its revert
//    gives the start back.
// The power cut: at each write of a whole file (the journal, a boot file, a fixture cgroup's
// files), the child leaves that file's temporary twin half written and never renamed, which is
// what a power cut before WriteFileAtomic's fsync leaves; everything renamed before is on disk
// (the rename is the commit point). The revert must give the start back from there too.
// Not counted: kills between the files of a cgroup the fixture's cgroup twin makes, and torn
// files there (the kernel's mkdir(2) makes a cgroup whole, on cgroupfs, which no power cut tears).
// The hook is the test double's (FaultRoot::CrashAtWrite); nothing in production code knows
// of it. RTAGENT_SWEEP_TABLE=1 prints the figures as docs/reliability.md's table rows.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <iostream>
#include <memory>
#include <sstream>

#include "base/kernel_paths.h"
#include "tune/fault_sweep_support.h"

using namespace rtagent;
using namespace rtagent::test;

namespace {

// The whole tree without rtagent's journal files: what two applies of the same profile must
// agree on.
std::map<std::string, std::string> WithoutJournal(std::map<std::string, std::string> t) {
  for (const std::string& j : {Journal::Path(), Journal::BootPath()}) t.erase(j);
  return t;
}

struct KillTally {
  int points = 0;         // kills (each followed by both checks)
  int revert_ok = 0;      // revert gave the start back
  int next_apply_ok = 0;  // the next apply finished as a clean one and its revert gave the start back
};

// Runs the apply in a child that dies at write k as `how` says. True when it died by SIGKILL.
bool KillAt(const profile::Profile& p, const std::string& dir, size_t k, FaultRoot::Crash how) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    FaultRoot root(dir);
    root.CrashAtWrite(k, how);
    (void)ApplyProfile(p, root);
    ::_exit(0);  // not reached when write k came
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

std::string Listed(const std::vector<std::string>& diff) {
  std::ostringstream out;
  for (size_t i = 0; i < diff.size() && i < 8; ++i) out << diff[i] << "; ";
  return out.str();
}

void KillSweep(const SweepBoard& b) {
  ScratchIn in_memory("/dev/shm");
  auto tree = std::make_unique<TempTree>(b.tree);
  const auto start = WholeTree(tree->dir());
  profile::Profile p;
  std::vector<FaultRoot::Call> calls;
  std::map<std::string, std::string> applied_tree;
  {
    FaultRoot root(tree->dir());
    p = LoadBoardProfile(b, root);
    auto applied = ApplyProfile(p, root);
    REQUIRE(applied.ok());
    REQUIRE_FALSE(applied->report.rolled_back);
    calls = root.calls();
    applied_tree = WithoutJournal(WholeTree(tree->dir()));
    auto reverted = RevertJournal(root);
    REQUIRE(reverted.ok());
    REQUIRE(reverted->complete);
    REQUIRE(Differences(start, WholeTree(tree->dir())).empty());
  }
  REQUIRE(!calls.empty());
  KillTally kill, power;
  int unreachable = 0;
  for (size_t k = 1; k <= calls.size(); ++k) {
    // The cgroup twin makes a cgroup with one WriteDurable per file, where the kernel's mkdir(2)
    // makes it whole in one call, on a file system no power cut can tear: a kill between those
    // files, or a torn one, is no state a board can be in. A kill before the first is.
    const bool twin_file = calls[k - 1].kind == FaultRoot::Call::kDurable &&
                           calls[k - 1].path.rfind(kpath::kCgroupRoot, 0) == 0;
    const auto dir_of = [](const std::string& p) { return p.substr(0, p.find_last_of('/')); };
    const bool inside_create = twin_file && k > 1 && calls[k - 2].kind == FaultRoot::Call::kDurable &&
                               dir_of(calls[k - 2].path) == dir_of(calls[k - 1].path);
    for (auto how : {FaultRoot::Crash::kBefore, FaultRoot::Crash::kTornTemp}) {
      const bool torn = how == FaultRoot::Crash::kTornTemp;
      if (torn && calls[k - 1].kind != FaultRoot::Call::kDurable) continue;
      if ((torn && twin_file) || (!torn && inside_create)) {
        ++unreachable;
        continue;
      }
      KillTally& tally = torn ? power : kill;
      const std::string where = b.name + ": killed " + (torn ? "with a torn temporary file at" : "before") + " write " +
                                std::to_string(k) + " of " + std::to_string(calls.size()) + " (" + calls[k - 1].path + ")";
      ++tally.points;
      // 1. Killed, then revert.
      REQUIRE(KillAt(p, tree->dir(), k, how));
      {
        FaultRoot root(tree->dir());
        auto reverted = RevertJournal(root);
        auto diff = Differences(start, WholeTree(tree->dir()));
        if (reverted.ok() && reverted->complete && diff.empty()) {
          ++tally.revert_ok;
        } else {
          FAIL_CHECK(where << ", then revert: " << (reverted.ok() ? "" : reverted.error().message + "; ")
                           << (reverted.ok() && !reverted->complete ? "incomplete; " : "") << Listed(diff));
          tree = std::make_unique<TempTree>(b.tree);
          continue;
        }
      }
      // 2. Killed, then the next apply, then revert.
      REQUIRE(KillAt(p, tree->dir(), k, how));
      {
        FaultRoot root(tree->dir());
        auto applied = ApplyProfile(p, root);
        bool ok = applied.ok() && !applied->report.rolled_back;
        auto as_applied = Differences(applied_tree, WithoutJournal(WholeTree(tree->dir())));
        auto reverted = RevertJournal(root);
        auto diff = Differences(start, WholeTree(tree->dir()));
        if (ok && as_applied.empty() && reverted.ok() && reverted->complete && diff.empty()) {
          ++tally.next_apply_ok;
        } else {
          FAIL_CHECK(where << ", then apply and revert: "
                           << (!applied.ok() ? applied.error().message : ok ? "" : "the apply rolled back")
                           << "; against a clean apply: " << Listed(as_applied) << " after the revert: " << Listed(diff));
          tree = std::make_unique<TempTree>(b.tree);
        }
      }
    }
  }
  CHECK(kill.revert_ok == kill.points);
  CHECK(kill.next_apply_ok == kill.points);
  CHECK(power.revert_ok == power.points);
  CHECK(power.next_apply_ok == power.points);
  if (std::getenv("RTAGENT_SWEEP_TABLE")) {
    std::cout << "| " << b.name << " | " << kill.points << " | " << kill.revert_ok << " | " << kill.next_apply_ok << " | "
              << power.points << " | " << power.revert_ok << " | " << power.next_apply_ok << " | " << unreachable << " |\n";
  }
}

// Runs `rtagent revert` (RevertJournal) in a child that dies at write k as `how` says. True
// when it died by SIGKILL.
bool RevertKilledAt(const std::string& dir, size_t k, FaultRoot::Crash how) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    FaultRoot root(dir);
    root.CrashAtWrite(k, how);
    (void)RevertJournal(root);
    ::_exit(0);  // not reached when write k came
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// `rtagent revert` killed at each of its writes (a kernel value put back, the journal's rewrite
// or its removal), and torn at each whole-file write: the next revert finishes it and the tree is
// the start, byte for byte. Each point starts from a clean apply of the profile.
void RevertKillSweep(const SweepBoard& b) {
  ScratchIn in_memory("/dev/shm");
  auto tree = std::make_unique<TempTree>(b.tree);
  const auto start = WholeTree(tree->dir());
  profile::Profile p;
  std::vector<FaultRoot::Call> calls;
  const auto apply = [&]() {
    FaultRoot root(tree->dir());
    auto applied = ApplyProfile(p, root);
    REQUIRE(applied.ok());
    REQUIRE_FALSE(applied->report.rolled_back);
  };
  {
    FaultRoot root(tree->dir());
    p = LoadBoardProfile(b, root);
  }
  apply();
  {
    FaultRoot root(tree->dir());
    auto reverted = RevertJournal(root);
    REQUIRE(reverted.ok());
    REQUIRE(reverted->complete);
    calls = root.calls();
    REQUIRE(Differences(start, WholeTree(tree->dir())).empty());
  }
  REQUIRE(!calls.empty());
  KillTally kill, power;
  for (size_t k = 1; k <= calls.size(); ++k) {
    for (auto how : {FaultRoot::Crash::kBefore, FaultRoot::Crash::kTornTemp}) {
      const bool torn = how == FaultRoot::Crash::kTornTemp;
      if (torn && calls[k - 1].kind != FaultRoot::Call::kDurable) continue;
      KillTally& tally = torn ? power : kill;
      const std::string where = b.name + ": revert killed " + (torn ? "with a torn temporary file at" : "before") +
                                " write " + std::to_string(k) + " of " + std::to_string(calls.size()) + " (" +
                                calls[k - 1].path + ")";
      ++tally.points;
      apply();
      REQUIRE(RevertKilledAt(tree->dir(), k, how));
      FaultRoot root(tree->dir());
      auto reverted = RevertJournal(root);
      auto diff = Differences(start, WholeTree(tree->dir()));
      if (reverted.ok() && reverted->complete && diff.empty()) {
        ++tally.revert_ok;
      } else {
        FAIL_CHECK(where << ", then revert: " << (reverted.ok() ? "" : reverted.error().message + "; ")
                         << (reverted.ok() && !reverted->complete ? "incomplete; " : "") << Listed(diff));
        tree = std::make_unique<TempTree>(b.tree);
      }
    }
  }
  CHECK(kill.revert_ok == kill.points);
  CHECK(power.revert_ok == power.points);
  if (std::getenv("RTAGENT_SWEEP_TABLE")) {
    std::cout << "| " << b.name << " (revert) | " << calls.size() << " | " << kill.points << " | " << kill.revert_ok
              << " | " << power.points << " | " << power.revert_ok << " |\n";
  }
}

}  // namespace

TEST_CASE("revert killed at every write on arm64-rt-8cpu: the next revert gives a byte-identical tree", "[tune]") {
  RevertKillSweep(FixtureBoards()[0]);
}

TEST_CASE("revert killed at every write on x86-ipc-4cpu: the next revert gives a byte-identical tree", "[tune]") {
  RevertKillSweep(FixtureBoards()[1]);
}

TEST_CASE("revert killed at every write on vm-x86-captured: the next revert gives a byte-identical tree", "[tune]") {
  RevertKillSweep(FixtureBoards()[2]);
}

TEST_CASE("apply killed at every write on arm64-rt-8cpu: revert or the next apply gives a byte-identical tree",
          "[tune]") {
  KillSweep(FixtureBoards()[0]);
}

TEST_CASE("apply killed at every write on x86-ipc-4cpu: revert or the next apply gives a byte-identical tree",
          "[tune]") {
  KillSweep(FixtureBoards()[1]);
}

TEST_CASE("apply killed at every write on vm-x86-captured: revert or the next apply gives a byte-identical tree",
          "[tune]") {
  KillSweep(FixtureBoards()[2]);
}
