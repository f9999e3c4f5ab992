// The verdict as Markdown: a report to paste into a design review.
#pragma once

#include <string>

#include "report/verdict.h"

namespace rtagent {

/// A Markdown report: title with the result, the trust warnings at the top (before any
/// figure), then criteria, per-CPU latency, overflows, run setup, host, loads, interrupts and
/// pre-flight checks. Latencies in µs; percentiles beyond the histogram say so.
std::string RenderMarkdown(const Verdict& v);

/// `s` safe inside a Markdown table cell ('|' escaped, newlines as spaces).
std::string MarkdownCell(const std::string& s);

}  // namespace rtagent
