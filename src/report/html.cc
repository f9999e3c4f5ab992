#include "report/html.h"

#include <cctype>
#include <sstream>

#include "base/xml.h"
#include "report/format.h"
#include "report/svg.h"
#include "report/verdict_page.h"
#include "report/why_section.h"

namespace rtagent {
namespace {

// How many failed criteria the verdict's reason names before "and N more".
constexpr size_t kReasonCriteria = 4;

// Screen first, then print. Colour only repeats what the words and marks (✓ ✗ ⚠) already say.
const char* const kStyle = R"css(
body { font-family: sans-serif; font-size: 15px; line-height: 1.45; color: #1a1a1a; background: #ffffff;
       max-width: 1100px; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1rem; font-weight: normal; color: #444444; margin: 0; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.6rem; border-bottom: 1px solid #cccccc; }
.verdict { font-size: 2.6rem; font-weight: bold; margin: 0.3rem 0; padding: 0.4rem 1rem;
           border: 4px solid #555555; border-radius: 6px; }
.verdict.pass { color: #0b5d1e; border-color: #0b5d1e; background: #e9f6ec; }
.verdict.fail { color: #8b0000; border-color: #b00020; background: #fdecee; }
.reason { font-size: 1.25rem; margin: 0.4rem 0 1rem; }
.vm { font-size: 1.1rem; border: 2px dashed #8a5a00; background: #fff6e0; padding: 0.5rem 1rem; }
.tag { display: inline-block; border: 1px solid #8a5a00; padding: 0 0.4rem; margin-right: 0.5rem; letter-spacing: 0.05em; }
.warnings { border-left: 4px solid #b00020; padding: 0.2rem 1rem; background: #fafafa; }
table { border-collapse: collapse; margin: 0.4rem 0 1rem; width: 100%; }
caption { text-align: left; font-weight: bold; padding: 0.2rem 0; }
th, td { border: 1px solid #cccccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; }
tbody th { font-weight: normal; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.fail td, tr.fail th { background: #fdecee; }
tr.warn td, tr.warn th { background: #fff6e0; }
td.result, td.nowrap { white-space: nowrap; }
tr.fail td.result { font-weight: bold; color: #8b0000; }
figure { margin: 0; }
svg { max-width: 100%; height: auto; }
code { font-size: 0.9em; overflow-wrap: anywhere; }
footer { margin-top: 2rem; color: #555555; font-size: 0.9rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; color: #000000; }
  .verdict, .vm, .warnings, tr.fail td, tr.fail th, tr.warn td, tr.warn th { background: none; }
  .verdict, .verdict.pass, .verdict.fail { color: #000000; }
  h2 { break-after: avoid; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; }
}
)css";

std::string E(const std::string& s) { return XmlEscape(s); }

/// Escaped text with its `backquoted` parts as code.
std::string CodeSpans(const std::string& escaped) {
  std::string out;
  bool in_code = false;
  for (char c : escaped) {
    if (c == '`') {
      out += in_code ? "</code>" : "<code>";
      in_code = !in_code;
    } else {
      out += c;
    }
  }
  if (in_code) out += "</code>";
  return out;
}

/// One row of a two-column fact table: the fact as the row's header cell. `value` is HTML.
std::string FactRow(const std::string& fact, const std::string& value) {
  return "<tr><th scope=\"row\">" + E(fact) + "</th><td>" + value + "</td></tr>\n";
}

/// "coarse" -> "COARSE": the page stresses a word in capitals, so it survives without CSS.
std::string Capitals(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// A page fact's row: the value escaped, its code part in <code>, its alert in capitals.
std::string FactRow(const PageFact& f) {
  std::string value = E(f.text);
  if (f.code) value += " <code>" + E(*f.code) + "</code>";
  if (!f.alert.empty()) value += ", " + E(Capitals(f.alert));
  return FactRow(f.label, value);
}

/// A table's heading row, each column a header cell; the columns from `numeric_from` on are numbers.
std::string HeadRow(const std::vector<std::string>& columns, size_t numeric_from = SIZE_MAX) {
  std::string row = "<thead><tr>";
  for (size_t i = 0; i < columns.size(); ++i) {
    row += std::string("<th scope=\"col\"") + (i >= numeric_from ? " class=\"num\"" : "") + ">" + E(columns[i]) + "</th>";
  }
  return row + "</tr></thead>\n";
}

/// The result word with a mark, so a reader without colour (or without CSS) sees it.
std::string ResultCell(bool pass) { return pass ? "✓ pass" : "✗ FAIL"; }

/// A pre-flight check's status word with its mark; "" status: the verdict only knows passed or not.
std::string PreflightStatus(const PreflightCheck& p) {
  const std::string s = p.status.empty() ? (p.passed ? "PASS" : "FAIL") : p.status;
  if (s == "PASS") return "✓ PASS";
  if (s == "FAIL") return "✗ FAIL";
  if (s == "WARN") return "⚠ WARN";
  if (s == "SKIP") return "– SKIP";
  return s;
}

std::string PreflightRowClass(const PreflightCheck& p) {
  if (!p.passed) return "fail";
  return p.status == "WARN" ? "warn" : "pass";
}

/// The verdict's one-sentence reason: which criteria failed (the first few, with the measured
/// value and the limit), or that all hold; an interruption and an empty run are said.
std::string Reason(const Verdict& v) {
  const std::vector<const Criterion*> failed = FailedCriteria(v);
  std::string s;
  if (v.cpus.empty()) {
    s = "No CPU was measured";
  } else if (v.criteria.empty()) {
    s = "No criterion was judged";
  } else {
    s = CriteriaOutcome(failed.size(), v.criteria.size());
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    for (size_t i = 0; i < failed.size() && i < kReasonCriteria; ++i) {
      const Criterion& k = *failed[i];
      s += (i ? "; " : ": ") + k.Role() + " " + k.name + " " + k.measured_text + " (limit " + k.LimitText() + ")";
    }
    if (failed.size() > kReasonCriteria) s += "; and " + std::to_string(failed.size() - kReasonCriteria) + " more";
  }
  if (v.interrupted) s += "; the run was interrupted";
  s += ".";
  if (v.pass && !v.warnings.empty()) s += " Read the warnings below before quoting any figure.";
  return s;
}

/// The SVG renderer's document, made an element of this page: no XML declaration, and no
/// namespace attribute (the HTML parser puts <svg> in the SVG namespace itself), so the page
/// holds no URL at all.
std::string InlineSvg(const Verdict& v) {
  std::string svg = RenderSvg(v);
  if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  if (size_t at = svg.find(ns); at != std::string::npos) svg.replace(at, ns.size(), " role=\"img\" aria-labelledby=\"histogram-title\"");
  if (size_t at = svg.find("<title>"); at != std::string::npos) svg.replace(at, 7, "<title id=\"histogram-title\">");
  return svg;
}

void CriteriaSection(std::ostringstream& o, const Verdict& v) {
  o << "<section id=\"criteria\">\n<h2>" << kCriteriaTitle << "</h2>\n";
  if (v.criteria.empty()) {
    o << "<p>No criterion was judged.</p>\n</section>\n";
    return;
  }
  o << "<table>\n<caption>Each acceptance criterion, its limit and what was measured</caption>\n"
    << HeadRow(CriteriaColumns()) << "<tbody>\n";
  for (const Criterion& k : v.criteria) {
    o << "<tr class=\"" << (k.pass ? "pass" : "fail") << "\"><td class=\"nowrap\">" << E(k.Role()) << "</td><th scope=\"row\">" << E(k.name)
      << "</th><td class=\"nowrap\">" << E(k.LimitText()) << "</td><td>" << E(k.measured_text) << "</td><td class=\"result\">"
      << ResultCell(k.pass) << "</td><td>" << E(k.evidence) << "</td></tr>\n";
  }
  o << "</tbody>\n</table>\n</section>\n";
}

void HistogramSection(std::ostringstream& o, const Verdict& v) {
  o << "<section id=\"histogram\">\n<h2>Wake-up latency</h2>\n<figure>\n" << InlineSvg(v)
    << "<figcaption>Wake-ups per 1 µs bin, both axes logarithmic, one line per CPU: the solid line is the worst "
       "wake-up, the dashed one the profile's limit, the dotted one the histogram's last bin; dots are wake-ups "
       "past it. The table below gives the same figures as text.</figcaption>\n</figure>\n";
  o << "<table>\n<caption>" << kLatencyTitle << "</caption>\n" << HeadRow(LatencyColumns(), 1) << "<tbody>\n";
  for (const CpuResult& c : v.cpus) {
    const std::vector<std::string> cells = LatencyCells(v, c, "beyond the histogram");
    o << "<tr><th scope=\"row\">CPU " << E(cells[0]) << "</th>";
    for (size_t i = 1; i < cells.size(); ++i) o << "<td class=\"num\">" << E(cells[i]) << "</td>";
    o << "</tr>\n";
  }
  o << "</tbody>\n</table>\n<p>" << kPercentileNote << "</p>\n</section>\n";
}

void PreflightSection(std::ostringstream& o, const Verdict& v) {
  o << "<section id=\"preflight\">\n<h2>" << kPreflightTitle << "</h2>\n";
  if (v.preflight.empty()) {
    o << "<p>No pre-flight check is recorded (<code>--preflight none</code>, or a result read from another "
         "tool).</p>\n</section>\n";
    return;
  }
  o << "<table>\n<caption>The check suite run before the measurement, one row per check</caption>\n"
       "<thead><tr><th scope=\"col\">Check</th><th scope=\"col\">Status</th><th scope=\"col\">What it found</th>"
       "<th scope=\"col\">Hint</th></tr></thead>\n<tbody>\n";
  for (const PreflightCheck& p : v.preflight) {
    o << "<tr class=\"" << PreflightRowClass(p) << "\"><th scope=\"row\">" << E(p.name) << "</th><td class=\"result\">"
      << PreflightStatus(p) << "</td><td>" << E(p.reason) << "</td><td>" << (p.hint.empty() ? "–" : E(p.hint))
      << "</td></tr>\n";
  }
  o << "</tbody>\n</table>\n</section>\n";
}

void HostSection(std::ostringstream& o, const Verdict& v) {
  o << "<section id=\"host\">\n<h2>" << kHostTitle << "</h2>\n<table>\n<caption>The machine the figures come from</caption>\n"
    << HeadRow({"Fact", "Value"}) << "<tbody>\n";
  for (const PageFact& f : HostFactRows(v, HostDetail::kNotes)) o << FactRow(f);
  o << "</tbody>\n</table>\n</section>\n";
}

/// What rtagent had changed when the run started (its journal), each value before and after;
/// a long list folds away (a details element: no script).
void ChangesInForce(std::ostringstream& o, const Verdict& v) {
  o << "<h3>" << kTuningTitle << "</h3>\n<p>" << CodeSpans(E(TuningSentence(v))) << "</p>\n";
  if (!v.tuning || v.tuning->changes.empty()) return;
  const bool fold = v.tuning->changes.size() > 20;
  if (fold) o << "<details>\n<summary>The " << v.tuning->changes.size() << " changes listed</summary>\n";
  o << "<table>\n<caption>Changes in force</caption>\n" << HeadRow(TuningColumns()) << "<tbody>\n";
  for (const TuningChange& c : v.tuning->changes) {
    o << "<tr><td>" << E(c.section) << "</td><th scope=\"row\">" << E(c.what) << "</th><td><code>"
      << E(TuningValue(c.before)) << "</code></td><td><code>" << E(TuningValue(c.after)) << "</code></td></tr>\n";
  }
  o << "</tbody>\n</table>\n";
  if (fold) o << "</details>\n";
}

void TuningSection(std::ostringstream& o, const Verdict& v) {
  o << "<section id=\"tuning\">\n<h2>The tuning the run measured</h2>\n<table>\n<caption>Profile and run</caption>\n"
    << HeadRow({"Setting", "Value"}) << "<tbody>\n";
  o << FactRow("Profile", v.profile_name.empty() ? "–" : E(v.profile_name));
  if (!v.profile_digest.empty()) o << FactRow("Profile digest", "<code>" + E(v.profile_digest) + "</code>");
  std::string args;
  for (const std::string& a : v.host.boot_args_pending) args += (args.empty() ? "" : " ") + a;
  o << FactRow("Boot arguments not in effect yet",
               args.empty() ? "none recorded" : "<code>" + E(args) + "</code> (the run after the reboot is the one that counts)");
  o << FactRow("PM QoS note in force", E(PmQosText(v)));
  for (const PageFact& f : RunFactRows(v)) o << FactRow(f);
  for (const std::string& n : v.config.notes) o << FactRow("Note", E(n));
  o << "</tbody>\n</table>\n";

  if (!v.loads.empty()) {
    o << "<table>\n<caption>Loads that pushed against the run</caption>\n" << HeadRow(LoadColumns()) << "<tbody>\n";
    for (const LoadResult& l : v.loads) {
      o << "<tr class=\"" << (l.PlacementHeld() ? "pass" : "fail") << "\"><th scope=\"row\">" << E(l.name) << "</th><td>"
        << E(l.cpus_asked.ToList()) << "</td><td>" << E(l.cpus_ran.Empty() ? "–" : l.cpus_ran.ToList())
        << "</td><td class=\"result\">" << (l.PlacementHeld() ? "✓ held" : "✗ BROKEN") << "</td><td>" << E(LoadEnded(l))
        << "</td><td><code>" << E(l.log_path) << "</code></td></tr>\n";
    }
    o << "</tbody>\n</table>\n";
  }
  ChangesInForce(o, v);
  if (!v.interrupts.empty()) {
    o << "<table>\n<caption>" << kInterruptsTitle << "</caption>\n" << HeadRow({"Interrupt", "Count"}, 1) << "<tbody>\n";
    for (const InterruptDelta& d : v.interrupts) {
      o << "<tr><th scope=\"row\">" << E(d.name) << "</th><td class=\"num\">" << FormatCount(d.count) << "</td></tr>\n";
    }
    o << "</tbody>\n</table>\n";
  }
  o << "</section>\n";
}

}  // namespace

std::string RenderHtml(const Verdict& v) {
  const std::string word = v.pass ? "PASS" : "FAIL";
  const std::optional<std::string> vm = VmLabel(v);
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>" << E("rtagent verdict: " + word + " — " + v.profile_name) << "</title>\n"
    << "<style>" << kStyle << "</style>\n</head>\n<body>\n";

  // The verdict first, big, in words and marks.
  o << "<header>\n<h1>" << E("rtagent latency acceptance — " + v.profile_name) << "</h1>\n";
  o << "<p class=\"verdict " << (v.pass ? "pass" : "fail") << "\" id=\"verdict\">Verdict: " << (v.pass ? "✓ " : "✗ ")
    << word << "</p>\n";
  o << "<p class=\"reason\">" << E(Reason(v)) << "</p>\n";
  if (vm) o << "<p class=\"vm\" role=\"note\"><strong class=\"tag\">VIRTUAL MACHINE</strong> " << E(*vm) << "</p>\n";
  std::vector<const TrustWarning*> others;
  for (const TrustWarning& w : v.warnings) {
    if (!(vm && w.code == "virtual_machine")) others.push_back(&w);
  }
  if (!others.empty()) {
    o << "<div class=\"warnings\" role=\"note\">\n<p><strong>⚠ Read this first: these figures cannot be taken at face "
         "value.</strong></p>\n<ul>\n";
    for (const TrustWarning* w : others) o << "<li>" << E(w->text) << "</li>\n";
    o << "</ul>\n</div>\n";
  }
  o << "<p>" << E(RunSentence(v, [](const std::string& s) { return s; })) << "</p>\n</header>\n<main>\n";

  CriteriaSection(o, v);
  HistogramSection(o, v);
  PreflightSection(o, v);
  HostSection(o, v);
  TuningSection(o, v);
  o << "<section id=\"why-section\">\n";
  if (v.why) {
    o << RenderWhySectionHtml(*v.why);
  } else {
    o << "<h2 id=\"why\">Why the worst wake-up was late</h2>\n<p>Not recorded: <code>acceptance.explain</code> was off "
         "for this run (docs/explain.md).</p>\n";
  }
  o << "</section>\n</main>\n";

  o << "<footer>\n<p>" << E("Written by rtagent " + (v.tool_version.empty() ? std::string("(version unknown)") : v.tool_version))
    << (v.started_at.empty() ? "" : E(", run started " + v.started_at)) << ". The verdict's JSON (<code>--json</code>; "
       "<code>verdict.json</code> of a commission) holds every figure, with the whole histograms.</p>\n</footer>\n"
       "</body>\n</html>\n";
  return o.str();
}

}  // namespace rtagent
