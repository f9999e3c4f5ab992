// `rtagent commission [PROFILE]`: the engineer's whole loop at the bench, as far as it is
// built: validate the profile, show the board's real-time state, plan every change, and check
// what already conforms. Each step that is not built yet is named, never silently skipped.
#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "inspect/inspect_text.h"
#include "inspect/system_state.h"
#include "tune/plan_render.h"
#include "tune/tuner.h"

namespace rtagent {

namespace {

std::string Step(bool color, int n, const std::string& title) {
  std::string t = "== step " + std::to_string(n) + ": " + title + " ==";
  return (color ? "\033[1m" + t + "\033[0m" : t) + "\n";
}

}  // namespace

int CmdCommission(const GlobalOptions& g, const CommissionOptions& o) {
  // 1. validate
  std::cout << Step(g.color, 1, "validate the profile");
  int rc = kExitOk;
  auto lp = LoadForCommand("commission", g, o.profile, &rc);
  if (!lp) return rc;
  std::cout << lp->profile.path << ": valid (" << profile::Summary(lp->profile) << ")\n\n";

  // 2. inspect
  std::cout << Step(g.color, 2, "inspect the system (" + lp->root->Dir() + ")");
  SystemState state = CollectSystemState(*lp->root);
  TextOptions t;
  t.color = g.color;
  t.max_rows = 20;
  std::cout << InspectText(state, t) << "\n";
  if (state.clock && state.clock->hypervisor.present) {
    std::cout << "note: this is a virtual machine; any latency figure measured here is a virtual-machine figure, "
                 "not the board's real-time figure\n\n";
  }

  // 3. plan
  std::cout << Step(g.color, 3, "plan every change the profile needs");
  auto plan = PlanAll(lp->profile, *lp->root);
  if (!plan) {
    std::cerr << "rtagent commission: " << plan.error().message << "\n";
    return kExitCannotRun;
  }
  std::cout << RenderPlanText(*plan, g.color) << "\n";

  // 4. what is not built yet
  std::cout << Step(g.color, 4, "not done by commission yet");
  std::cout << "- apply: commission does not change the system yet; run `rtagent apply"
            << (o.profile.empty() ? "" : " " + o.profile) << "` (as root), `rtagent verify` to check, `rtagent revert` to undo\n"
            << "- checks (PREEMPT_RT, interrupts on isolated CPUs, hwlat, clock honesty, lint): not built yet\n"
            << "- loaded latency acceptance test: not run by commission yet; run `rtagent accept "
            << (o.profile.empty() ? "PROFILE" : o.profile) << "` (as root) for the pass/fail verdict\n";
  return kExitOk;
}

}  // namespace rtagent
