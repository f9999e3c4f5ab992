// `rtagent accept PROFILE`: the loaded latency acceptance test. Loads go on the housekeeping
// CPUs, the sampler measures the profile's CPUs, and the verdict says PASS only when every
// criterion holds (the pre-flight checks among them), with everything that weakens the
// figures (a virtual machine first) stated. The run itself is cli/acceptance_run.h's.
#include <iostream>

#include "base/exit_codes.h"
#include "cli/acceptance_run.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "profile/builtin_suites.h"

namespace rtagent {

int CmdAccept(const GlobalOptions& g, const AcceptOptions& o) {
  {
    auto root = OpenRoot(g.root);
    if (root && !(*root)->IsLive()) {
      std::cerr << "rtagent accept: " << AcceptanceCannotRunReason(**root, 0) << "\n";
      return kExitCannotRun;
    }
  }
  int rc = kExitOk;
  auto lp = LoadForCommand("accept", g, o.profile, &rc);
  if (!lp) return rc;

  AcceptanceRequest req;
  req.duration = o.duration;
  req.outputs = {{o.json, "json"}, {o.junit, "junit"}, {o.md, "md"}, {o.svg, "svg"}, {o.hist, "hist"}, {o.html, "html"}};
  req.baseline = o.baseline;
  req.baseline_rules.allow_missing = o.allow_missing;
  req.progress_every = o.progress_every;
  auto rules_ok = AddTolerances(req.baseline_rules, o.tolerance);
  if (rules_ok) rules_ok = AddRequireSame(req.baseline_rules, o.require_same);
  if (rules_ok && o.baseline.empty() && (!o.tolerance.empty() || !o.require_same.empty() || o.allow_missing)) {
    rules_ok = MakeError("--tolerance, --require-same and --allow-missing compare with a --baseline FILE; none was given");
  }
  if (!rules_ok) {
    std::cerr << "rtagent accept: " << rules_ok.error().message << "; nothing was run\n";
    return kExitBadInput;
  }
  req.version = o.version;
  // --preflight, else the suite the profile names (as verify and commission run it: a gate's
  // profile names ci, whose PI check is what a kernel change must not break), else boot.
  const auto& named = lp->profile.checks.suite;
  req.preflight_suite = !o.preflight.empty() ? o.preflight : named.IsSet() ? *named : std::string(profile::kBootSuite);
  req.color = g.color;
  auto prep = PrepareAcceptance(*lp, req);
  if (!prep) {
    std::cerr << "rtagent accept: " << prep.error().message << "; nothing was run\n";
    return kExitBadInput;
  }
  if (std::string why = AcceptanceCannotRunReason(*lp->root, lp->profile.acceptance.priority.value); !why.empty()) {
    std::cerr << "rtagent accept: " << why << ". Nothing was run\n";
    return kExitCannotRun;
  }
  return RunAcceptance(**prep, req).exit_code;
}

}  // namespace rtagent
