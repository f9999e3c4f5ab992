// `rtagent plan`, `apply`, `verify` (conformance) and `revert`.
#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "tune/plan_render.h"
#include "tune/tuner.h"

namespace rtagent {

namespace {

// An Executor with every tuner's actuators registered.
std::unique_ptr<Executor> MakeExecutor(SysRoot& root, Journal& journal) {
  auto ex = std::make_unique<Executor>(root, journal);
  for (const auto& t : AllTuners()) t->AddActuators(*ex, root);
  return ex;
}

}  // namespace

int CmdPlan(const GlobalOptions& g, const PlanOptions& o) {
  int rc = kExitOk;
  auto lp = LoadForCommand("plan", g, o.profile, &rc);
  if (!lp) return rc;
  auto plan = PlanAll(lp->profile, *lp->root);
  if (!plan) {
    std::cerr << "rtagent plan: " << plan.error().message << "\n";
    return kExitCannotRun;
  }
  if (o.json) {
    auto j = PlanJson(*plan);
    j["profile"] = lp->profile.path;
    j["root"] = lp->root->Dir();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "plan for " << lp->profile.path << " on " << lp->root->Dir() << " (" << profile::Summary(lp->profile)
              << ")\n\n"
              << RenderPlanText(*plan, g.color);
  }
  return kExitOk;
}

int CmdApply(const GlobalOptions& g, const PlanOptions& o) {
  int rc = kExitOk;
  auto lp = LoadForCommand("apply", g, o.profile, &rc);
  if (!lp) return rc;
  if (!CanWrite("apply", *lp->root)) return kExitCannotRun;
  auto plan = PlanAll(lp->profile, *lp->root);
  if (!plan) {
    std::cerr << "rtagent apply: " << plan.error().message << "; nothing was changed\n";
    return kExitCannotRun;
  }
  Journal journal(*lp->root);
  if (auto r = journal.Load(); !r) {
    std::cerr << "rtagent apply: " << r.error().message << "\n";
    return kExitCannotRun;
  }
  auto ex = MakeExecutor(*lp->root, journal);
  ApplyReport report = ex->Apply(plan->PendingChanges());
  if (o.json) {
    auto j = ApplyJson(report, *plan);
    j["profile"] = lp->profile.path;
    j["root"] = lp->root->Dir();
    j["journal"] = lp->root->Dir() + (lp->root->Dir() == "/" ? "" : "/") + Journal::Path();
    std::cout << j.dump(2) << "\n";
  } else {
    if (report.results.empty()) {
      std::cout << "nothing to do: the system already matches " << lp->profile.path << "\n";
    } else {
      std::cout << RenderApplyText(report, *plan, g.color);
    }
  }
  return report.rolled_back ? kExitRolledBack : kExitOk;
}

int CmdVerify(const GlobalOptions& g, const VerifyOptions& o) {
  int rc = kExitOk;
  auto lp = LoadForCommand("verify", g, o.profile, &rc);
  if (!lp) return rc;
  auto plan = PlanAll(lp->profile, *lp->root);
  if (!plan) {
    std::cerr << "rtagent verify: " << plan.error().message << "\n";
    return kExitCannotRun;
  }
  auto j = ConformanceJson(*plan);
  bool conforms = j["summary"]["differs"].get<int>() == 0;
  if (o.json) {
    j["profile"] = lp->profile.path;
    j["root"] = lp->root->Dir();
    j["result"] = conforms ? "PASS" : "FAIL";
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "verify " << lp->profile.path << " on " << lp->root->Dir() << "\n\n" << RenderConformanceText(*plan, g.color);
    std::cout << (conforms ? "PASS" : "FAIL") << ": the runtime state " << (conforms ? "matches" : "does not match")
              << " the profile\n";
  }
  return conforms ? kExitOk : kExitFail;
}

int CmdRevert(const GlobalOptions& g, const RevertOptions& o) {
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent revert: " << root.error().message << "\n";
    return kExitBadInput;
  }
  if (!CanWrite("revert", **root)) return kExitCannotRun;
  Journal journal(**root);
  if (auto r = journal.Load(); !r) {
    std::cerr << "rtagent revert: " << r.error().message << "\n";
    return kExitCannotRun;
  }
  auto ex = MakeExecutor(**root, journal);
  RevertReport report = ex->Revert();
  if (o.json) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& r : report.results) {
      items.push_back({{"what", r.change.what},
                       {"key", r.change.key},
                       {"restored", r.change.after},
                       {"outcome", r.outcome == Outcome::kApplied ? "restored" : r.outcome == Outcome::kAlreadySet ? (r.detail == "gone" ? "gone" : "already") : "failed"},
                       {"detail", r.detail}});
    }
    std::cout << nlohmann::json{{"items", items}, {"complete", report.complete}}.dump(2) << "\n";
  } else {
    std::cout << RenderRevertText(report);
  }
  return report.complete ? kExitOk : kExitFail;
}

}  // namespace rtagent
