// `rtagent commission [PROFILE]`: the engineer's whole loop at the bench, one step after
// another: validate the profile, show the board's real-time state, plan every change, apply
// it through the journal, verify it with the profile's check suite, run the loaded latency
// acceptance test with verify's answers as its pre-flight checks, and write the verdict in
// every format. `--revert-after` puts back what this run changed, whatever happened.
//
// Under --root FIXTURE the loop runs on the tree (apply writes into it, as `apply --root`
// does) up to verify; the latency test is refused (there is no clock to measure in a tree)
// and the exit code is 3. Without root on the live system it stops after the plan (exit 3).
// Anywhere, a write that fails mid-apply rolls back what the run wrote and stops the loop
// (exit 4, no verdict), and Ctrl-C stops it after the current step (exit 1, no verdict before
// the latency test).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <iostream>

#include "base/ansi_style.h"
#include "base/count_text.h"
#include "base/exit_codes.h"
#include "base/time_text.h"
#include "check/preflight.h"
#include "check/runner.h"
#include "cli/acceptance_run.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "cli/stop_signal.h"
#include "inspect/inspect_text.h"
#include "inspect/system_state.h"
#include "profile/builtin_suites.h"
#include "tune/apply_profile.h"
#include "tune/cores_tuner.h"
#include "tune/plan_render.h"
#include "tune/refusals.h"
#include "tune/tuner.h"

namespace rtagent {

namespace {

namespace fs = std::filesystem;

std::string Step(bool color, int n, const std::string& title) {
  std::string t = "== step " + std::to_string(n) + ": " + title + " ==";
  return Paint(color, "1", t) + "\n";
}

/// The default output directory: ./rtagent-commission-<UTC time>, one per run.
std::string DefaultOutDir() { return "rtagent-commission-" + IsoTimeBasic(UnixNow()); }

/// Refuses an output directory that cannot be made or written, before anything changes.
/// An existing directory is used as it is (its verdict files are replaced whole).
Result<void> CheckOutDir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return MakeError("--out " + dir + ": exists and is not a directory");
    if (::access(dir.c_str(), W_OK) != 0) return MakeError("--out " + dir + ": cannot write into it", errno);
    return Ok();
  }
  std::string parent = fs::path(dir).lexically_normal().parent_path().string();
  if (parent.empty()) parent = ".";
  if (::stat(parent.c_str(), &st) != 0) return MakeError("--out " + dir + ": its parent " + parent + " is missing", errno);
  if (!S_ISDIR(st.st_mode)) return MakeError("--out " + dir + ": its parent " + parent + " is not a directory");
  if (::access(parent.c_str(), W_OK) != 0) return MakeError("--out " + dir + ": cannot create it in " + parent, errno);
  return Ok();
}

/// Puts back what this run applied when it ends, on every path out of the command (a step
/// that fails, Ctrl-C, an early return), unless Done() already did it.
class RevertAfter {
 public:
  RevertAfter(SysRoot& root, bool armed) : root_(root), armed_(armed) {}
  ~RevertAfter() { Done(); }
  RevertAfter(const RevertAfter&) = delete;
  RevertAfter& operator=(const RevertAfter&) = delete;

  /// Nothing is left to put back (apply's own rollback was complete): no revert at the end.
  void Disarm() { armed_ = false; }

  /// Reverts now (once). False when a value could not be put back.
  bool Done() {
    if (!armed_) return ok_;
    armed_ = false;
    std::cout << "\n-- --revert-after: putting back every value this run changed\n";
    auto r = RevertJournal(root_);
    if (!r) {
      std::cerr << "rtagent commission: revert: " << r.error().message << "; run `rtagent revert`\n";
      return ok_ = false;
    }
    std::cout << RenderRevertText(*r);
    if (!r->complete) std::cerr << "rtagent commission: some values were not put back; see above and run `rtagent revert`\n";
    return ok_ = r->complete;
  }

 private:
  SysRoot& root_;
  bool armed_;
  bool ok_ = true;
};

/// Removes the output directory again when this run made it and wrote nothing into it.
class OutDirGuard {
 public:
  explicit OutDirGuard(std::string dir) : dir_(std::move(dir)) {}
  ~OutDirGuard() {
    std::error_code ec;
    if (made_ && fs::is_empty(dir_, ec) && !ec) fs::remove(dir_, ec);
  }
  OutDirGuard(const OutDirGuard&) = delete;
  OutDirGuard& operator=(const OutDirGuard&) = delete;
  Result<void> Make() {
    std::error_code ec;
    if (fs::is_directory(dir_, ec)) return Ok();
    if (!fs::create_directory(dir_, ec)) return MakeError("cannot create " + dir_, ec.value());
    made_ = true;
    return Ok();
  }

 private:
  std::string dir_;
  bool made_ = false;
};

