// `rtagent diff BEFORE AFTER`: two verdicts compared role by role (CPU, load, criterion).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/verdict.h"
#include "report/why_diff.h"

namespace rtagent {

/// How much worse a latency may get before it is a regression: both thresholds must be
/// passed (a 2 -> 4 µs change is +100 % but only 2 µs, noise on any machine).
struct DiffTolerance {
  double percent = 10;  ///< relative increase, in % of the before value
  double abs_us = 5;    ///< absolute increase, in µs
};

/// One latency metric of one role, before and after.
struct MetricChange {
  std::string metric;               ///< "max", "p99", "p99.9"
  std::optional<double> before_us;  ///< nullopt when unknown (beyond the histogram, or not measured)
  std::optional<double> after_us;
  bool before_beyond = false;       ///< the percentile lay past the histogram's last bin
  bool after_beyond = false;
  std::optional<double> delta_us;       ///< after - before, when both are known
  std::optional<double> delta_percent;  ///< relative to before, when before > 0
  bool regression = false;
};

/// Everything compared for one role.
struct RoleDiff {
  std::string kind;  ///< "cpu", "load", "criterion"
  std::string role;  ///< "CPU 2", "load hackbench", "max on CPU 2"
  bool only_before = false;  ///< present in BEFORE only
  bool only_after = false;   ///< present in AFTER only
  std::vector<MetricChange> metrics;
  std::vector<std::string> notes;  ///< changes that are not latencies (placement, exit, pass/fail)
  bool regression = false;
};

/// The comparison.
struct VerdictDiff {
  std::string before_profile, after_profile;
  bool before_pass = false, after_pass = false;
  DiffTolerance tolerance;
  std::vector<RoleDiff> roles;         ///< CPUs in CPU order, then loads, then criteria
  std::vector<std::string> notes;      ///< run-wide changes (trust warnings appearing or going)
  bool regression = false;             ///< any role regressed, or PASS became FAIL
  /// Both verdicts' why sections explained a wake-up: their causes compared (never a regression
  /// by itself: the criteria judge the run).
  std::optional<CauseDiff> causes;
};

/// Compares two verdicts by role, never by position: CPU number, load name, criterion
/// (name, CPU); and the causes of their why sections when both have an attribution (a note
/// says so when only one has). A latency regresses when it grew by more than both tolerances, or when a
/// percentile moved past the histogram's last bin; a load regresses when its placement
/// broke; a criterion when it passed before and fails after.
VerdictDiff DiffVerdicts(const Verdict& before, const Verdict& after, const DiffTolerance& tolerance = {});

/// The diff as Markdown: a table per kind, regressions in bold.
std::string RenderDiffMarkdown(const VerdictDiff& d);
/// The diff as JSON (2-space indent, trailing newline).
std::string RenderDiffJson(const VerdictDiff& d);

}  // namespace rtagent
