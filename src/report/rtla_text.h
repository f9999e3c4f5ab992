// rtla timerlat hist's text output read as an imported run (the kernel's
// tools/tracing/rtla, Documentation/tools/rtla/rtla-timerlat-hist.rst).
#pragma once

#include <string_view>

#include "base/result.h"
#include "report/import.h"

namespace rtagent {

/// Reads `rtla timerlat hist` output: "# Time unit is microseconds (us)" (or nanoseconds with
/// -n, folded into 1 µs bins), "# Duration: D HH:MM:SS", the header "Index IRQ-000 Thr-000
/// [Usr-000] ...", one row per bucket (empty rows may be skipped), then "over:", "count:",
/// "min:", "avg:", "max:"; a newer rtla's "ALL:" summary after them is not read. Each CPU's
/// user-space column (Usr, with -u) is taken when present, else its thread column (Thr): the
/// latency a real-time thread sees, as cyclictest's; the IRQ columns are not. Rows stepping by
/// more than one bucket (-b N) are refused: their bins are not 1 µs wide. Errors name the line.
Result<ImportedRun> ParseRtlaTimerlatHist(std::string_view text);

}  // namespace rtagent
