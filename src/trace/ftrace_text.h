// The kernel's trace in its text form, read into events: tracefs' `trace` file (what
// `rtagent explain` and `accept` save beside the verdict), `trace-cmd report`'s output and
// the trace `rtla timerlat -a` saves (timerlat_trace.txt, a copy of the same file).
//
// The text comes from a user as often as from the kernel, so nothing in it is trusted: every
// field is checked, a line that does not read is counted and skipped, and a text with no
// event at all is an error that names the first line it could not read. A pure function of
// the text: it is fuzzed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace rtagent {

/// One line of a trace: who was running, where, when, and the event with its arguments.
struct TraceEvent {
  std::string comm;   ///< the task's name as printed ("<idle>", "<...>" when unknown)
  int pid = -1;       ///< the task (thread) id; 0 for the idle task
  int cpu = -1;
  int64_t ts_ns = 0;  ///< the trace clock, in ns
  std::string name;   ///< "sched_switch", "irq_handler_entry", "tracing_mark_write", "timerlat", ...
  std::string args;   ///< everything after "name: "
  size_t line = 0;    ///< 1-based line in the text

  /// The value of "key=value" in args ("" when absent). Values end at a space, except a
  /// "comm" value, which may hold spaces and ends where the next " key=" begins.
  std::string Field(std::string_view key) const;
  /// Field() as an integer, when it is one.
  std::optional<int64_t> IntField(std::string_view key) const;
};

/// A whole trace: its events in the order of the text, and what could not be used.
struct ParsedTrace {
  std::string tracer;                ///< from "# tracer: timerlat" ("" when the text does not say)
  std::vector<TraceEvent> events;
  size_t unreadable_lines = 0;       ///< lines that are neither comments nor events
  std::vector<std::string> losses;   ///< "CPU:2 [LOST 1234 EVENTS]" lines, as written
  std::vector<int> cpus;             ///< every CPU an event came from, sorted
};

/// Reads a trace's text. Comment and header lines ("# ...", trace-cmd's "cpus=4", "version =
/// 6") are skipped; an event line is "COMM-PID [CPU] [FLAGS] SECONDS.FRACTION: NAME: ARGS"
/// (with an optional "(TGID)" after the task), the fraction in µs or ns. The timerlat and
/// hwlat tracers' own lines ("#123 context irq timer_latency 4567 ns") are events named after
/// the tracer that wrote them. Errors: an empty text, or a text without one event line.
Result<ParsedTrace> ParseFtraceText(std::string_view text);

}  // namespace rtagent
