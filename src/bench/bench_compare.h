// `rtagent bench --compare A.json B.json`: two runs side by side (a kernel change, a board
// change, a virtual machine against the board), as Markdown.
#pragma once

#include <string>

#include "bench/bench_run.h"

namespace rtagent::bench {

/// Who each run was (kernel, PREEMPT_RT, virtual machine, clock, class, timer health), then
/// per phase every test both measured: p50 and p99 of each and B/A, then the tests only one
/// of them measured. `a_name` and `b_name` label the columns (the file names).
std::string RenderBenchCompare(const BenchRun& a, const std::string& a_name, const BenchRun& b,
                               const std::string& b_name);

/// "×1.25", "×0.80"; "–" when A is 0.
std::string Ratio(int64_t a, int64_t b);

}  // namespace rtagent::bench
