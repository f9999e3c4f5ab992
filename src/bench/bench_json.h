// A bench run as JSON lines (schema rtagent.bench/1, docs/bench.md): one "run" line, one
// "result" line per test and phase, one "timer_health" line; and read back for --compare.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "bench/bench_run.h"

namespace rtagent::bench {

/// The schema tag of every line; the reader accepts this one only.
inline constexpr const char* kBenchSchema = "rtagent.bench/1";

/// Every line, each a complete JSON object ended by '\n'. Every result line names its phase,
/// CPU, class and whether the figures come from a virtual machine.
std::string RenderJsonLines(const BenchRun& run);

/// A run back from RenderJsonLines' output. `source` names the text in errors
/// ("FILE:LINE: ..."); blank lines are skipped; a line of another schema or type is an error.
Result<BenchRun> ParseJsonLines(std::string_view text, const std::string& source);

}  // namespace rtagent::bench
