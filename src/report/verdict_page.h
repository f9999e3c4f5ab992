// What a verdict's page shows, said once: the Markdown report (markdown.h) and the HTML page
// (html.h) lay out the same section titles, criteria columns, per-CPU latency cells, run and
// host facts, PM QoS sentence, run sentence and virtual-machine label. They come from here as
// plain text; each renderer only escapes and marks them up (issue 18).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/verdict.h"

namespace rtagent {

/// Section titles both pages use.
inline constexpr const char* kCriteriaTitle = "Criteria";
inline constexpr const char* kLatencyTitle = "Latency per CPU (µs)";
inline constexpr const char* kHostTitle = "Host";
inline constexpr const char* kInterruptsTitle = "Interrupts on the measured CPUs during the run";
inline constexpr const char* kPreflightTitle = "Pre-flight checks";
inline constexpr const char* kTuningTitle = "Tuning in force during the run";
/// The sentence under the per-CPU latency table.
inline constexpr const char* kPercentileNote =
    "Percentiles are 1 µs bins counted with every overflow in the total; min, mean and max are exact.";

/// The criteria table's column headings, in order: Role, Criterion, Limit, Measured, Result, Evidence.
const std::vector<std::string>& CriteriaColumns();
/// The loads table's column headings: Load, CPUs asked, CPUs ran, Placement, Ended, Log.
const std::vector<std::string>& LoadColumns();
/// The criteria that failed, in the verdict's order.
std::vector<const Criterion*> FailedCriteria(const Verdict& v);

/// The per-CPU latency table's column headings: CPU, Samples, Min, Mean, one per reported
/// percentile ("p99.9"), Max, Overflows, Skipped periods.
std::vector<std::string> LatencyColumns();
/// One CPU's row, one plain-text cell per column of LatencyColumns() (the CPU as its number;
/// skipped periods "unknown" when the verdict's source did not count them).
/// A percentile past the histogram's last bin reads "> LIMIT (`beyond`)": the Markdown report
/// says "beyond limit" as diff's table does, the HTML page "beyond the histogram".
std::vector<std::string> LatencyCells(const Verdict& v, const CpuResult& c, const std::string& beyond);

/// One row of a two-column fact table, as plain text.
struct PageFact {
  std::string label;                ///< "Kernel"
  std::string text;                 ///< the value; "unknown" when the verdict does not know it
  std::optional<std::string> code;  ///< a part that reads as code, after `text` (the kernel version)
  std::string alert;                ///< a word the reader must not miss, after the rest ("coarse"); "" none
};

/// A row with a label and a plain value, no code part, no alert.
PageFact PlainFact(std::string label, std::string text);

/// The run's settings both pages list, in order: Measured CPUs, Interval, Scheduling,
/// Duration, Histogram, Memory locked.
std::vector<PageFact> RunFactRows(const Verdict& v);
/// The PM QoS note in force during the run, and what the device and `rtagent hold` read.
std::string PmQosText(const Verdict& v);

/// How much the host table says.
enum class HostDetail {
  kSummary,  ///< one row per fact (the Markdown report: the warnings above say the rest)
  kNotes,    ///< also a row per clock note, and a virtual machine's figures called so (the HTML page)
};
/// The host facts: Host, Kernel, PREEMPT_RT, Clocksource, Clock (and its notes), Virtual machine.
std::vector<PageFact> HostFactRows(const Verdict& v, HostDetail detail);

/// The label a page puts above everything when the run was on a virtual machine: the judge's
/// own warning when it made one, else the same fact in a sentence; nullopt on real hardware
/// or when the verdict does not know.
std::optional<std::string> VmLabel(const Verdict& v);

/// "Measured CPUs 2-3 every 1000 µs for 1.0 s (asked 1.0 s), SCHED_FIFO priority 80, on host
/// (kernel, PREEMPT_RT), started ...": each part an import's source does not state says so.
/// `inner` is applied to the texts that come from outside (host, kernel, an import's path).
std::string RunSentence(const Verdict& v, const std::function<std::string(const std::string&)>& inner);

/// The tuning table's column headings: Section, Setting, Before, After.
const std::vector<std::string>& TuningColumns();
/// What the tuning table stands for, in one sentence: how many changes rtagent had in force and
/// from which journal, how many are listed; none in force; the journal unreadable; or, for a
/// verdict that did not record it, where to look instead.
std::string TuningSentence(const Verdict& v);
/// A before or after value as a table cell shows it: "" as "(empty)", long values cut at 120
/// characters with "…".
std::string TuningValue(const std::string& value);

/// How a load ended: "exit 0", "signal 15", "still running".
std::string LoadEnded(const LoadResult& l);

}  // namespace rtagent
