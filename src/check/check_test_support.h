// Helpers for the check tests: a fixture tree (or a scratch copy of one), a profile loaded
// against it, the state collected once, and the results of one check by id.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "check/check.h"
#include "inspect/system_state.h"
#include "profile/loader.h"

namespace rtagent::check::testing {

inline std::string Tree(const std::string& name) { return std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/" + name; }
inline std::string ProfileFile(const std::string& name) { return std::string(RTAGENT_SOURCE_DIR) + "/profiles/" + name; }

/// A profile, a root and the state collected from it, ready to run checks on.
struct Bench {
  std::unique_ptr<SysRoot> root;
  profile::Profile profile;
  SystemState state;
  Suite suite;

  /// Runs the check `name` (waits return at once; time is live only on the live root, as the
  /// runner has it).
  std::vector<CheckResult> Run(const std::string& name) {
    auto c = FindCheck(name);
    REQUIRE(c);
    CheckEnv env{profile, *root, state, suite, [](Duration) { return true; }, nullptr, root->IsLive()};
    return c->Run(env);
  }
};

/// Loads `profile_yaml` (text; "" for the built-in default) against the tree at `dir`.
inline Bench LoadBench(const std::string& dir, const std::string& profile_yaml) {
  Bench b;
  auto root = OpenRoot(dir);
  REQUIRE(root);
  b.root = std::move(*root);
  auto cpus = profile::ReadSystemCpus(*b.root);
  REQUIRE(cpus);
  profile::Diagnostics diags;
  auto p = profile_yaml.empty() ? profile::LoadDefaultProfile(*cpus, &diags)
                                : profile::LoadProfileText(profile_yaml, "p.yaml", dir, *cpus, &diags);
  INFO(diags.FormatText());
  REQUIRE(p);
  b.profile = std::move(*p);
  b.state = CollectSystemState(*b.root);
  b.suite.name = "test";
  return b;
}

/// Loads the profile file `path` against the tree at `dir`.
inline Bench LoadFile(const std::string& dir, const std::string& path) {
  Bench b;
  auto root = OpenRoot(dir);
  REQUIRE(root);
  b.root = std::move(*root);
  profile::Diagnostics diags;
  auto p = profile::LoadProfile(path, *b.root, &diags);
  INFO(diags.FormatText());
  REQUIRE(p);
  b.profile = std::move(*p);
  b.state = CollectSystemState(*b.root);
  b.suite.name = "test";
  return b;
}

/// A copy of the result with `id` (a copy, so it outlives a temporary list); fails the test
/// when there is none.
inline CheckResult ById(const std::vector<CheckResult>& results, const std::string& id) {
  for (const auto& r : results) {
    if (r.id == id) return r;
  }
  FAIL("no result " << id);
  return {};
}

}  // namespace rtagent::check::testing
