// `rtagent plan`, `apply`, `verify` (a suite of checks, conformance first) and `revert`.
#include <unistd.h>

#include <iostream>

#include "base/exit_codes.h"
#include "check/render.h"
#include "check/runner.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "cli/stop_signal.h"
#include "cli/verdict_files.h"
#include "tune/apply_profile.h"
#include "tune/plan_render.h"
#include "tune/refusals.h"
#include "tune/tuner.h"

namespace rtagent {

int CmdPlan(const GlobalOptions& g, const PlanOptions& o) {
  int rc = kExitOk;
  auto lp = LoadForCommand("plan", g, o.profile, &rc);
  if (!lp) return rc;
  auto plan = PlanAll(lp->profile, *lp->root);
  if (!plan) {
    std::cerr << "rtagent plan: " << plan.error().message << "\n";
    return kExitCannotRun;
  }
  // What an earlier apply met: the changes the kernel refused are marked, not hidden.
  auto refusals = RefusalRecord::Load(*lp->root);
  if (!refusals) std::cerr << "rtagent plan: " << refusals.error().message << "; the kernel's refusals are not shown\n";
  const std::vector<Refusal> refused = refusals ? std::move(*refusals) : std::vector<Refusal>{};
  if (o.json) {
    auto j = PlanJson(*plan, refused);
    j["profile"] = lp->profile.path;
    j["root"] = lp->root->Dir();
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "plan for " << lp->profile.path << " on " << lp->root->Dir() << " (" << profile::Summary(lp->profile)
              << ")\n\n"
              << RenderPlanText(*plan, g.color, refused);
  }
  return kExitOk;
}

int CmdApply(const GlobalOptions& g, const PlanOptions& o) {
  int rc = kExitOk;
  auto lp = LoadForCommand("apply", g, o.profile, &rc);
  if (!lp) return rc;
  if (!CanWrite("apply", *lp->root) || !NoHoldBeside("apply", *lp->root)) return kExitCannotRun;
  const auto lock = ClaimWriting("apply", *lp->root);
  if (!lock) return kExitCannotRun;
  StopSignals stop;  // Ctrl-C, SIGTERM, a dropped SSH session: roll back, never die half-way
  auto applied = ApplyProfile(lp->profile, *lp->root, &StopFlag());  // tune/apply_profile.h, shared with commission
  if (!applied) {
    std::cerr << "rtagent apply: " << applied.error().message << "; nothing was changed\n";
    return kExitCannotRun;
  }
  const FullPlan* plan = &applied->plan;
  const ApplyReport& report = applied->report;
  if (o.json) {
    auto j = ApplyJson(report, *plan);
    j["profile"] = lp->profile.path;
    j["root"] = lp->root->Dir();
    j["journal"] = lp->root->HostPath(Journal::Path());
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
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
  const std::string suite_name = o.suite.empty() ? *lp->profile.checks.suite : o.suite;
  auto suite = check::LoadSuite(suite_name);
  if (!suite) {
    std::cerr << suite.error().message << "\nrtagent verify: bad suite " << suite_name << "; nothing was checked\n";
    return kExitBadInput;
  }
  if (!o.junit.empty()) {
    if (auto w = CheckWritable(o.junit); !w) {
      std::cerr << "rtagent verify: --junit " << o.junit << ": " << w.error().message << "\n";
      return kExitBadInput;
    }
  }
  if (lp->root->IsLive() && ::geteuid() != 0) {
    auto need = check::NeedsRoot(*suite, lp->profile);
    if (!need.empty()) {
      std::cerr << "rtagent verify: the " << need.front() << " check drives the kernel's tracer and needs root: run it "
                << "with sudo, pick a suite without it (--suite boot) or set checks." << need.front() << ": false\n";
      return kExitCannotRun;
    }
  }

  // Ctrl-C (or SIGTERM) stops a long interrupts or hwlat window early; the checks not run are
  // left out and the report says it was interrupted.
  StopSignals stop_signals;
  check::RunOptions options;
  options.stop = &StopFlag();
  if (!o.json) {
    options.on_check = [](const std::string& name, const std::vector<check::CheckResult>&) {
      if (::isatty(STDERR_FILENO)) std::cerr << "  checked " << name << "\n";
    };
  }
  check::SuiteReport report = check::RunSuite(lp->profile, *lp->root, *suite, options);

  if (o.json) {
    std::cout << check::SuiteJson(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << check::RenderSuiteText(report, g.color);
  }
  if (!o.junit.empty()) {
    if (auto w = WriteTextFile(o.junit, check::RenderSuiteJUnit(report)); !w) {
      std::cerr << "rtagent verify: cannot write --junit " << o.junit << ": " << w.error().message << "\n";
      return kExitCannotRun;
    }
  }
  if (report.interrupted) std::cerr << "rtagent verify: interrupted\n";
  return report.Count(check::Status::kFail) > 0 || report.interrupted ? kExitFail : kExitOk;
}

int CmdRevert(const GlobalOptions& g, const RevertOptions& o) {
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent revert: " << root.error().message << "\n";
    return kExitBadInput;
  }
  if (!CanWrite("revert", **root) || !NoHoldBeside("revert", **root)) return kExitCannotRun;
  const auto lock = ClaimWriting("revert", **root);
  if (!lock) return kExitCannotRun;
  StopSignals stop;  // a stop signal waits for the revert to end: half a revert helps nobody
  auto reverted = RevertJournal(**root);  // tune/apply_profile.h, shared with commission
  if (StopFlag().load()) std::cerr << "rtagent revert: stopped by a signal after every value it could put back was put back\n";
  if (!reverted) {
    std::cerr << "rtagent revert: " << reverted.error().message << "\n";
    return kExitCannotRun;
  }
  const RevertReport& report = *reverted;
  NoteRevertInHoldState("revert", **root, report);
  if (o.json) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& r : report.results) {
      items.push_back({{"what", r.change.what},
                       {"key", r.change.key},
                       {"restored", r.change.after},
                       {"outcome", r.outcome == Outcome::kApplied ? "restored" : r.outcome == Outcome::kAlreadySet ? (r.detail == "gone" ? "gone" : "already") : "failed"},
                       {"detail", r.detail}});
      for (const CommandRun& run : r.runs) items.back()["runs"].push_back(RunJson(run));
    }
    std::cout << nlohmann::json{{"items", items}, {"complete", report.complete}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << RenderRevertText(report);
  }
  return report.complete ? kExitOk : kExitFail;
}

}  // namespace rtagent
