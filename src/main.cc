// rtagent: tunes a real-time Linux target from one YAML profile, verifies the tuning and
// proves it with a loaded latency test. This file is the subcommand table only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "base/exit_codes.h"
#include "base/file_trust.h"
#include "bench/primitive.h"
#include "check/check.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "inspect/system_state.h"
#include "profile/builtin_suites.h"

int main(int argc, char** argv) {
  using namespace rtagent;
  // `rtagent --version` alone is answered before the profile language and the subcommand table
  // are built: a script that asks it pays the start-up of the dynamic loader only (issue 19).
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::cout << VersionText(RTAGENT_VERSION, RTAGENT_BUILD) << '\n';
    return kExitOk;
  }
  check::DeclareProfileLanguage();  // the tuners' and checks' own profile keys
  CLI::App app{"rtagent: tune, verify and prove a real-time Linux target from one YAML profile", "rtagent"};
  app.set_version_flag("--version", VersionText(RTAGENT_VERSION, RTAGENT_BUILD));
  app.require_subcommand(1);
  app.fallthrough();  // global options (--root) may follow the subcommand: `rtagent inspect --root DIR`

  GlobalOptions g;
  g.color = ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  app.add_option("--root", g.root, "Read every kernel interface (/proc, /sys, /dev, tracefs, /run) under DIR")
      ->option_text("DIR")
      ->check(CLI::ExistingDirectory);
  bool allow_unsafe_profile = false;
  app.add_flag("--allow-unsafe-profile", allow_unsafe_profile,
               "As root, read a profile, include or suite file that another user can change (refused otherwise)");

  ValidateOptions validate;
  auto* v = app.add_subcommand("validate", "Check a profile against the schema and this system; exit 2 on any problem");
  v->add_option("profile", validate.profile, "Profile YAML (default: the built-in default profile)");
  v->add_flag("--json", validate.json, "Print the problems as JSON");

  ProfilesOptions profiles;
  auto* pr = app.add_subcommand("profiles", "List the profiles a name can pick, with their descriptions and directories");
  pr->add_flag("--names", profiles.names, "Print the names only, one per line");
  pr->add_flag("--json", profiles.json, "Print JSON");

  InspectOptions inspect;
  auto* i = app.add_subcommand("inspect", "Show the real-time state of the system");
  i->add_flag("--json", inspect.json, "Print JSON for a program instead of tables");
  i->add_option("--section", inspect.section, "Only one section: " + SectionNames());

  CaptureOptions capture;
  auto* c = app.add_subcommand("capture",
                               "Copy every file inspect and the profile's plan read into DIR, a tree that --root accepts");
  c->add_option("profile", capture.profile,
                "Profile whose plan the copy must answer too (default: the built-in default profile)");
  c->add_option("-o,--output", capture.out_dir, "Output directory")->required()->option_text("DIR");
  c->add_flag("--force", capture.force, "Write into a directory that is not empty");

  PlanOptions plan;
  auto* pl = app.add_subcommand("plan", "Show every change the profile needs, before -> after; writes nothing");
  pl->add_option("profile", plan.profile, "Profile YAML (default: the built-in default profile)");
  pl->add_flag("--json", plan.json, "Print JSON");

  PlanOptions apply;
  auto* ap = app.add_subcommand("apply", "Apply the profile: journal each value, write, roll back on failure");
  ap->add_option("profile", apply.profile, "Profile YAML (default: the built-in default profile)");
  ap->add_flag("--json", apply.json, "Print JSON");

  VerifyOptions verify;
  auto* ve = app.add_subcommand("verify", "Check that the system matches the profile");
  ve->add_option("profile", verify.profile, "Profile YAML (default: the built-in default profile)");
  ve->add_flag("--json", verify.json, "Print JSON");
  ve->add_option("--suite", verify.suite, "Check suite: " + profile::BuiltinSuiteHelp() + " or a suite file (default: checks.suite)")->option_text("NAME|FILE");
  ve->add_option("--junit", verify.junit, "Also write JUnit XML to FILE")->option_text("FILE");

  RevertOptions revert;
  auto* re = app.add_subcommand("revert", "Put back every value rtagent changed (from the journal in /run/rtagent)");
  re->add_flag("--json", revert.json, "Print JSON");

  CommissionOptions commission;
  commission.version = RTAGENT_VERSION;
  auto* m = app.add_subcommand("commission",
                               "Run the whole loop on a board: validate, inspect, plan, apply, verify, accept, verdict");
  m->add_option("profile", commission.profile, "Profile YAML (default: the built-in default profile)");
  m->add_option("--duration", commission.duration, "Length of the acceptance run; default: acceptance.duration")
      ->option_text("D");
  m->add_option("--out", commission.out_dir,
                "Directory for the verdict files (default: ./rtagent-commission-<UTC time>, created)")
      ->option_text("DIR");
  m->add_flag("--revert-after", commission.revert_after,
              "Put back every value this run changed at the end, also on failure and Ctrl-C");
  m->add_option("--json", commission.json, "Also write the verdict as JSON to FILE")->option_text("FILE");
  m->add_option("--junit", commission.junit, "Also write JUnit XML to FILE")->option_text("FILE");
  m->add_option("--md", commission.md, "Also write the Markdown report to FILE")->option_text("FILE");
  m->add_option("--svg", commission.svg, "Also write the SVG histogram to FILE")->option_text("FILE");
  m->add_option("--hist", commission.hist, "Also write a cyclictest -h histogram to FILE")->option_text("FILE");
  m->add_option("--html", commission.html, "Also write the self-contained HTML report to FILE")->option_text("FILE");

  AcceptOptions accept;
  accept.version = RTAGENT_VERSION;
  auto* ac = app.add_subcommand("accept", "Run the loaded latency acceptance test; exit 0 PASS, 1 FAIL");
  ac->add_option("profile", accept.profile, "Profile YAML (default: the built-in default profile)");
  ac->add_option("--duration", accept.duration, "Length of the run (\"30s\", \"2h\"); default: acceptance.duration")
      ->option_text("D");
  ac->add_option("--json", accept.json, "Write the verdict as JSON to FILE")->option_text("FILE");
  ac->add_option("--junit", accept.junit, "Write JUnit XML to FILE")->option_text("FILE");
  ac->add_option("--md", accept.md, "Write a Markdown report to FILE")->option_text("FILE");
  ac->add_option("--svg", accept.svg, "Write an SVG histogram to FILE")->option_text("FILE");
  ac->add_option("--hist", accept.hist, "Write a cyclictest -h histogram to FILE")->option_text("FILE");
  ac->add_option("--html", accept.html, "Write a self-contained HTML report to FILE")->option_text("FILE");
  ac->add_option("--baseline", accept.baseline, "Diff against this verdict (JSON); a regression fails the run")
      ->option_text("FILE");
  // The gate's options, the same for `accept --baseline` and `diff` (docs/ci.md).
  auto add_gate_options = [](CLI::App* cmd, const std::string& against, std::vector<std::string>& tolerance,
                             std::vector<std::string>& require_same, bool& allow_missing) {
    cmd->add_option("--tolerance", tolerance,
                    "Growth allowed" + against + " per statistic: max=10%,p99=5%,p99.99=20us (default 10% or 5us, the larger; "
                    "a statistic named here replaces its default)")
        ->option_text("STAT=N%|Nus,...");
    cmd->add_option("--require-same", require_same, "A different profile, host or kernel" + against + " is an error (exit 2)")
        ->option_text("profile|host|kernel");
    cmd->add_flag("--allow-missing", allow_missing,
                  "A CPU, load or criterion of the reference missing now is not a regression");
  };
  add_gate_options(ac, " against --baseline", accept.tolerance, accept.require_same, accept.allow_missing);
  ac->add_option("--progress-every", accept.progress_every,
                 "A plain progress line every D (\"30s\"; default 1m when stdout is not a terminal; 0: none)")
      ->option_text("D");
  ac->add_option("--preflight", accept.preflight,
                 "Check suite run first, each check a criterion: " + profile::BuiltinSuiteHelp("") +
                     ", a suite file, or none (default: the profile's checks.suite, or boot when it names none)")
      ->option_text("SUITE");

  ExplainOptions explain;
  auto* ex = app.add_subcommand("explain", "Record the kernel's timerlat tracer and say why a wake-up was late; exit 1 past the threshold");
  ex->add_option("profile", explain.profile, "Profile YAML: acceptance.cpus, max_us and duration (default: the built-in default profile)");
  ex->add_option("--cpus", explain.cpus, "Measured CPUs (default: acceptance.cpus)")->option_text("LIST");
  ex->add_option("--duration", explain.duration, "Longest recording (\"30s\"); default: acceptance.duration")->option_text("D");
  ex->add_option("--threshold", explain.threshold_us, "Stop at the first wake-up later than US µs (default: acceptance.max_us)")
      ->option_text("US")
      ->check(CLI::NonNegativeNumber);
  ex->add_option("--json", explain.json, "Also write the attribution as JSON to FILE")->option_text("FILE");
  ex->add_option("--trace", explain.trace, "Save the recorded trace (ftrace text: ui.perfetto.dev opens it) to FILE")
      ->option_text("FILE");
  ex->add_option("--from", explain.from, "Explain a saved trace (tracefs trace, trace-cmd report, rtla timerlat -a)")
      ->option_text("TRACE");
  ex->add_option("--diff", explain.diff, "Compare the causes of two saved traces, verdicts or --json files")
      ->expected(2)
      ->option_text("A B");

  DiffOptions diff;
  auto* di = app.add_subcommand("diff", "Compare two verdicts by CPU, load and criterion; exit 1 on a regression");
  di->add_option("before", diff.before, "Verdict JSON (the reference)")->required();
  di->add_option("after", diff.after, "Verdict JSON (the new run)")->required();
  di->add_flag("--json", diff.json, "Print JSON");
  di->add_option("--junit", diff.junit, "Write JUnit XML to FILE: one test case per compared statistic and role")
      ->option_text("FILE");
  add_gate_options(di, "", diff.tolerance, diff.require_same, diff.allow_missing);
  di->add_option("--tolerance-percent", diff.tolerance_percent, "Relative growth allowed for every statistic --tolerance does not name, in % (default 10)")
      ->option_text("P")
      ->check(CLI::NonNegativeNumber);
  di->add_option("--tolerance-us", diff.tolerance_us, "Absolute growth allowed for every statistic --tolerance does not name, in µs (default 5)")
      ->option_text("U")
      ->check(CLI::NonNegativeNumber);

  ReportOptions report;
  auto* rp = app.add_subcommand("report", "Render a stored verdict (or a cyclictest, rtla or rteval result) again");
  rp->add_option("verdict", report.verdict, "Verdict JSON written by accept --json");
  rp->add_option("--from-cyclictest", report.from_cyclictest, "Read a cyclictest -h report or --json file instead")
      ->option_text("FILE");
  rp->add_option("--from-rtla", report.from_rtla, "Read rtla timerlat hist's output instead")->option_text("FILE");
  rp->add_option("--from-rteval", report.from_rteval, "Read rteval's summary.xml instead")->option_text("FILE");
  rp->add_option("--fleet", report.fleet, "Summarise every host's verdict under DIR (*.json, searched recursively); Markdown on stdout unless --md names a file")
      ->option_text("DIR");
  rp->add_option("--json", report.json, "Write JSON to FILE")->option_text("FILE");
  rp->add_option("--junit", report.junit, "Write JUnit XML to FILE")->option_text("FILE");
  rp->add_option("--md", report.md, "Write Markdown to FILE (\"-\": stdout; the default)")->option_text("FILE");
  rp->add_option("--svg", report.svg, "Write an SVG histogram to FILE")->option_text("FILE");
  rp->add_option("--hist", report.hist, "Write a cyclictest -h histogram to FILE")->option_text("FILE");
  rp->add_option("--html", report.html, "Write a self-contained HTML report to FILE (no script, nothing fetched)")->option_text("FILE");
  rp->add_option("--cases", report.cases, "Write one line per criterion (NAME pass|fail MEASUREMENT UNITS) for board-farm scripts")
      ->option_text("FILE");

  HoldOptions hold;
  auto* ho = app.add_subcommand("hold", "Apply the profile and hold it: PM QoS note, drift re-assert, systemd notify");
  ho->add_option("profile", hold.profile, "Profile YAML (default: the built-in default profile)");
  ho->add_flag("--once", hold.once, "Apply, verify, print what is held and exit (on_stop decides keep or revert)");
  ho->add_option("--verdict", hold.verdict, "Report this verdict (accept --json) in status and the Prometheus file")
      ->option_text("FILE");
  ho->add_option("--replan-interval", hold.replan_interval,
                 "Plan the whole profile at least this often, whatever the cheap signals say (default 5m)")
      ->option_text("DURATION");

  StatusOptions status;
  auto* st = app.add_subcommand("status", "Show what `rtagent hold` holds; exit 3 when it is not running");
  st->add_flag("--json", status.json, "Print JSON");

  BenchOptions bench;
  bench.version = RTAGENT_VERSION;
  auto* be = app.add_subcommand("bench",
                                "Measure the kernel primitives (calls, switches, messages, mutexes, timers, signals, "
                                "threads) in three load phases");
  be->add_option("profile", bench.profile, "Profile YAML: its acceptance CPU and rank (default: the built-in default)");
  be->add_flag("--quick", bench.quick, "A few seconds: few samples per test (for CI and tests)");
  be->add_option("--only", bench.only, "Only these groups: " + bench::GroupNames())
      ->option_text("GROUP[,GROUP]");
  be->add_option("--cpu", bench.cpu, "Measure on this CPU (default: the first of acceptance.cpus)")->option_text("N");
  be->add_option("--priority", bench.priority, "SCHED_FIFO rank of the measuring thread, 2..98 (default: acceptance.priority)")
      ->option_text("N");
  be->add_option("--json", bench.json, "Write the JSON lines to FILE (\"-\": stdout)")->option_text("FILE");
  be->add_option("--md", bench.md, "Write the Markdown tables to FILE")->option_text("FILE");
  be->add_option("--svg", bench.svg, "Write the SVG chart to FILE")->option_text("FILE");
  be->add_option("--compare", bench.compare, "Show two runs (bench --json files) side by side; runs nothing")
      ->expected(2)
      ->option_text("A.json B.json");
  BenchPiOptions bench_pi;
  auto* bp = be->add_subcommand("pi", "The priority-inversion experiment: a plain mutex against PTHREAD_PRIO_INHERIT");
  bp->add_option("profile", bench_pi.profile, "Profile YAML: its acceptance CPU and rank (default: the built-in default)");
  bp->add_option("--cpu", bench_pi.cpu, "Run the three threads on this CPU (default: the first of acceptance.cpus)")
      ->option_text("N");
  bp->add_option("--priority", bench_pi.priority, "SCHED_FIFO rank of the high thread, 3..99 (default: acceptance.priority)")
      ->option_text("N");
  bp->add_option("--periods", bench_pi.periods, "Periods of 25 ms per protocol (default 10)")
      ->option_text("N")
      ->check(CLI::PositiveNumber);
  bp->add_flag("--json", bench_pi.json, "Print JSON");

  ImportTunedOptions import_tuned;
  auto* im = app.add_subcommand("import", "Write an rtagent profile from another tool's configuration");
  im->require_subcommand(1);
  auto* imt = im->add_subcommand("tuned", "A TuneD profile (name or directory) as an rtagent profile; unmapped settings as comments");
  imt->add_option("profile", import_tuned.profile,
                 "TuneD profile: a name (looked up in /etc/tuned, then /usr/lib/tuned, under --root) or a directory with tuned.conf")
      ->required()
      ->option_text("NAME|DIR");
  imt->add_option("-o,--output", import_tuned.out, "Write the profile to FILE (default: stdout)")->option_text("FILE");

  std::vector<std::string> help_words;  // read by HelpWords before parsing; declared for --help
  app.add_subcommand("help", "Print the help of a subcommand: rtagent help SUBCOMMAND")
      ->add_option("subcommand", help_words, "The subcommand (and its own subcommand: bench pi)")->option_text("SUBCOMMAND");

  // A mistyped subcommand gets the nearest name instead of CLI11's "A subcommand is required".
  const std::vector<std::string> args = Arguments(argc, argv);
  if (std::string bad = UnknownSubcommand(args, app, {"--root"}); !bad.empty()) {
    std::cerr << UnknownSubcommandMessage(bad, app);
    return kExitBadInput;
  }
  // `rtagent help accept`: read here, not by CLI11, which would take `accept` for the
  // subcommand itself (a parent's subcommand name falls through).
  if (std::vector<std::string> words = HelpWords(args, {"--root"}); !words.empty()) {
    words.erase(words.begin());
    return PrintHelpOf(app, words, std::cout, std::cerr);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (std::string missing = MissingSubcommandMessage(app, e); !missing.empty()) {
      std::cerr << missing;
      return kExitBadInput;
    }
    int rc = app.exit(e);
    // CLI11 returns 0 for --help/--version; every real usage error is exit 2 (PRODUCT.md).
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  SetProcessFileTrust(FileTrust::ForThisProcess(allow_unsafe_profile));
  if (*pr) return CmdProfiles(g, profiles);
  if (*v) return CmdValidate(g, validate);
  if (*i) return CmdInspect(g, inspect);
  if (*c) return CmdCapture(g, capture);
  if (*pl) return CmdPlan(g, plan);
  if (*ap) return CmdApply(g, apply);
  if (*ve) return CmdVerify(g, verify);
  if (*re) return CmdRevert(g, revert);
  if (*m) return CmdCommission(g, commission);
  if (*ac) return CmdAccept(g, accept);
  if (*ex) return CmdExplain(g, explain);
  if (*di) return CmdDiff(g, diff);
  if (*rp) return CmdReport(g, report);
  if (*ho) return CmdHold(g, hold);
  if (*st) return CmdStatus(g, status);
  if (*imt) return CmdImportTuned(g, import_tuned);
  if (*bp) return CmdBenchPi(g, bench_pi);
  if (*be) return CmdBench(g, bench);
  return kExitBadInput;
}
