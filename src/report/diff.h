// `rtagent diff BEFORE AFTER` and `accept --baseline`: two verdicts compared role by role (CPU,
// load, criterion) as a CI gate: tolerances per statistic, a missing role is a regression, and
// what differs between the two runs (profile, host, kernel) is said first.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/junit_xml.h"
#include "base/result.h"
#include "report/verdict.h"
#include "report/why_diff.h"

namespace rtagent {

/// How much one statistic may grow before it is a regression: the larger of `percent` of the
/// before value and `abs_us` (a 2 -> 4 µs change is +100 % but only 2 µs, noise on any machine).
struct DiffTolerance {
  double percent = 10;  ///< relative increase, in % of the before value
  double abs_us = 5;    ///< absolute increase, in µs

  /// The growth allowed from `before_us`, in µs.
  double AllowedUs(double before_us) const;
};

/// The latency statistics a diff compares, in this order: "max", "p99", "p99.9", "p99.99".
const std::vector<std::string>& DiffStatistics();

/// What the gate compares and how strictly.
struct DiffRules {
  /// Per statistic (DiffStatistics); a statistic not listed has `fallback`.
  std::map<std::string, DiffTolerance> tolerance;
  DiffTolerance fallback;     ///< 10 % and 5 µs unless --tolerance-percent/--tolerance-us say otherwise
  bool allow_missing = false;  ///< a role of BEFORE absent from AFTER is only a note
  std::set<std::string> require_same;  ///< of "profile", "host", "kernel": a difference is an error

  /// The tolerance of `statistic`.
  DiffTolerance For(const std::string& statistic) const;
};

/// Adds `--tolerance` specs to `rules`: comma lists of STAT=N% or STAT=Nus (µs too), STAT one
/// of DiffStatistics(). A statistic named only with % allows 0 µs more, only with µs 0 % more;
/// both may be given ("max=10%,max=20us": the larger). Errors name the item and give a hint.
Result<void> AddTolerances(DiffRules& rules, const std::vector<std::string>& specs);

/// Adds `--require-same` values (each a comma list of profile, host, kernel) to `rules`.
Result<void> AddRequireSame(DiffRules& rules, const std::vector<std::string>& values);

/// One way the two runs are not alike: "profile", "host" or "kernel", each side as text
/// ("unknown" when the verdict does not say).
struct IdentityChange {
  std::string what;
  std::string before, after;
};

/// What differs between the runs: profile (by digest), host (by name), kernel (uname -r and
/// -v). A side that does not say (an import) differs from one that does.
std::vector<IdentityChange> IdentityChanges(const Verdict& before, const Verdict& after);

/// The changes `rules.require_same` forbids, one sentence each ("kernel differs: A -> B").
std::vector<std::string> RequiredSameViolations(const std::vector<IdentityChange>& changes, const DiffRules& rules);

/// One latency statistic of one role, before and after.
struct MetricChange {
  std::string metric;               ///< "max", "p99", "p99.9", "p99.99"
  std::optional<double> before_us;  ///< nullopt when unknown (beyond the histogram, or not measured)
  std::optional<double> after_us;
  bool before_beyond = false;       ///< the percentile lay past the histogram's last bin
  bool after_beyond = false;
  std::optional<double> delta_us;       ///< after - before, when both are known
  std::optional<double> delta_percent;  ///< relative to before, when before > 0
  std::optional<double> allowed_us;     ///< the growth the tolerance allowed, when before is known
  bool regression = false;
};

/// Overflows of one CPU before and after: any where there were none is a regression.
struct CountChange {
  uint64_t before = 0, after = 0;
  bool regression = false;
};

/// Everything compared for one role.
struct RoleDiff {
  std::string kind;  ///< "cpu", "load", "criterion"
  std::string role;  ///< "CPU 2", "load hackbench", "max on CPU 2"
  bool only_before = false;  ///< present in BEFORE only: a regression unless missing roles are allowed
  bool only_after = false;   ///< present in AFTER only
  std::vector<MetricChange> metrics;
  std::optional<CountChange> overflows;  ///< CPUs measured in both
  std::vector<std::string> notes;  ///< changes that are not latencies (placement, exit, pass/fail)
  bool regression = false;
};

/// The comparison.
struct VerdictDiff {
  std::string before_profile, after_profile;
  bool before_pass = false, after_pass = false;
  DiffRules rules;
  std::vector<IdentityChange> identity;  ///< how the two runs differ (stated first)
  std::vector<RoleDiff> roles;         ///< CPUs in CPU order, then loads, then criteria
  std::vector<std::string> notes;      ///< run-wide findings (no CPU in common, trust warnings appearing or going)
  /// BEFORE ran a PREEMPT_RT kernel and AFTER a kernel that is not (both say so): a kernel or
  /// image change that lost the real-time preemption model regresses whatever the figures say.
  bool preempt_rt_lost = false;
  bool regression = false;             ///< any role regressed, no CPU in common, PASS became FAIL, or PREEMPT_RT lost
  /// Both verdicts' why sections explained a wake-up: their causes compared (never a regression
  /// by itself: the criteria judge the run).
  std::optional<CauseDiff> causes;
};

/// Compares two verdicts by role, never by position: CPU number, load name, criterion
/// (name, CPU). A statistic regresses when it grew by more than its tolerance, or moved past
/// the histogram's last bin; overflows when there were none before; a load when its placement
/// broke; a criterion when it passed before and fails after (the "baseline" criterion of an
/// earlier gate is not compared). A role of BEFORE missing from AFTER regresses unless
/// `rules.allow_missing`; two runs without a measured CPU in common always do. The causes of
/// the two why sections are compared when both have an attribution (a note says so when only
/// one has).
VerdictDiff DiffVerdicts(const Verdict& before, const Verdict& after, const DiffRules& rules = {});

/// The roles that regressed, by name ("CPU 3 max", "load disk"), for one-line summaries.
std::vector<std::string> RegressedItems(const VerdictDiff& d);

/// The diff as Markdown: what differs first, then a table per kind, regressions in bold.
std::string RenderDiffMarkdown(const VerdictDiff& d);
/// The diff as JSON (2-space indent, trailing newline).
std::string RenderDiffJson(const VerdictDiff& d);
/// The diff as JUnit XML: one test case per compared statistic and role (class
/// rtagent.diff.cpuN, .load, .criterion, .run), failed where it regressed.
std::string RenderDiffJUnit(const VerdictDiff& d);
/// Those test cases alone, for a report that carries the comparison beside its own cases
/// (accept --baseline --junit).
std::vector<JUnitCase> DiffJUnitCases(const VerdictDiff& d);

}  // namespace rtagent
