// The verdict's "why" during an acceptance run (acceptance.explain, docs/explain.md): the
// timerlat tracer recorded on the measured CPUs beside the sampler, stopped by the kernel at
// the limit so the buffer ends with the late wake-up, and that wake-up attributed
// (trace/attribution.h). Where the kernel has no tracer, the interrupt and softirq counters
// around the worst wake-up are the coarser answer. The explanation never fails a run: what
// goes wrong becomes the section's SKIP reason.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/sysroot.h"
#include "latency/acceptance.h"
#include "profile/model.h"
#include "report/verdict.h"
#include "trace/tracer_session.h"

namespace rtagent {

/// One run's explanation, from before the loads start to after the verdict is judged.
class AcceptanceExplainer {
 public:
  /// Looks at what the kernel offers under `root` and starts the recording when it can;
  /// nullptr when acceptance.explain is off.
  static std::unique_ptr<AcceptanceExplainer> Start(SysRoot& root, const profile::AcceptanceConfig& acceptance);

  /// True when there is no tracer to record: the run should keep its counters around the
  /// worst wake-up (AcceptanceHooks::watch_worst_window).
  bool WantsCounters() const { return !session_.has_value(); }

  /// Stops the recording, puts tracefs back, saves the raw trace to `trace_path` (none when
  /// empty) and returns the section for `v`; nullopt under on-breach when nothing breached.
  /// `window`: the counters around the worst wake-up, when they were kept.
  std::optional<WhySection> Finish(const Verdict& v, const std::optional<WorstWindow>& window,
                                   const std::string& trace_path);

 private:
  AcceptanceExplainer(profile::ExplainWhen when, CpuSet cpus, int64_t threshold_us)
      : when_(when), cpus_(std::move(cpus)), threshold_us_(threshold_us) {}
  WhySection FromTrace(const std::string& text, const std::string& trace_path) const;

  profile::ExplainWhen when_;
  CpuSet cpus_;
  int64_t threshold_us_;
  std::optional<TracerSession> session_;
  std::string no_tracer_reason_;  ///< why there is no session
};

/// The coarse section from the counters around the worst wake-up; `reason` says why no tracer
/// could be used. Without a window, a SKIP that says both.
WhySection CoarseWhy(const std::optional<WorstWindow>& window, const std::string& reason);

}  // namespace rtagent
