#include "cli/acceptance_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "base/exit_codes.h"
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
#include "service/hold_state.h"

namespace rtagent {

class PreparedAcceptance {
 public:
  explicit PreparedAcceptance(LoadedProfile& lp) : lp(lp) {}
  LoadedProfile& lp;
  std::chrono::nanoseconds duration{0};
  std::unique_ptr<AcceptanceRun> run;
  std::optional<Verdict> baseline;
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

/// The live progress line on a terminal (never in CI or through a pipe): elapsed, remaining
/// and the worst wake-up so far on each CPU. Cleared when the run ends, however it ends.
class ProgressLine {
 public:
  explicit ProgressLine(int64_t duration_ns) : duration_ns_(duration_ns) {
    const char* ci = std::getenv("CI");
    shown_ = ::isatty(STDOUT_FILENO) && !(ci != nullptr && std::string(ci) == "true");
  }
  ~ProgressLine() {
    if (shown_) std::cout << "\r" << std::string(last_len_, ' ') << "\r" << std::flush;
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void Show(const SamplerProcess& s) {
    if (!shown_) return;
    const int64_t elapsed =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    std::string line = "accept: " + FormatDuration(std::min(elapsed, duration_ns_)) + " elapsed, " +
                       FormatDuration(std::max<int64_t>(0, duration_ns_ - elapsed)) + " left; worst";
    for (const CpuProgress& p : s.Progress()) {
      line += " CPU" + std::to_string(p.cpu) + " " + (p.worst_ns ? FormatNsAsUs(*p.worst_ns) + " µs" : std::string("-"));
    }
    std::cout << "\r" << line << std::string(last_len_ > line.size() ? last_len_ - line.size() : 0, ' ') << std::flush;
    last_len_ = line.size();
  }

 private:
  int64_t duration_ns_;
  bool shown_ = false;
  size_t last_len_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The pre-flight answers: the caller's (commission's verify), else the request's suite run
/// now, else none.
Result<std::vector<PreflightCheck>> PreflightAnswers(const LoadedProfile& lp, const AcceptanceRequest& request,
                                                     std::optional<std::vector<PreflightCheck>> given) {
  if (given) return std::move(*given);
  if (request.preflight_suite == "none") return std::vector<PreflightCheck>{};
  auto suite = check::LoadSuite(request.preflight_suite);
  if (!suite) return MakeError("pre-flight suite " + request.preflight_suite + ": " + suite.error().message);
  check::RunOptions ro;
  ro.stop = &StopFlag();
  std::cout << request.command << ": pre-flight checks (" << suite->name << " suite)\n" << std::flush;
  return check::PreflightFromSuite(check::RunSuite(lp.profile, *lp.root, *suite, ro));
}

/// Runs the prepared test with Ctrl-C reaching the measuring process and the progress line;
/// `watch_counters` keeps the counters around the worst wake-up (the coarse why).
Result<AcceptanceRecord> Measure(PreparedAcceptance& prep, bool watch_counters) {
  ProgressLine progress(prep.duration.count());
  AcceptanceHooks hooks;
  hooks.on_sampler = [](SamplerProcess* s) { SetStopTarget(s); };
  hooks.stop_requested = [] { return StopFlag().load(); };
  hooks.on_progress = [&](const SamplerProcess& s) { progress.Show(s); };
  hooks.watch_worst_window = watch_counters;
  return prep.run->Run(hooks);
}

}  // namespace

Result<std::shared_ptr<PreparedAcceptance>> PrepareAcceptance(LoadedProfile& lp, const AcceptanceRequest& request) {
  profile::AcceptanceConfig& a = lp.profile.acceptance;
  auto prep = std::make_shared<PreparedAcceptance>(lp);
  prep->duration = a.duration.value;
  if (!request.duration.empty()) {
    auto d = profile::ParseDuration(request.duration);
    if (!d) return MakeError("--duration " + request.duration + ": " + d.error().message);
    prep->duration = *d;
  }
  if (prep->duration.count() <= 0) return MakeError("--duration must be longer than 0");
  a.duration.value = prep->duration;
  if (auto ok = CheckOutputs(request.outputs); !ok) return ok.error();
  if (!request.baseline.empty()) {
    auto b = ReadVerdictFile(request.baseline);
    if (!b) return MakeError("--baseline: " + b.error().message);
    prep->baseline = std::move(*b);
  }
  if (request.preflight_suite != "none") {
    if (auto s = check::LoadSuite(request.preflight_suite); !s) {
      return MakeError("pre-flight suite " + request.preflight_suite + ": " + s.error().message);
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

  // 1. The pre-flight checks.
  auto answers = PreflightAnswers(prep.lp, request, std::move(preflight));
  if (!answers) return cannot_run(answers.error().message);
  // 2. The run: loads first, then the sampler; Ctrl-C stops early and still judges.
  //    The tracers for the verdict's why start first and are put back whatever happens.
  const std::optional<int32_t> hold_note = service::HeldPmQosNote(*prep.lp.root);
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
  if (explainer) v.why = explainer->Finish(v, worst_window, TracePathBeside(request.outputs));
  std::optional<VerdictDiff> diff;
  if (prep.baseline) diff = JudgeAgainstBaseline(v, *prep.baseline, request.baseline);
  // 4. Written, summarised, and the exit code.
  auto written = WriteOutputs(v, request.outputs);
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
