// The verdict's "why" section (report/verdict.h WhySection) in each of the verdict's forms:
// JSON (read back by `report` and `diff`), terminal, Markdown and HTML text, and the one line the
// JUnit failure message and the SVG's caption carry. docs/explain.md describes each key.
#pragma once

#include <nlohmann/json_fwd.hpp>  // declarations only: the .cc files that build JSON include json.hpp
#include <string>

#include "base/result.h"
#include "report/verdict.h"

namespace rtagent {

/// {status, reason, threshold_us, crossed, trace {path, format}, then "explained": the
/// attribution (why.h WhyJson's keys); "coarse": {cpu, worst_us, window, counts [{source,
/// name, delta}]}}.
nlohmann::ordered_json WhySectionJson(const WhySection& w);

/// A why section read back; errors name the key.
Result<WhySection> ParseWhySectionJson(const nlohmann::ordered_json& j);

/// The section for a terminal: the attribution table, the coarse counts, or the skip reason,
/// then where the trace was saved.
std::string RenderWhySectionText(const WhySection& w);

/// The section as Markdown ("## Why the worst wake-up was late" and a table).
std::string RenderWhySectionMarkdown(const WhySection& w);

/// The section as HTML for verdict.html: an <h2>, the wake-up in a sentence, the causes in a
/// table with header cells (or the coarse counts, or the skip reason), then where the trace was
/// saved. Every text is escaped (base/xml.h).
std::string RenderWhySectionHtml(const WhySection& w);

/// One line: "why: IRQ 25 (virtio0) 61.0%, noise-spin:412 RT 98 30.2% (CPU 2, 2010.0 µs)", or
/// "why: coarse: ...", or "why: SKIP (reason)". The JUnit failure text and the SVG caption.
std::string WhyCaption(const WhySection& w);

}  // namespace rtagent
