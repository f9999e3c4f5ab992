// Why one wake-up was late, from the kernel's events around it: a table of causes whose
// times add up exactly to the measured latency. A pure function of a parsed trace
// (trace/ftrace_text.h), so a trace recorded live and the same trace read back with
// `rtagent explain --from` give the same table.
//
// The late wake-up is found in the trace itself: a sample of the timerlat tracer (the kernel's
// own timerlat thread, Documentation/trace/timerlat-tracer.rst). Its window runs from
// the moment the timer should have fired to the moment the woken thread read the clock.
// Every nanosecond of the window goes to what the CPU was doing then, innermost first: an
// NMI, an IRQ handler (the timer's own, or another by name and number), a softirq by kind,
// else the task on the CPU (sched_switch). A task before the timer's IRQ started is why the
// IRQ was held back (IRQs off, or the exit from idle); after the wake-up, a thread ranked
// above the woken one is interference and one ranked below it is blocking (it kept the CPU
// with preemption or IRQs off); the woken thread itself is its own wake-up path. This is the
// split of Real-Time Linux, Chapter 3 ("The same picture, as the researchers write it") and
// of `rtla timerlat -a`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "trace/ftrace_text.h"

namespace rtagent {

/// One late wake-up found in a trace.
struct LateWakeup {
  int cpu = -1;
  int64_t latency_ns = 0;
  int64_t deadline_ns = 0;  ///< when the timer should have fired, on the trace clock
  int64_t end_ns = 0;       ///< when the woken thread read the clock (deadline + latency)
  int pid = -1;             ///< the woken thread (timerlat/N)
  std::string comm;
  std::string source;       ///< the tracer that measured it: "timerlat"
  std::optional<int64_t> irq_latency_ns;  ///< timerlat: the IRQ context's own latency
  std::optional<int64_t> sample_ns;       ///< the thread sample's own time stamp on the trace clock
};

/// Which late wake-up to explain.
struct WakeupQuery {
  CpuSet cpus;                         ///< only these CPUs (empty: every CPU)
  std::optional<int64_t> threshold_ns; ///< the first wake-up later than this; unset: the latest one
};

/// Every wake-up the trace records (timerlat thread samples), in trace order.
std::vector<LateWakeup> FindWakeups(const ParsedTrace& trace);

/// The one `query` asks for; the error says what the trace holds instead.
Result<LateWakeup> PickWakeup(const ParsedTrace& trace, const WakeupQuery& query);

/// The wake-up to explain: the first past `query.threshold_ns`, else (or without a threshold)
/// the worst of all; `crossed` says whether it was past the threshold.
Result<LateWakeup> ChooseWakeup(const ParsedTrace& trace, const WakeupQuery& query, bool& crossed);

/// One row of the table.
struct Cause {
  /// "timer_irq_delay", "timer_irq", "irq", "softirq", "nmi", "thread" (ranked above the woken
  /// thread), "blocking" (ranked at or below it), "wakeup_path", "unexplained".
  std::string kind;
  std::string name;   ///< what a reader sees: "IRQ 11 (virtio0)", "softirq NET_RX", "noise:412"
  int64_t ns = 0;
  std::optional<int> irq;       ///< IRQ number or vector
  std::optional<int> pid;       ///< thread causes
  std::string comm;
  std::string policy;           ///< "RT", "OTHER", "DEADLINE" from the trace; "FIFO"/"RR" when known
  std::optional<int> priority;  ///< RT priority 1..99, or nice for OTHER
  std::string detail;           ///< one sentence on what it means

  /// This row's share of `total_ns`, in percent.
  double Share(int64_t total_ns) const { return total_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(total_ns) : 0; }
};

/// The answer for one late wake-up.
struct Attribution {
  LateWakeup wakeup;
  std::optional<int64_t> timer_irq_start_ns;  ///< from the deadline ("IRQ latency")
  std::vector<Cause> causes;                  ///< largest first; their ns add up to wakeup.latency_ns
  std::vector<std::string> notes;             ///< what limits the answer (lost events, no sched_switch)
  std::string events;                         ///< the event families it rests on, for readers

  /// Sum of the causes' ns (== wakeup.latency_ns).
  int64_t TotalNs() const;
};

/// The attribution of `wakeup` from the events of its CPU.
Attribution Attribute(const ParsedTrace& trace, const LateWakeup& wakeup);

}  // namespace rtagent
