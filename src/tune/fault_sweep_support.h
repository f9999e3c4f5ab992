// Test support for issue 17's sweeps: every write of an apply failing in turn
// (write_faults_test.cc) and an apply killed at every write (kill_test.cc). The boards are the
// fixture trees with the profile each is tuned with in the CLI's byte-identical test, and a
// tree made by bench/gen_large_sysroot.py.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "base/fault_root.h"
#include "base/tree_test_support.h"
#include "profile/loader.h"
#include "tune/apply_profile.h"
#include "tune/journal.h"

namespace rtagent::test {

/// While alive, scratch trees (TempTree) go to `dir` (the tests pass /dev/shm) when it is a
/// writable directory: every run of a sweep stores its journal with fsync, which costs
/// milliseconds on a disk and nothing on tmpfs, and a sweep makes hundreds of runs. The former
/// TMPDIR is put back after.
class ScratchIn {
 public:
  explicit ScratchIn(const char* dir) {
    if (const char* t = std::getenv("TMPDIR")) old_ = t, had_ = true;
    if (::access(dir, W_OK) == 0) ::setenv("TMPDIR", dir, 1);
  }
  ~ScratchIn() {
    if (had_) ::setenv("TMPDIR", old_.c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
  ScratchIn(const ScratchIn&) = delete;
  ScratchIn& operator=(const ScratchIn&) = delete;

 private:
  std::string old_;
  bool had_ = false;
};

/// A fixture tree and the profile applied to it.
struct SweepBoard {
  std::string name;          ///< for messages and the docs' table
  std::string tree;          ///< a directory to copy
  std::string profile_text;  ///< the profile, as text
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The three committed fixture boards, each with the shipped profile written for it (the pairs
/// of the CLI's "apply then revert leaves every fixture byte-identical").
inline std::vector<SweepBoard> FixtureBoards() {
  const std::string src = RTAGENT_SOURCE_DIR;
  return {
      {"arm64-rt-8cpu", src + "/tests/sysroots/arm64-rt-8cpu", ReadText(src + "/profiles/generic-4core.yaml")},
      {"x86-ipc-4cpu", src + "/tests/sysroots/x86-ipc-4cpu", ReadText(src + "/profiles/x86-ipc.yaml")},
      {"vm-x86-captured", src + "/tests/sysroots/vm-x86-captured", ReadText(src + "/profiles/ci-vm.yaml")},
  };
}

/// bench/tune-large.yaml on a tree of `cpus` CPUs made by bench/gen_large_sysroot.py into `dir`.
inline SweepBoard GeneratedBoard(const std::string& dir, int cpus, int irqs, int threads) {
  const std::string src = RTAGENT_SOURCE_DIR;
  const std::string cmd = "python3 " + src + "/bench/gen_large_sysroot.py " + dir + " --cpus " + std::to_string(cpus) +
                          " --irqs " + std::to_string(irqs) + " --threads " + std::to_string(threads) + " >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string text = ReadText(src + "/bench/tune-large.yaml");
  const std::string last = std::to_string(cpus - 1);
  for (size_t at; (at = text.find("4-255")) != std::string::npos;) text.replace(at, 5, "4-" + last);
  return {"generated " + std::to_string(cpus) + " CPUs, " + std::to_string(irqs) + " IRQs, " + std::to_string(threads) +
              " threads",
          dir, text};
}

inline profile::Profile LoadBoardProfile(const SweepBoard& b, const SysRoot& root) {
  auto cpus = profile::ReadSystemCpus(root);
  REQUIRE(cpus.ok());
  auto p = profile::LoadProfileText(b.profile_text, b.name + ".yaml", std::string(RTAGENT_SOURCE_DIR) + "/profiles",
                                    *cpus, nullptr);
  INFO(b.name);
  REQUIRE(p.ok());
  return std::move(*p);
}

/// The whole tree: every file with its contents and every directory, except the empty
/// directories rtagent keeps its own state in (run/rtagent, var/lib/rtagent and their parents),
/// which its first journal creates and a cleared journal leaves, as a package's directories.
inline std::map<std::string, std::string> WholeTree(const std::string& dir) {
  auto t = SnapshotTree(dir, true);
  // The journals' directories and their parents, deepest first.
  std::vector<std::string> dirs;
  for (std::string p : {Journal::BootPath(), Journal::Path()}) {
    for (size_t slash; (slash = p.find_last_of('/')) != std::string::npos;) {
      p.resize(slash);
      dirs.push_back(p + "/");
    }
  }
  for (const std::string& d : dirs) {
    auto it = t.find(d);
    if (it == t.end()) continue;
    bool empty = true;
    for (auto next = std::next(it); next != t.end() && next->first.rfind(d, 0) == 0; ++next) empty = false;
    if (empty) t.erase(it);
  }
  return t;
}

/// The paths where two snapshots differ: changed, missing or added.
inline std::vector<std::string> Differences(const std::map<std::string, std::string>& a,
                                            const std::map<std::string, std::string>& b) {
  std::vector<std::string> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) out.push_back("missing " + k);
    else if (it->second != v) out.push_back("changed " + k);
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k)) out.push_back("added " + k);
  }
  return out;
}

}  // namespace rtagent::test
