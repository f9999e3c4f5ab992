// The evidence of a priority-inheritance boost as the kernel records it: the scheduler's
// sched_pi_setprio events in tracefs, switched on through a lease (put back as found) for the
// length of the experiment, and filtered for the experiment's own lock holders.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "base/tracefs.h"
#include "bench/pi_experiment.h"

namespace rtagent::bench {

/// One sched_pi_setprio event: "comm=rtagent-pi-low pid=812 oldprio=11 newprio=9".
struct PiSetprio {
  std::string comm;
  int pid = 0;
  int oldprio = 0;  ///< kernel priority: 99 - rt_priority for a SCHED_FIFO thread (lower is higher)
  int newprio = 0;
  std::string line;  ///< the trace line, trimmed

  /// A raise (newprio outranks oldprio), not the fall back when the lock is released.
  bool Boost() const { return newprio < oldprio; }
};

/// Every sched_pi_setprio event in the text of tracefs' trace file; other lines are skipped.
std::vector<PiSetprio> ParsePiSetprio(std::string_view trace_text);

/// Counts the boosts of each run's lock holder in `events` and keeps one as the example.
PiEvidence EvidenceFrom(const std::vector<PiSetprio>& events, const PiResult& r);

/// The sched_pi_setprio event switched on for the length of an experiment. Construction takes
/// a lease on the event's enable file and tracing_on and turns both on; when tracefs, the
/// event or the writes are missing it records why and changes nothing. The lease puts tracefs
/// back as found on every exit path.
class PiTraceSession {
 public:
  explicit PiTraceSession(SysRoot& root);
  /// True when the event is on.
  bool Tracing() const { return lease_.has_value(); }
  /// Reads the trace, puts tracefs back and fills `r.evidence` (or its why_not). The error
  /// names every tracefs file left changed.
  Result<void> Finish(PiResult& r);

 private:
  SysRoot& root_;
  std::string tracefs_;
  std::string why_not_;
  std::optional<TracefsLease> lease_;
};

/// Runs the experiment (RunPiExperiment) inside a PiTraceSession. The live system only: under
/// a fixture root it refuses (EINVAL) before anything runs.
Result<PiResult> RunPiWithEvidence(SysRoot& root, const PiOptions& options);

}  // namespace rtagent::bench
