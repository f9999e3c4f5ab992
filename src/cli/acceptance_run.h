// The loaded latency acceptance test as a step of a command: `rtagent accept` runs it alone,
// `commission` runs it after apply and verify with verify's answers as the pre-flight checks.
// This layer checks the command's input whole before anything runs (PrepareAcceptance), then
// runs the test (latency/acceptance.h), has the verdict judged (report/acceptance_verdict.h),
// writes and prints it and picks the exit code (RunAcceptance).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "cli/profile_arg.h"
#include "cli/verdict_files.h"
#include "latency/acceptance.h"
#include "profile/builtin_suites.h"
#include "report/diff.h"
#include "report/verdict.h"

namespace rtagent {

struct AcceptanceRequest {
  std::string command = "accept";  ///< names the command in messages
  std::string duration;            ///< --duration ("30s"); empty: acceptance.duration
  std::vector<VerdictOutput> outputs;
  std::string baseline;            ///< a previous verdict (JSON); a regression fails the run
  DiffRules baseline_rules;        ///< tolerances, --require-same and --allow-missing against the baseline
  std::string progress_every;      ///< --progress-every D; empty: 1 min when stdout is not a terminal; "0": none
  std::string version;             ///< rtagent's version, written into the verdict
  std::string log_dir;             ///< external loads' logs; empty: beside --json, else the temp dir
  /// The check suite run as pre-flight when the caller gives no answers of its own:
  /// a name ("boot", fast) or a suite file; "none" runs none.
  std::string preflight_suite = profile::kBootSuite;
  bool color = false;
  /// The profile's boot arguments not in effect yet (commission wrote them for the next boot):
  /// the verdict says first that the measured CPUs are not isolated until the reboot.
  std::vector<std::string> boot_args_pending;
};

/// A run whose input was checked: duration, sampler configuration, loads (an external program
/// missing from PATH is found here), outputs and baseline.
class PreparedAcceptance;

/// Checks the request against the profile; every error is bad input (exit 2) and nothing ran.
/// The profile's acceptance.duration becomes the run's (--duration), so the checks that judge
/// it (lint.acceptance_short, commission's verify) judge the run that will happen.
Result<std::shared_ptr<PreparedAcceptance>> PrepareAcceptance(LoadedProfile& lp, const AcceptanceRequest& request);

/// What a run gives back besides its exit code.
struct AcceptanceOutcome {
  int exit_code = 0;              ///< 0 PASS, 1 FAIL, 3 could not run or write
  std::optional<Verdict> verdict; ///< set whenever the sampler ran
};

/// The tuning in force under `root`, from rtagent's journal (runtime and boot files): every
/// change counted, the first TuningInForce::kListed listed. A journal that cannot be read is
/// recorded as such (the run still runs: the figures stand, what they were measured under is
/// unknown).
TuningInForce ReadTuningInForce(SysRoot& root);

/// Runs the test: pre-flight (`preflight` when given, else the request's suite), loads on the
/// housekeeping CPUs, the sampler, then the verdict judged and written to `request.outputs`
/// and summarised on stdout. Ctrl-C (StopFlag) stops the sampler early; the verdict is still
/// written, marked interrupted. Call once per PreparedAcceptance.
AcceptanceOutcome RunAcceptance(PreparedAcceptance& prepared, const AcceptanceRequest& request,
                                std::optional<std::vector<PreflightCheck>> preflight = std::nullopt);

}  // namespace rtagent
