// The verdict as JSON: complete (histograms as sparse bin arrays), and read back for
// `rtagent report` and `rtagent diff`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/result.h"
#include "report/verdict.h"

namespace rtagent {

/// The schema tag written into every verdict; the parser accepts the same major version.
inline constexpr const char* kVerdictSchema = "rtagent-verdict/1";

/// The whole verdict as pretty-printed JSON (2-space indent, trailing newline). Histogram bins
/// are sparse: [[bin_us, count], ...] for the non-empty bins only. Statistics are written for
/// readers; the parser recomputes them from the histogram.
std::string RenderJson(const Verdict& v);

/// The host facts as a verdict writes them (its "host" object); `rtagent bench` writes the same.
nlohmann::ordered_json HostFactsJson(const HostFacts& h);
/// Host facts back from such an object. A missing or mistyped required field throws
/// nlohmann::json::exception, which the caller turns into its error.
HostFacts ParseHostFactsJson(const nlohmann::ordered_json& j);

/// A verdict back from RenderJson's output. Errors name the missing or mistyped field.
Result<Verdict> ParseVerdictJson(std::string_view text);

}  // namespace rtagent
