#include "trace/tracer_session.h"

#include <algorithm>

#include "base/kernel_paths.h"

namespace rtagent {

const std::vector<std::pair<std::string, std::string>>& ExplainEvents() {
  static const std::vector<std::pair<std::string, std::string>> kEvents = {
      {"osnoise", "irq_noise"},         {"osnoise", "softirq_noise"}, {"osnoise", "nmi_noise"},
      {"osnoise", "thread_noise"},      {"sched", "sched_switch"},    {"sched", "sched_wakeup"},
      {"irq", "irq_handler_entry"},     {"irq", "irq_handler_exit"},  {"irq", "softirq_entry"},
      {"irq", "softirq_exit"}};
  return kEvents;
}

bool TraceClockOffered(const std::string& trace_clock_file, const std::string& clock) {
  std::string word;
  for (size_t i = 0; i <= trace_clock_file.size(); ++i) {
    const char c = i < trace_clock_file.size() ? trace_clock_file[i] : ' ';
    if (c == ' ' || c == '\n' || c == '\t') {
      if (word == clock) return true;
      word.clear();
    } else if (c != '[' && c != ']') {
      word += c;
    }
  }
  return false;
}

TracerSupport ProbeTracers(const SysRoot& root) {
  TracerSupport s;
  auto dir = FindTracefs(root);
  if (!dir) {
    s.reason = dir.error().message;
    return s;
  }
  s.tracefs = *dir;
  auto tracers = AvailableTracers(root, s.tracefs);
  if (!tracers) {
    s.reason = "cannot read the tracers the kernel offers: " + tracers.error().message;
    return s;
  }
  s.timerlat = std::find(tracers->begin(), tracers->end(), "timerlat") != tracers->end();
  for (const auto& [system, event] : ExplainEvents()) {
    if (!root.Exists(kpath::TracefsFile(s.tracefs, kpath::TraceEventEnable(system, event)))) {
      s.missing_events.push_back(system + "/" + event);
    }
  }
  if (!s.timerlat) {
    std::string list;
    for (const std::string& t : *tracers) list += (list.empty() ? "" : " ") + t;
    s.reason = "the kernel has no timerlat tracer (available_tracers: " + (list.empty() ? std::string("none") : list) +
               "); it needs CONFIG_TIMERLAT_TRACER and CONFIG_OSNOISE_TRACER (Linux 5.14 or later)";
  }
  return s;
}

Result<TracerSession> TracerSession::Start(SysRoot& root, const TracerSupport& support, const SessionSpec& spec) {
  if (!support.timerlat) return MakeError(support.reason);
  if (spec.cpus.Empty()) return MakeError("no CPU to trace");
  std::vector<std::string> files = {kpath::kCurrentTracer,     kpath::kTracingOn,        kpath::kTraceClock,
                                    kpath::kTracingCpumask,     kpath::kOsnoiseCpus,      kpath::kTimerlatPeriodUs,
                                    kpath::kOsnoiseStopUs,      kpath::kOsnoiseStopTotalUs};
  std::vector<std::string> events;
  for (const auto& [system, event] : ExplainEvents()) {
    const std::string f = kpath::TraceEventEnable(system, event);
    files.push_back(f);
    events.push_back(f);
  }
  auto lease = TracefsLease::Take(root, support.tracefs, files);
  if (!lease) return lease.error();
  TracerSession s(root, support.tracefs, std::move(*lease));
  auto set = [&](const std::string& file, const std::string& value) -> Result<void> {
    if (!s.lease_.Has(file)) return Ok();  // an event or setting this kernel lacks
    auto r = s.lease_.Set(file, value);
    if (!r) return Wrap("cannot write " + value + " to " + kpath::TracefsFile(support.tracefs, file) + ": ", r.error());
    return Ok();
  };
  // The tracer stays off while everything is set; the buffer is emptied when it is chosen.
  for (const auto& [file, value] : std::vector<std::pair<std::string, std::string>>{
           {kpath::kTracingOn, "0"},
           {kpath::kCurrentTracer, "nop"},
           {kpath::kTracingCpumask, spec.cpus.ToMask()},
           {kpath::kOsnoiseCpus, spec.cpus.ToList()},
           {kpath::kTimerlatPeriodUs, std::to_string(spec.period_us)},
           {kpath::kOsnoiseStopUs, "0"},
           {kpath::kOsnoiseStopTotalUs, std::to_string(spec.threshold_us)}}) {
    if (auto r = set(file, value); !r) return r.error();
  }
  // The buffer's clock, when the kernel offers the one timerlat measures on (choosing a clock
  // empties the buffer: the tracer is still off). A kernel without it keeps its own clock;
  // the attribution then says where the two clocks disagree.
  if (s.lease_.Has(kpath::kTraceClock)) {
    auto clocks = root.ReadTrimmed(kpath::TracefsFile(support.tracefs, kpath::kTraceClock));
    if (clocks && TraceClockOffered(*clocks, kExplainTraceClock)) {
      if (auto r = set(kpath::kTraceClock, kExplainTraceClock); !r) return r.error();
    }
  }
  for (const std::string& e : events) {
    if (auto r = set(e, "1"); !r) return r.error();
  }
  if (auto r = set(kpath::kCurrentTracer, "timerlat"); !r) return r.error();
  if (auto r = set(kpath::kTracingOn, "1"); !r) return r.error();
  return s;
}

bool TracerSession::StoppedByKernel() const {
  auto on = root_->ReadTrimmed(kpath::TracefsFile(tracefs_, kpath::kTracingOn));
  return on && *on == "0";
}

Result<std::string> TracerSession::Finish(std::string& restore_error) {
  (void)lease_.Set(kpath::kTracingOn, "0");
  auto text = root_->Read(kpath::TracefsFile(tracefs_, kpath::kTrace));
  if (auto r = lease_.Restore(); !r) restore_error = r.error().message;
  if (!text) return Wrap("cannot read the trace: ", text.error());
  return text;
}

}  // namespace rtagent
