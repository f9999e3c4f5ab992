// The verdict as one self-contained HTML page (verdict.html): a page a person opens, prints or
// attaches to a review without anything else beside it.
#pragma once

#include <string>

#include "report/verdict.h"

namespace rtagent {

/// A complete HTML5 document: inline CSS (a screen and a print stylesheet) and the inline SVG
/// histogram of svg.h; no script, and nothing a browser would fetch (no link, image, font,
/// frame or URL). In order: the verdict word and its reason, the virtual-machine label when
/// the host is one, the trust warnings, the criteria table, the histogram with a per-CPU table,
/// the pre-flight checks with their status and hints, the host facts, the tuning the run
/// measured (the verdict records the profile and the state, not the plan), and the "why"
/// section. Tables have header cells; PASS and FAIL are words and marks, never colour alone.
/// Every text goes through XmlEscape.
std::string RenderHtml(const Verdict& v);

}  // namespace rtagent
