// The subcommands' entry points. main.cc parses the command line (CLI11) and calls these;
// each returns an ExitCode (base/exit_codes.h). Only this layer turns errors into exit codes.
#pragma once

#include <string>
#include <vector>

namespace rtagent {

/// Options every subcommand shares.
struct GlobalOptions {
  std::string root = "/";  ///< --root DIR: every kernel interface is read under DIR
  bool color = false;      ///< stdout is a terminal and NO_COLOR is unset
};

struct ValidateOptions {
  std::string profile;  ///< path, or empty for the built-in default
  bool json = false;
};
/// `rtagent validate PROFILE`: 0 when valid, 2 with every problem as file:line:column.
int CmdValidate(const GlobalOptions& g, const ValidateOptions& o);

struct ProfilesOptions {
  bool names = false;  ///< --names: the names only, one per line (shell completion)
  bool json = false;
};
/// `rtagent profiles`: every profile name the search path holds, its description and directory.
int CmdProfiles(const GlobalOptions& g, const ProfilesOptions& o);

struct InspectOptions {
  bool json = false;
  std::string section;  ///< optional: only this section (kernel, cpus, irqs, threads, ...)
};
/// `rtagent inspect [--json]`: the real-time state of the system.
int CmdInspect(const GlobalOptions& g, const InspectOptions& o);

struct CaptureOptions {
  std::string out_dir;
  bool force = false;  ///< allow a non-empty output directory
  std::string profile;  ///< planned through the copy as well; empty for the built-in default
};
/// `rtagent capture -o DIR [PROFILE]`: copies every file inspect and the plan of PROFILE read
/// into a tree --root accepts.
int CmdCapture(const GlobalOptions& g, const CaptureOptions& o);

struct PlanOptions {
  std::string profile;  ///< path, or empty for the built-in default
  bool json = false;
};
/// `rtagent plan PROFILE`: every change as before -> after; writes nothing.
int CmdPlan(const GlobalOptions& g, const PlanOptions& o);

/// `rtagent apply PROFILE`: journals, applies, rolls back on failure (exit 4).
int CmdApply(const GlobalOptions& g, const PlanOptions& o);

struct VerifyOptions {
  std::string profile;
  bool json = false;
  std::string suite;  ///< a built-in suite (profile/builtin_suites.h) or a suite file
  std::string junit;  ///< write JUnit XML here
};
/// `rtagent verify PROFILE`: plans again and reports each item as matching or not.
int CmdVerify(const GlobalOptions& g, const VerifyOptions& o);

struct RevertOptions {
  bool json = false;
};
/// `rtagent revert`: puts back every value the journal holds.
int CmdRevert(const GlobalOptions& g, const RevertOptions& o);

struct CommissionOptions {
  std::string profile;   ///< path, or empty for the built-in default
  std::string duration;  ///< --duration: overrides acceptance.duration
  std::string out_dir;   ///< --out DIR: every verdict file; default ./rtagent-commission-<UTC time>
  std::string json, junit, md, svg, hist, html;  ///< extra copies of the verdict ("-" is stdout)
  bool revert_after = false;  ///< put back every value this run changed, at the end, whatever happened
  std::string version;        ///< rtagent's version, written into the verdict
};
/// `rtagent commission [PROFILE]`: validate, inspect, plan, apply, verify, accept, verdict;
/// `--revert-after` puts the system back. 0 PASS, 1 FAIL, 2 bad input, 3 a step cannot run
/// here (not root; accept under --root), 4 apply rolled back.
int CmdCommission(const GlobalOptions& g, const CommissionOptions& o);


struct ExplainOptions {
  std::string profile;   ///< path, or empty for the built-in default (the CPUs, limit and duration of acceptance)
  std::string cpus;      ///< --cpus LIST: overrides acceptance.cpus
  std::string duration;  ///< --duration D: the longest recording; default acceptance.duration
  long long threshold_us = -1;  ///< --threshold US: stop at the first wake-up later than this; default acceptance.max_us
  std::string json;      ///< --json FILE: the attribution as JSON ("-" stdout)
  std::string trace;     ///< --trace FILE: save the recorded trace (ftrace text, opens in ui.perfetto.dev)
  std::string from;      ///< --from TRACE: explain a saved trace instead of recording one
  std::vector<std::string> diff;  ///< --diff A B: the causes of two traces or verdicts side by side
};
/// `rtagent explain`: records the timerlat tracer on the measured CPUs until a wake-up is later
/// than the threshold (or the duration ends) and prints why it was late; `--from` re-reads a
/// saved trace; `--diff A B` compares the causes of two (0). 1 the threshold was crossed, 0
/// not, 2 bad input or an unreadable trace, 3 the kernel offers no tracer (or not root).
int CmdExplain(const GlobalOptions& g, const ExplainOptions& o);

struct AcceptOptions {
  std::string profile;   ///< path, or empty for the built-in default
  std::string duration;  ///< --duration: overrides acceptance.duration ("2h", "30s")
  std::string json, junit, md, svg, hist, html;  ///< output files ("-" is stdout)
  std::string baseline;  ///< a previous verdict (JSON) to diff against; a regression fails
  std::string version;   ///< rtagent's version, written into the verdict
  std::string preflight;  ///< --preflight SUITE: the checks run first (default "boot"; "none")
  std::vector<std::string> tolerance;     ///< --tolerance STAT=N%|Nus,... against the baseline
  std::vector<std::string> require_same;  ///< --require-same profile|host|kernel: a difference is exit 2
  bool allow_missing = false;             ///< --allow-missing: a role of the baseline missing now is not a regression
  std::string progress_every;  ///< --progress-every D: a plain progress line every D; empty: 1 min without a terminal; "0": none
};
/// `rtagent accept PROFILE`: the loaded latency acceptance test. 0 PASS, 1 FAIL, 2 bad input,
/// 3 cannot run here (not root, a fixture root).
int CmdAccept(const GlobalOptions& g, const AcceptOptions& o);

struct DiffOptions {
  std::string before, after;  ///< verdict JSON files
  bool json = false;
  std::string junit;          ///< --junit FILE: one test case per compared statistic and role ("-" stdout)
  double tolerance_percent = 10;  ///< every statistic's default
  double tolerance_us = 5;
  std::vector<std::string> tolerance;     ///< --tolerance STAT=N%|Nus,...
  std::vector<std::string> require_same;  ///< --require-same profile|host|kernel
  bool allow_missing = false;
};
/// `rtagent diff BEFORE AFTER`: compares two verdicts by role; exit 1 on a regression (a role
/// of BEFORE missing in AFTER among them), 2 on bad input or a --require-same difference.
int CmdDiff(const GlobalOptions& g, const DiffOptions& o);

struct ReportOptions {
  std::string verdict;          ///< a verdict JSON file
  std::string from_cyclictest;  ///< or a cyclictest -h report or --json file
  std::string from_rtla;        ///< or rtla timerlat hist's output
  std::string from_rteval;      ///< or rteval's summary.xml
  std::string fleet;            ///< or a directory of many hosts' verdicts (report --fleet)
  std::string json, junit, md, svg, hist, html;  ///< outputs; none given: Markdown on stdout
  std::string cases;            ///< one line per criterion for board-farm scripts (report/cases.h)
};
/// `rtagent report VERDICT.json`: renders a stored verdict (or an imported cyclictest, rtla or
/// rteval result, what its file does not say left unknown) again.
int CmdReport(const GlobalOptions& g, const ReportOptions& o);

struct HoldOptions {
  std::string profile;  ///< path, or empty for the built-in default
  bool once = false;    ///< apply, verify, print what is held, stop (on_stop decides keep/revert)
  std::string verdict;  ///< a verdict JSON (accept --json) reported in status and Prometheus
  /// A full re-plan at least this often, whatever the watch's cheap signals say ("5m").
  std::string replan_interval = "5m";
};
/// `rtagent hold PROFILE`: applies the runtime state, holds the PM QoS note, re-asserts drift,
/// talks to systemd. 0 stopped cleanly, 1 verify FAIL (--once) or a revert left values behind,
/// 2 bad profile, 3 cannot run (not root, device, journal), 4 a write failed and was rolled back.
int CmdHold(const GlobalOptions& g, const HoldOptions& o);

struct StatusOptions {
  bool json = false;
};
/// `rtagent status`: what `hold` holds (run/rtagent/state.json). 0 running and the last verify
/// did not fail, 1 running but the last verify failed, 2 the state file is unreadable,
/// 3 not running (no state file, stopped, or its pid is gone).
int CmdStatus(const GlobalOptions& g, const StatusOptions& o);

struct BenchOptions {
  std::string profile;   ///< path, or empty for the built-in default (its measured CPU and rank)
  bool quick = false;    ///< a few seconds: small budgets, the equal-rank phase only where it shows
  std::string only;      ///< --only GROUP[,GROUP]: bench::GroupNames()
  int cpu = -1;          ///< --cpu N; -1: the first of acceptance.cpus (the isolated CPUs by default)
  int priority = 0;      ///< --priority N; 0: acceptance.priority
  std::string json, md, svg;          ///< output files ("-" is stdout)
  std::vector<std::string> compare;   ///< --compare A.json B.json: no run, the two side by side
  std::string version;   ///< rtagent's version, written into the run
};
/// `rtagent bench [PROFILE]`: the kernel-primitives table of the QNX paper and ipcbench on
/// Linux in three load phases, with the timer-health verdict; `--compare A B` shows two runs
/// side by side. 0 done, 2 bad input, 3 cannot run here (a fixture root, a load refused).
int CmdBench(const GlobalOptions& g, const BenchOptions& o);

struct BenchPiOptions {
  std::string profile;
  int cpu = -1;       ///< -1: the first of acceptance.cpus
  int priority = 0;   ///< the high thread's rank; 0: acceptance.priority
  int periods = 10;
  bool json = false;
};
/// `rtagent bench pi [PROFILE]`: the priority-inversion experiment, plain mutex against
/// PTHREAD_PRIO_INHERIT. 0 PASS, 1 FAIL (inheritance did not hold), 2 bad input, 3 cannot run
/// here or inconclusive (not root, a fixture root, no inversion to prevent).
int CmdBenchPi(const GlobalOptions& g, const BenchPiOptions& o);

struct ImportTunedOptions {
  std::string profile;  ///< a TuneD profile name, or a directory holding tuned.conf
  std::string out;      ///< -o FILE; "" or "-" is stdout
};
/// `rtagent import tuned NAME|DIR`: writes the rtagent profile equivalent to a TuneD profile,
/// each unmapped setting a comment, and a summary on stderr. 0 written and valid on the system
/// under --root, 2 the TuneD profile is bad (nothing written) or the result does not validate
/// there (written, with the problems) or -o cannot be written (nothing read or written), 3 the
/// system's CPUs cannot be read or the write of -o failed (a file already there is kept).
int CmdImportTuned(const GlobalOptions& g, const ImportTunedOptions& o);

}  // namespace rtagent
