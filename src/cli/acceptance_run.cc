#include "cli/acceptance_run.h"


#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "base/exit_codes.h"
#include "base/kernel_text.h"
#include "check/preflight.h"
#include "check/runner.h"
#include "cli/acceptance_why.h"
#include "cli/stop_signal.h"
#include "latency/sampler_process.h"
#include "profile/duration.h"
#include "report/accept_summary.h"
#include "report/acceptance_verdict.h"
#include "report/diff.h"
#include "report/format.h"
#include "report/progress_line.h"
#include "service/hold_state.h"
#include "tune/journal.h"

namespace rtagent {

class PreparedAcceptance {
 public:
  explicit PreparedAcceptance(LoadedProfile& lp) : lp(lp) {}
  LoadedProfile& lp;
  std::chrono::nanoseconds duration{0};
  std::unique_ptr<AcceptanceRun> run;
  std::optional<Verdict> baseline;
  std::optional<std::chrono::nanoseconds> progress_every;  ///< --progress-every; nullopt: the default
  std::string too_short;  ///< why --duration cannot give acceptance.min_samples; empty when it can
};

namespace {

/// Where external loads write their logs: the request's directory, else beside --json, else
/// the temporary directory.
std::string LogDir(const AcceptanceRequest& request) {
  if (!request.log_dir.empty()) return request.log_dir;
  std::string json_path;
  for (const VerdictOutput& o : request.outputs) {
    if (o.format == "json" && !o.path.empty() && o.path != "-") json_path = o.path;
  }
  if (json_path.empty()) return std::filesystem::temp_directory_path().string();
  const std::filesystem::path dir = std::filesystem::path(json_path).parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

/// Why a --duration shorter than the profile's cannot reach acceptance.min_samples, said before
/// the run rather than as a FAIL after it (the profile's own duration is checked when it loads).
std::string TooShortForSamples(const profile::AcceptanceConfig& a, std::chrono::nanoseconds duration) {
  const long long possible = a.WakeupsIn(duration);
  if (*a.min_samples <= 0 || *a.interval_us <= 0 || *a.min_samples <= possible) return "";
  return "--duration " + FormatDuration(duration.count()) + " at one wake-up every " + std::to_string(*a.interval_us) +
         " µs gives at most " + CountOf(static_cast<uint64_t>(possible), "wake-up", "wake-ups") + " per CPU, fewer than the " +
         FormatCount(static_cast<uint64_t>(*a.min_samples)) + " acceptance.min_samples asks (" + a.min_samples.mark.ToString() +
         "): the samples criterion will fail; --duration " + FormatDuration(a.DurationForMinSamples().count()) +
         " or longer can pass";
}

/// The pre-flight answers: the caller's (commission's verify), else the request's suite run
/// now, else none.
Result<std::vector<PreflightCheck>> PreflightAnswers(const LoadedProfile& lp, const AcceptanceRequest& request,
                                                     std::optional<std::vector<PreflightCheck>> given) {
  if (given) return std::move(*given);
  if (request.preflight_suite == "none") return std::vector<PreflightCheck>{};
  auto suite = check::LoadSuite(request.preflight_suite);
  if (!suite) return Wrap("pre-flight suite " + request.preflight_suite + ": ", suite.error());
  check::RunOptions ro;
  ro.stop = &StopFlag();
  std::cout << request.command << ": pre-flight checks (" << suite->name << " suite)\n" << std::flush;
  return check::PreflightFromSuite(check::RunSuite(lp.profile, *lp.root, *suite, ro));
}

/// Runs the prepared test with Ctrl-C reaching the measuring process and the progress line;
/// `watch_counters` keeps the counters around the worst wake-up (the coarse why).
Result<AcceptanceRecord> Measure(PreparedAcceptance& prep, bool watch_counters) {
  ProgressLine progress(std::cout, "accept", prep.duration.count(), ProgressLine::StdoutIsLiveTerminal(),
                        prep.progress_every ? std::optional<int64_t>(prep.progress_every->count()) : std::nullopt);
  const auto start = std::chrono::steady_clock::now();
  AcceptanceHooks hooks;
  hooks.on_sampler = [](SamplerProcess* s) { SetStopTarget(s); };
  hooks.stop_requested = [] { return StopFlag().load(); };
  hooks.on_progress = [&](const SamplerProcess& s) {
    progress.Show(s.Progress(), std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  };
  hooks.watch_worst_window = watch_counters;
  return prep.run->Run(hooks);
}

}  // namespace

TuningInForce ReadTuningInForce(SysRoot& root) {
  TuningInForce t;
  t.source = "/" + Journal::Path() + " and /" + Journal::BootPath();
  Journal journal(root);
  if (auto loaded = journal.Load(); !loaded) {
    t.error = loaded.error().message;
    return t;
  }
  for (const JournalEntry& e : journal.entries()) {
    if (!e.side_effect_of.empty()) continue;  // the kernel's doing, not a value rtagent wrote
    ++t.total;
    if (t.changes.size() < TuningInForce::kListed) t.changes.push_back({e.section, e.what, e.before, e.after});
  }
  return t;
}

Result<std::shared_ptr<PreparedAcceptance>> PrepareAcceptance(LoadedProfile& lp, const AcceptanceRequest& request) {
  profile::AcceptanceConfig& a = lp.profile.acceptance;
  auto prep = std::make_shared<PreparedAcceptance>(lp);
  prep->duration = a.duration.value;
  if (!request.duration.empty()) {
    auto d = profile::ParseDuration(request.duration);
    if (!d) return Wrap("--duration " + request.duration + ": ", d.error());
    prep->duration = *d;
  }
  if (prep->duration.count() <= 0) return MakeError("--duration must be longer than 0");
  a.duration.value = prep->duration;
  if (!request.duration.empty()) prep->too_short = TooShortForSamples(a, prep->duration);
  if (auto ok = CheckOutputs(request.outputs); !ok) return ok.error();
  if (!request.baseline.empty()) {
    auto b = ReadVerdictFile(request.baseline);
    if (!b) return Wrap("--baseline: ", b.error());
    prep->baseline = std::move(*b);
    if (!request.baseline_rules.require_same.empty()) {  // a run that cannot be compared is not started
      Verdict now;
      now.profile_name = lp.profile.name.value;
      now.profile_digest = ProfileDigest(lp.profile);
      now.host = ReadHostFacts(*lp.root);
      const auto bad = RequiredSameViolations(IdentityChanges(*prep->baseline, now), request.baseline_rules);
      if (!bad.empty()) return MakeError("--baseline " + request.baseline + ": " + JoinSome(bad, 3));
    }
  }
  if (!request.progress_every.empty()) {
    auto every = profile::ParseDuration(request.progress_every);
    if (!every && request.progress_every != "0") {
      return Wrap("--progress-every " + request.progress_every + ": ", every.error());
    }
    prep->progress_every = every ? *every : std::chrono::nanoseconds(0);
  }
  if (request.preflight_suite != "none") {
    if (auto s = check::LoadSuite(request.preflight_suite); !s) {
      return Wrap("pre-flight suite " + request.preflight_suite + ": ", s.error());
    }
  }
  auto run = AcceptanceRun::Prepare(a, prep->duration, LogDir(request), *lp.root);
  if (!run) return run.error();
  prep->run = std::move(*run);
  return prep;
}

AcceptanceOutcome RunAcceptance(PreparedAcceptance& prep, const AcceptanceRequest& request,
                                std::optional<std::vector<PreflightCheck>> preflight) {
  const std::string prefix = "rtagent " + request.command + ": ";
  auto cannot_run = [&](const std::string& why) {
    std::cerr << prefix << why << "\n";
    return AcceptanceOutcome{kExitCannotRun, std::nullopt};
  };
  const profile::Profile& p = prep.lp.profile;
  if (std::string why = AcceptanceCannotRunReason(*prep.lp.root, prep.run->sampler().priority); !why.empty()) {
    return cannot_run(why + ". Nothing was run");
  }
  StopSignals signals;  // nested inside commission's: Ctrl-C stops the sampler, then the caller
  if (!prep.too_short.empty()) std::cerr << prefix << "warning: " << prep.too_short << "\n";

  // 1. The pre-flight checks.
  auto answers = PreflightAnswers(prep.lp, request, std::move(preflight));
  if (!answers) return cannot_run(answers.error().message);
  // 2. The run: loads first, then the sampler; Ctrl-C stops early and still judges.
  //    The tracers for the verdict's why start first and are put back whatever happens.
  const std::optional<int32_t> hold_note = service::HeldPmQosNote(*prep.lp.root);
  TuningInForce tuning = ReadTuningInForce(*prep.lp.root);
  std::unique_ptr<AcceptanceExplainer> explainer = AcceptanceExplainer::Start(*prep.lp.root, p.acceptance);
  auto record = Measure(prep, explainer && explainer->WantsCounters());
  if (!record) return cannot_run(record.error().message);
  const std::optional<WorstWindow> worst_window = record->worst_window;
  // 3. The verdict, judged, and compared with the baseline.
  VerdictContext ctx;
  ctx.tool_version = request.version;
  ctx.profile_name = p.name.IsSet() && !p.name.value.empty() ? p.name.value : p.path;
  ctx.profile_digest = ProfileDigest(p);
  ctx.pm_qos_hold_us = hold_note;
  ctx.preflight = std::move(*answers);
  ctx.limits = LimitsOf(p.acceptance, prep.duration.count());
  ctx.interrupted = StopFlag().load();
  ctx.boot_args_pending = request.boot_args_pending;
  AcceptanceOutcome out;
  out.verdict = BuildVerdict(std::move(*record), std::move(ctx));
  Verdict& v = *out.verdict;
  v.tuning = std::move(tuning);
  if (explainer) v.why = explainer->Finish(v, worst_window, TracePathBeside(request.outputs));
  std::optional<VerdictDiff> diff;
  if (prep.baseline) diff = JudgeAgainstBaseline(v, *prep.baseline, request.baseline, request.baseline_rules);
  // 4. Written, summarised, and the exit code.
  auto written = WriteOutputs(v, request.outputs, diff ? &*diff : nullptr);
  std::cout << RenderAcceptSummary(v, request.color);
  if (!written) {
    std::cerr << prefix << written.error().message << "\n";
    out.exit_code = kExitCannotRun;
    return out;
  }
  if (diff) std::cout << "\n" << RenderDiffMarkdown(*diff);
  out.exit_code = v.pass ? kExitOk : kExitFail;
  return out;
}

}  // namespace rtagent
