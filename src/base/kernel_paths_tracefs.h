// The tracefs files of the osnoise and timerlat tracers and of trace events, relative to the
// tracefs mount (join them with kernel_paths.h's TracefsFile). Part of the one door of
// kernel_paths.h, in a header of its own because only the tracing code includes it while
// every file includes kernel_paths.h. Documentation/trace/osnoise-tracer.rst,
// timerlat-tracer.rst (Linux 5.14+), events.rst.
#pragma once

#include <string>

namespace rtagent::kpath {

/// The switch of one trace event: TraceEventEnable("sched", "sched_switch") -> "events/sched/sched_switch/enable".
inline std::string TraceEventEnable(const std::string& system, const std::string& event) {
  return "events/" + system + "/" + event + "/enable";
}
inline const std::string kOsnoiseCpus = "osnoise/cpus";                          // CPU list the tracer runs on
inline const std::string kOsnoiseStopUs = "osnoise/stop_tracing_us";             // timerlat: stop at an IRQ latency above
inline const std::string kOsnoiseStopTotalUs = "osnoise/stop_tracing_total_us";  // timerlat: stop at a thread latency above
inline const std::string kTimerlatPeriodUs = "osnoise/timerlat_period_us";       // timerlat's period, µs

}  // namespace rtagent::kpath