/// Says where Ctrl-C (SIGINT, SIGTERM) stopped the loop and what becomes of the changes.
/// Interrupted is exit 1, as a FAIL: no verdict was reached (docs/latency.md).
int Stopped(const std::string& where, const std::string& changes) {
  // What the loop printed before the stop goes out first: in a log that takes both streams
  // (`2>&1`, a CI job) the stop line would otherwise land inside the buffered step output.
  std::cout.flush();
  std::cerr << "rtagent commission: interrupted " << where << "; the loop stops here; " << changes << "\n";
  return kExitFail;
}

/// Why apply was rolled back and what that left: the write that failed, with its error, and
/// whether every value written before it is back (exit 4).
std::string RollbackSummary(const ApplyReport& report) {
  std::string out = "apply failed";
  for (const ChangeResult& r : report.results) {
    if (r.outcome == Outcome::kFailed) {
      out += " at " + r.change.what + " (" + r.detail + ")";
      break;
    }
  }
  const int undone = report.Count(Outcome::kRolledBack);
  if (!report.rollback_errors.empty()) {
    return out + "; some values written before it could not be put back (listed above): run `rtagent revert`";
  }
  if (undone == 0) return out + "; nothing had been written, nothing was changed";
  return out + "; the " + CountOf(undone, "value", "values") + " written before it " + (undone == 1 ? "was" : "were") +
         " rolled back, nothing was changed";
}

}  // namespace

