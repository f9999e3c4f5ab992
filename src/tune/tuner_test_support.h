// What the tuner tests share: a profile loaded against a board's tree (its CPUs, hugepage
// sizes, nodes and sysctls come from the tree) and one tuner's plan from that tree's state.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "base/sysroot.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/tuner.h"

namespace rtagent::tune_testing {

/// Writes `yaml` to board.yaml in `dir` and loads it against the board `root`.
inline profile::testing::Loaded LoadOn(const profile::testing::TempDir& dir, const SysRoot& root,
                                       const std::string& yaml) {
  std::string path = dir.Write("board.yaml", yaml);
  profile::Diagnostics d;
  auto r = profile::LoadProfile(path, root, &d);
  return profile::testing::Loaded{std::move(r), std::move(d), path};
}

/// `tuner`'s plan of `p` from the state collected from `root` (fails the test on an error).
inline SectionPlan PlanWith(const Tuner& tuner, const profile::Profile& p, const SysRoot& root) {
  SystemState state = CollectSystemState(root, PlanSections());
  auto plan = tuner.Plan(PlanContext{p, root, state});
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(*plan);
}

}  // namespace rtagent::tune_testing
