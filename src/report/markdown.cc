#include "report/markdown.h"

#include <sstream>

#include "report/format.h"
#include "report/verdict_page.h"
#include "report/why_section.h"

namespace rtagent {
namespace {

/// A table's heading and rule: "| A | B |\n|---|---|\n" (`rule` is each column's "---" or "---:").
std::string TableHead(const std::vector<std::string>& columns, const std::string& rule) {
  std::string head = "|", line = "|";
  for (const std::string& c : columns) {
    head += " " + c + " |";
    line += rule + "|";
  }
  return head + "\n" + line + "\n";
}

/// A fact table's row: the value escaped, its code part in backticks, its alert in bold.
std::string FactRow(const PageFact& f) {
  std::string value = MarkdownCell(f.text);
  if (f.code) value += " `" + MarkdownCell(*f.code) + "`";
  if (!f.alert.empty()) value += ", **" + f.alert + "**";
  return "| " + f.label + " | " + value + " |\n";
}

void CriteriaSection(std::ostringstream& o, const Verdict& v) {
  if (v.criteria.empty()) return;
  o << "## " << kCriteriaTitle << "\n\n" << TableHead(CriteriaColumns(), "---");
  for (const Criterion& k : v.criteria) {
    o << "| " << k.Role() << " | " << MarkdownCell(k.name) << " | " << k.LimitText() << " | "
      << MarkdownCell(k.measured_text) << " | " << (k.pass ? "pass" : "**FAIL**") << " | " << MarkdownCell(k.evidence)
      << " |\n";
  }
  o << "\n";
}

void LatencySection(std::ostringstream& o, const Verdict& v) {
  o << "## " << kLatencyTitle << "\n\n" << TableHead(LatencyColumns(), "---:");
  for (const CpuResult& c : v.cpus) {
    for (const std::string& cell : LatencyCells(v, c, "beyond limit")) o << "| " << cell << " ";
    o << "|\n";
  }
  o << "\n" << kPercentileNote << "\n\n";
}

void OverflowSection(std::ostringstream& o, const Verdict& v) {
  bool any_overflow = false;
  for (const CpuResult& c : v.cpus) any_overflow = any_overflow || c.stats.overflows > 0;
  if (!any_overflow) return;
  o << "## Overflows (wake-ups past the histogram's last bin)\n\n";
  for (const CpuResult& c : v.cpus) {
    if (c.stats.overflows == 0) continue;
    const auto& first = c.histogram.first_overflows();
    o << "- CPU " << c.cpu << ": " << FormatCount(c.stats.overflows) << " at or past " << c.histogram.limit_us()
      << " µs, the latest " << FormatNsAsUs(c.histogram.overflow_max_ns()) << " µs.";
    if (!c.histogram.worst_overflows().empty()) o << " Worst:";
    for (const OverflowEvent& e : c.histogram.worst_overflows()) {
      o << " " << FormatNsAsUs(e.latency_ns) << " µs at sample " << FormatCount(e.sample_index) << " ("
        << FormatDuration(e.since_start_ns) << ");";
    }
    if (first.empty()) {
      // rtla and cyclictest --json count overflows without saying when they happened.
      o << " At which samples: unknown.\n";
    } else {
      o << " first at sample";
      for (size_t i = 0; i < first.size(); ++i) o << (i ? ", " : " ") << FormatCount(first[i].sample_index);
      if (first.size() < c.stats.overflows) o << " and " << FormatCount(c.stats.overflows - first.size()) << " more";
      o << ".\n";
    }
  }
  o << "\n";
}

void RunSection(std::ostringstream& o, const Verdict& v) {
  o << "## Run\n\n" << TableHead({"Setting", "Value"}, "---");
  for (const PageFact& f : RunFactRows(v)) o << FactRow(f);
  o << FactRow(PlainFact("PM QoS note in force", PmQosText(v)));
  for (const std::string& n : v.config.notes) o << FactRow(PlainFact("Note", n));
  if (!v.profile_digest.empty()) o << "| Profile digest | `" << v.profile_digest << "` |\n";
  o << "\n";
}

void HostSection(std::ostringstream& o, const Verdict& v) {
  o << "## " << kHostTitle << "\n\n" << TableHead({"Fact", "Value"}, "---");
  for (const PageFact& f : HostFactRows(v, HostDetail::kSummary)) o << FactRow(f);
  o << "\n";
}

void LoadsSection(std::ostringstream& o, const Verdict& v) {
  if (v.loads.empty()) return;
  o << "## Loads\n\n" << TableHead(LoadColumns(), "---");
  for (const LoadResult& l : v.loads) {
    o << "| " << MarkdownCell(l.name) << " | " << l.cpus_asked.ToList() << " | "
      << (l.cpus_ran.Empty() ? "–" : l.cpus_ran.ToList()) << " | " << (l.PlacementHeld() ? "held" : "**broken**")
      << " | " << LoadEnded(l) << " | " << MarkdownCell(l.log_path) << " |\n";
  }
  o << "\n";
}

void InterruptsSection(std::ostringstream& o, const Verdict& v) {
  if (v.interrupts.empty()) return;
  o << "## " << kInterruptsTitle << "\n\n| Interrupt | Count |\n|---|---:|\n";
  for (const InterruptDelta& d : v.interrupts) o << "| " << MarkdownCell(d.name) << " | " << FormatCount(d.count) << " |\n";
  o << "\n";
}

void TuningSection(std::ostringstream& o, const Verdict& v) {
  if (!v.tuning) return;  // an import, or a verdict from before it was recorded
  o << "## " << kTuningTitle << "\n\n" << TuningSentence(v) << "\n\n";
  if (v.tuning->changes.empty()) return;
  o << TableHead(TuningColumns(), "---");
  for (const TuningChange& c : v.tuning->changes) {
    o << "| " << MarkdownCell(c.section) << " | " << MarkdownCell(c.what) << " | `" << MarkdownCell(TuningValue(c.before))
      << "` | `" << MarkdownCell(TuningValue(c.after)) << "` |\n";
  }
  o << "\n";
}

void PreflightSection(std::ostringstream& o, const Verdict& v) {
  if (v.preflight.empty()) return;
  o << "## " << kPreflightTitle << "\n\n";
  for (const PreflightCheck& p : v.preflight) {
    o << "- " << (p.passed ? "pass" : "**FAIL**") << " " << p.name << (p.reason.empty() ? "" : ": " + p.reason) << "\n";
  }
  o << "\n";
}

}  // namespace

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderMarkdown(const Verdict& v) {
  std::ostringstream o;
  const char* result = v.pass ? "PASS" : "FAIL";
  o << "# Latency acceptance: " << result << " — " << MarkdownCell(v.profile_name) << "\n\n";

  if (!v.warnings.empty()) {
    o << "> **Read this first: these figures cannot be taken at face value.**\n";
    for (const TrustWarning& w : v.warnings) o << "> - " << w.text << "\n";
    o << "\n";
  }

  const size_t failed = FailedCriteria(v).size();
  o << "**Result: " << result << "**";
  if (!v.criteria.empty()) o << " — " << CriteriaOutcome(failed, v.criteria.size());
  if (v.interrupted) o << "; the run was interrupted";
  o << ".\n\n";
  o << RunSentence(v, MarkdownCell) << "\n\n";

  CriteriaSection(o, v);
  if (v.why) o << RenderWhySectionMarkdown(*v.why);
  LatencySection(o, v);
  OverflowSection(o, v);
  RunSection(o, v);
  HostSection(o, v);
  TuningSection(o, v);
  LoadsSection(o, v);
  InterruptsSection(o, v);
  PreflightSection(o, v);
  return o.str();
}

}  // namespace rtagent