int CmdCommission(const GlobalOptions& g, const CommissionOptions& o) {
  StopSignals signals;  // Ctrl-C ends the current step, then reverts (--revert-after) and exits
  // Each step shows as it happens, also through a pipe or into a log (`| tee`, CI).
  std::cout << std::unitbuf;

  // 1. validate
  std::cout << Step(g.color, 1, "validate the profile");
  int rc = kExitOk;
  auto lp = LoadForCommand("commission", g, o.profile, &rc);
  if (!lp) return rc;
  SysRoot& root = *lp->root;
  const profile::Profile& p = lp->profile;
  std::cout << p.path << ": valid (" << profile::Summary(p) << ")\n";

  // Every input is checked before anything changes: duration, loads, outputs, the journal.
  const std::string out_dir = o.out_dir.empty() ? DefaultOutDir() : o.out_dir;
  AcceptanceRequest req;
  req.command = "commission";
  req.duration = o.duration;
  req.version = o.version;
  req.color = g.color;
  req.log_dir = out_dir;
  req.outputs = {{o.json, "json"}, {o.junit, "junit"}, {o.md, "md"}, {o.svg, "svg"}, {o.hist, "hist"}, {o.html, "html"}};
  auto bad_input = [](const std::string& why) {
    std::cerr << "rtagent commission: " << why << "; nothing was changed\n";
    return kExitBadInput;
  };
  auto prep = PrepareAcceptance(*lp, req);  // checks the extra outputs too
  if (!prep) return bad_input(prep.error().message);
  if (auto ok = CheckOutDir(out_dir); !ok) return bad_input(ok.error().message);
  if (o.revert_after && JournalPresent(root)) {
    std::cerr << "rtagent commission: a journal of an earlier apply is on this system; --revert-after would undo it "
                 "too. Run `rtagent revert` first, or commission without --revert-after. Nothing was changed\n";
    return kExitCannotRun;
  }
  std::cout << "\n";

  // 2. inspect
  std::cout << Step(g.color, 2, "inspect the system (" + root.Dir() + ")");
  SystemState state = CollectSystemState(root);
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
  auto plan = PlanAll(p, root, state);
  if (!plan) {
    std::cerr << "rtagent commission: " << plan.error().message << "; nothing was changed\n";
    return kExitCannotRun;
  }
  auto refusals = RefusalRecord::Load(root);  // an earlier apply's, marked as `rtagent plan` marks them
  if (!refusals) std::cerr << "rtagent commission: " << refusals.error().message << "; the kernel's refusals are not shown\n";
  std::cout << RenderPlanText(*plan, g.color, refusals ? *refusals : std::vector<Refusal>{}) << "\n";
  if (StopFlag().load()) return Stopped("after the plan", "nothing was changed");

  // 4. apply
  std::cout << Step(g.color, 4, "apply the runtime changes (journaled in /" + Journal::Path() + ")");
  if (!CanWrite("commission", root)) {
    std::cerr << "rtagent commission: apply, verify and the latency test need root; stopped after the plan\n";
    return kExitCannotRun;
  }
  if (!NoHoldBeside("commission", root)) return kExitCannotRun;
  const auto lock = ClaimWriting("commission", root);  // before revert_after: held through its revert
  if (!lock) return kExitCannotRun;
  RevertAfter revert_after(root, o.revert_after);
  auto applied = ApplyProfile(p, root);  // a stop during it ends the step whole, then stops (below)
  if (!applied) {
    std::cerr << "rtagent commission: " << applied.error().message << "; nothing was changed\n";
    return kExitCannotRun;
  }
  if (applied->report.results.empty()) {
    std::cout << "nothing to do: the system already matches " << p.path << "\n";
  } else {
    std::cout << RenderApplyText(applied->report, applied->plan, g.color);
  }
  if (applied->report.rolled_back) {
    // No verdict: nothing was measured, and the tuning it would judge is not in place. A
    // complete rollback left nothing for --revert-after; an incomplete one left the journal,
    // and --revert-after tries those values once more.
    if (applied->report.rollback_errors.empty()) revert_after.Disarm();
    std::cerr << "rtagent commission: " << RollbackSummary(applied->report) << "; the loop stops here\n";
    return kExitRolledBack;
  }
  // What an interruption from here on leaves behind (--revert-after reverts on the way out).
  const std::string changes_left = o.revert_after ? "--revert-after puts back what this run changed"
                                   : applied->report.Count(Outcome::kApplied) == 0
                                       ? "this run changed nothing"
                                       : "the changes stay in place; `rtagent revert` puts them back";
  // Boot arguments not in effect yet: said here and first in the verdict (issue 12).
  req.boot_args_pending = BootArgsNotBooted(applied->plan, p);
  std::cout << RenderRebootNotice(applied->plan, applied->report, req.boot_args_pending, g.color);
  if (!o.revert_after && !applied->report.results.empty()) {
    std::cout << "the changes stay in place; `rtagent revert` puts them back\n";
  }
  std::cout << "\n";
  if (StopFlag().load()) return Stopped("after apply", changes_left);

  // 5. verify
  auto suite = check::LoadSuite(p.checks.suite.value.empty() ? profile::kDefaultSuite : p.checks.suite.value);
  if (!suite) {
    std::cerr << "rtagent commission: check suite: " << suite.error().message << "\n";
    return kExitCannotRun;
  }
  std::cout << Step(g.color, 5, "verify: the " + suite->name + " check suite");
  check::RunOptions ro;
  ro.stop = &StopFlag();
  ro.on_check = [](const std::string&, const std::vector<check::CheckResult>& results) {
    for (const check::CheckResult& r : results) {
      std::cout << "  " << check::ToString(r.status) << "  " << r.id << (r.summary.empty() ? "" : ": " + r.summary)
                << "\n";
      if (r.status == check::Status::kFail && !r.hint.empty()) std::cout << "        hint: " << r.hint << "\n";
    }
    std::cout << std::flush;
  };
  const check::SuiteReport checks = check::RunSuite(p, root, *suite, ro);
  std::cout << "verify: " << check::ToString(checks.Overall()) << " (" << checks.Count(check::Status::kPass)
            << " passed, " << checks.Count(check::Status::kWarn) << " warned, " << checks.Count(check::Status::kFail)
            << " failed, " << checks.Count(check::Status::kSkip) << " skipped); each check is a pre-flight criterion "
            << "of the verdict\n\n";
  if (StopFlag().load()) return Stopped("during verify", changes_left);

  // 6. accept
  std::cout << Step(g.color, 6, "the loaded latency acceptance test");
  if (std::string why = AcceptanceCannotRunReason(root, p.acceptance.priority.value); !why.empty()) {
    std::cerr << "rtagent commission: acceptance test refused: " << why << "; no verdict was written\n";
    revert_after.Done();
    return kExitCannotRun;
  }
  OutDirGuard out_guard(out_dir);
  if (auto ok = out_guard.Make(); !ok) {
    std::cerr << "rtagent commission: " << ok.error().message << "\n";
    return kExitCannotRun;
  }
  const std::string base = (fs::path(out_dir) / "verdict").string();
  for (const auto& [ext, format] : std::vector<std::pair<std::string, std::string>>{
           {".json", "json"}, {".junit.xml", "junit"}, {".md", "md"}, {".svg", "svg"}, {".hist", "hist"}, {".html", "html"}}) {
    req.outputs.push_back({base + ext, format});
  }
  AcceptanceOutcome outcome = RunAcceptance(**prep, req, check::PreflightFromSuite(checks));

  // 7. the verdict
  if (outcome.verdict) {
    std::cout << "\n" << Step(g.color, 7, "the verdict");
    for (const VerdictOutput& out : req.outputs) {
      if (!out.path.empty() && out.path != "-" && fs::exists(out.path)) std::cout << "  " << out.path << "\n";
    }
    if (outcome.verdict->host.virtual_machine) {
      std::cout << "  measured on a virtual machine: these are virtual-machine figures, not the board's real-time "
                   "figures\n";
    }
  }
  const bool restored = revert_after.Done();
  if (!restored && outcome.exit_code == kExitOk) return kExitFail;
  return outcome.exit_code;
}

}  // namespace rtagent
