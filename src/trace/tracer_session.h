// The live recording behind `rtagent explain`: the timerlat tracer on the measured CPUs with
// the osnoise, sched and irq events it needs for an attribution, stopped by the kernel itself
// at the first thread latency past the threshold (osnoise/stop_tracing_total_us), so the
// buffer ends with the late wake-up. Every tracefs file it writes is held by a TracefsLease
// (base/tracefs.h) and written back on every exit path, Ctrl-C included.
// Documentation/trace/timerlat-tracer.rst, osnoise-tracer.rst.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "base/tracefs.h"

namespace rtagent {

/// The events a recording switches on besides the tracer (system, event), as rtla timerlat -a does.
const std::vector<std::pair<std::string, std::string>>& ExplainEvents();

/// What the kernel offers for an attribution.
struct TracerSupport {
  std::string tracefs;           ///< where tracefs is ("" when it is not mounted)
  bool timerlat = false;         ///< the timerlat tracer (CONFIG_TIMERLAT_TRACER, Linux 5.14+)
  std::vector<std::string> missing_events;  ///< of ExplainEvents(), those the kernel lacks ("osnoise/irq_noise")
  std::string reason;            ///< why no recording can be made ("" when timerlat is there)
};

/// True when `clock` is one of the words of trace_clock's text ("local [global] mono").
bool TraceClockOffered(const std::string& trace_clock_file, const std::string& clock);

/// Looks at tracefs under `root`: never writes.
TracerSupport ProbeTracers(const SysRoot& root);

/// The trace clock a recording asks for: "mono" (CLOCK_MONOTONIC through the NMI-safe fast
/// accessor), the clock timerlat's hrtimer measures its latencies on, so the events' time stamps
/// and the latencies agree. The kernel's default ("local", or "global" after it found the TSC
/// unstable, as under QEMU's TCG) reads sched_clock, which in a virtual machine can stand
/// still for a jiffy and disagree with timerlat by a factor of several.
inline constexpr const char* kExplainTraceClock = "mono";

/// One recording.
struct SessionSpec {
  CpuSet cpus;                  ///< the measured CPUs: timerlat runs and the trace records only there
  int64_t threshold_us = 0;     ///< the kernel stops tracing at a thread latency above this (0: never)
  int64_t period_us = 1000;     ///< timerlat's period
};

/// A running recording. Destroying it (or Finish()) writes every file back.
class TracerSession {
 public:
  /// Leases the files, then switches the events on and the tracer last. On an error nothing
  /// stays changed.
  static Result<TracerSession> Start(SysRoot& root, const TracerSupport& support, const SessionSpec& spec);

  /// True once the kernel stopped tracing by itself (tracing_on reads 0): the threshold was crossed.
  bool StoppedByKernel() const;
  /// Stops tracing, reads the trace and writes every leased file back. The trace is returned
  /// even when the restore fails (the error is in `restore_error`).
  Result<std::string> Finish(std::string& restore_error);

 private:
  TracerSession(SysRoot& root, std::string tracefs, TracefsLease lease)
      : root_(&root), tracefs_(std::move(tracefs)), lease_(std::move(lease)) {}
  SysRoot* root_;
  std::string tracefs_;
  TracefsLease lease_;
};

}  // namespace rtagent
