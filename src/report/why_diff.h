// Two "why"s side by side (the codelab's trace diff): which cause of a late wake-up appeared,
// grew, shrank or vanished between two traces or two verdicts. `rtagent explain --diff` and
// `rtagent diff` (when both verdicts carry an attribution) print it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trace/attribution.h"

namespace rtagent {

struct DiffTolerance;  // report/diff.h

/// One cause in BEFORE, AFTER or both.
struct CauseChange {
  std::string kind;                  ///< Cause::kind
  std::string label;                 ///< as AFTER names it (BEFORE's when it vanished)
  std::optional<int64_t> before_ns;  ///< nullopt: not a cause in BEFORE
  std::optional<int64_t> after_ns;
  double before_share = 0, after_share = 0;  ///< percent of each wake-up's latency
  /// "appeared", "vanished", "grew", "shrank", "same" (within the tolerance).
  std::string change;
};

/// The two attributions compared.
struct CauseDiff {
  int64_t before_latency_ns = 0, after_latency_ns = 0;
  std::vector<CauseChange> causes;  ///< AFTER's order (largest first), then the vanished ones
};

/// Compares the causes of two late wake-ups. A cause is the same in both when its kind and
/// name match; a thread's PID is left out of the match (a respawned noise thread is the same
/// cause), its name and rank are not. It grew or shrank when its time changed by more than
/// both of `tolerance`'s thresholds.
CauseDiff DiffCauses(const Attribution& before, const Attribution& after, const DiffTolerance& tolerance);

/// The comparison as a text table ("  µs before  µs after  change  cause").
std::string RenderCauseDiffText(const CauseDiff& d);
/// The comparison as a Markdown section ("## Why: causes before and after").
std::string RenderCauseDiffMarkdown(const CauseDiff& d);
/// {before_latency_us, after_latency_us, causes [{kind, label, before_us, after_us,
/// before_share_percent, after_share_percent, change}]}.
nlohmann::ordered_json CauseDiffJson(const CauseDiff& d);

}  // namespace rtagent
