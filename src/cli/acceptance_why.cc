#include "cli/acceptance_why.h"

#include "cli/verdict_files.h"
#include "report/format.h"
#include "trace/attribution.h"
#include "trace/ftrace_text.h"

namespace rtagent {
namespace {

// What the saved trace is: tracefs' own text, which trace-cmd, KernelShark (through
// trace-cmd), Perfetto (its "ftrace text" import) and `rtagent explain --from` read.
constexpr const char* kTraceFormat = "ftrace text";

// A latency criterion failed: the run breached its limit.
bool Breached(const Verdict& v) {
  for (const Criterion& k : v.criteria) {
    if (k.unit == "µs" && !k.pass) return true;
  }
  return false;
}

WhySection Skip(const std::string& reason) {
  WhySection w;
  w.status = "skip";
  w.reason = reason;
  return w;
}

}  // namespace

std::unique_ptr<AcceptanceExplainer> AcceptanceExplainer::Start(SysRoot& root, const profile::AcceptanceConfig& a) {
  if (*a.explain == profile::ExplainWhen::kOff) return nullptr;
  // The kernel stops tracing at the profile's limit, else at the histogram's last bin (a
  // wake-up past it fails the run too).
  const int64_t threshold = a.max_us.value ? *a.max_us.value : a.histogram_limit_us.value;
  std::unique_ptr<AcceptanceExplainer> e(new AcceptanceExplainer(*a.explain, a.cpus.value.cpus, threshold));
  const TracerSupport support = ProbeTracers(root);
  if (!support.timerlat) {
    e->no_tracer_reason_ = support.reason;
    return e;
  }
  SessionSpec spec;
  spec.cpus = e->cpus_;
  spec.threshold_us = threshold;
  auto session = TracerSession::Start(root, support, spec);
  if (!session) {
    e->no_tracer_reason_ = "cannot start the timerlat tracer: " + session.error().message;
    return e;
  }
  e->session_.emplace(std::move(*session));
  return e;
}

WhySection AcceptanceExplainer::FromTrace(const std::string& text, const std::string& trace_path) const {
  WhySection w;
  w.threshold_us = threshold_us_;
  if (!trace_path.empty()) {
    if (auto ok = WriteTextFile(trace_path, text); ok) {
      w.trace_path = trace_path;
      w.trace_format = kTraceFormat;
    }
  }
  auto trace = ParseFtraceText(text);
  if (!trace) {
    WhySection s = Skip("the recorded trace cannot be read: " + trace.error().message);
    s.trace_path = w.trace_path;
    s.trace_format = w.trace_format;
    return s;
  }
  auto wakeup = ChooseWakeup(*trace, WakeupQuery{cpus_, threshold_us_ * 1000}, w.crossed);
  if (!wakeup) {
    WhySection s = Skip(wakeup.error().message);
    s.trace_path = w.trace_path;
    s.trace_format = w.trace_format;
    return s;
  }
  w.status = "explained";
  w.attribution = Attribute(*trace, *wakeup);
  return w;
}

std::optional<WhySection> AcceptanceExplainer::Finish(const Verdict& v, const std::optional<WorstWindow>& window,
                                                      const std::string& trace_path) {
  std::optional<std::string> text;
  std::string problem;
  if (session_) {
    std::string restore_error;
    auto t = session_->Finish(restore_error);
    session_.reset();
    if (t) text = std::move(*t);
    else problem = t.error().message;
    if (!restore_error.empty()) problem += (problem.empty() ? "" : "; ") + ("tracefs not fully restored: " + restore_error);
  }
  std::optional<WhySection> out;
  if (text) {
    out = FromTrace(*text, trace_path);
    if (!problem.empty()) out->reason = problem;
  } else if (!problem.empty()) {
    out = Skip(problem);
  } else {
    out = CoarseWhy(window, no_tracer_reason_);
  }
  if (when_ == profile::ExplainWhen::kOnBreach && !out->crossed && !Breached(v)) return std::nullopt;
  return out;
}

WhySection CoarseWhy(const std::optional<WorstWindow>& window, const std::string& reason) {
  if (!window) {
    return Skip(reason + "; and no interrupt counts were kept around the worst wake-up (/proc/interrupts "
                         "could not be read, or the run ended before its first reading)");
  }
  WhySection w;
  w.status = "coarse";
  w.reason = reason;
  w.coarse_cpu = window->cpu;
  w.coarse_worst_ns = window->worst_ns;
  w.coarse_window = "the " + FormatDuration(window->span_ns) + " in which the worst wake-up was seen";
  w.coarse = window->counts;
  return w;
}

}  // namespace rtagent
