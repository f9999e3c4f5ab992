#include "bench/bench_svg.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/text_table.h"
#include "base/xml.h"
#include "report/format.h"
#include "report/log_axis.h"

namespace rtagent::bench {
namespace {

constexpr double kWidth = 1000, kLabelW = 380, kRight = 30, kRowH = 22, kBarH = 5;
constexpr double kPlotX = kLabelW + 10, kPlotW = kWidth - kPlotX - kRight;

std::string N(double v) { return FormatFixed(v, 1); }

const char* PhaseColor(Phase p) {
  switch (p) {
    case Phase::kIdle: return "#1f77b4";
    case Phase::kLower: return "#ff7f0e";
    case Phase::kEqual: return "#d62728";
  }
  return "#000000";
}

std::string DecadeLabel(double ns) {
  static const char* const units[] = {" ns", " µs", " ms", " s"};
  int u = 0;
  while (ns >= 1000 && u < 3) {
    ns /= 1000;
    ++u;
  }
  return FormatFixed(ns, 0) + units[u];
}

}  // namespace

std::string RenderBenchSvg(const BenchRun& run) {
  // Rows: a heading per group, then its tests in the order they first appear.
  struct Row {
    std::string label;
    std::string id;  // "" for a heading
  };
  std::vector<Row> rows;
  double lo = 1e18, hi = 1;
  for (Group g : AllGroups()) {
    bool heading = false;
    for (const TestResult& r : run.results) {
      if (r.group != g) continue;
      if (r.summary.count > 0) {
        lo = std::min(lo, static_cast<double>(std::max<int64_t>(r.summary.p50_ns, 1)));
        hi = std::max(hi, static_cast<double>(r.summary.max_ns));
      }
      if (std::any_of(rows.begin(), rows.end(), [&](const Row& x) { return x.id == r.id; })) continue;
      if (!heading) rows.push_back({GroupTitle(g), ""});
      heading = true;
      rows.push_back({r.payload > 0 ? r.title + ", " + PayloadText(r.payload) : r.title, r.id});
    }
  }
  if (lo > hi) lo = 1;
  const double axis_lo = std::max(1.0, std::pow(10.0, std::floor(std::log10(lo))));
  const LogAxis x{axis_lo, std::max(DecadeAbove(hi), axis_lo * 10), kPlotX, kPlotX + kPlotW};

  std::vector<std::string> warnings;
  if (run.host.virtual_machine) warnings.push_back("virtual machine: virtual-machine figures, not the board's");
  if (run.health.coarse) warnings.push_back("COARSE CLOCK: the timer figures come from the clock's granularity");
  if (!run.realtime) warnings.push_back("not real-time: measured at " + run.policy);
  if (run.interrupted) warnings.push_back("interrupted: some tests or phases are missing");

  const double top = 60 + static_cast<double>(warnings.size()) * 14 + 30;
  const double plot_h = static_cast<double>(rows.size()) * kRowH;
  const double base = top + plot_h;
  const double height = base + 50;

  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << N(height) << "\" viewBox=\"0 0 "
    << kWidth << " " << N(height) << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  const std::string title = "rtagent bench — " + (run.host.hostname.empty() ? std::string("this machine") : run.host.hostname) +
                            ": Linux " + run.host.kernel_release + (run.host.preempt_rt ? " PREEMPT_RT" : "");
  o << "  <title>" << XmlEscape(title) << "</title>\n";
  o << "  <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "  <text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">" << XmlEscape(title) << "</text>\n";
  o << "  <text x=\"10\" y=\"40\" fill=\"#444444\">"
    << XmlEscape("CPU " + std::to_string(run.cpu) + ", " + run.policy +
                 (run.priority > 0 ? " " + std::to_string(run.priority) : "") +
                 "; per phase a bar to the p50, a line to the p99, a tick at the max; time on a log scale")
    << "</text>\n";
  double wy = 56;
  for (const std::string& w : warnings) {
    o << "  <text x=\"10\" y=\"" << N(wy) << "\" fill=\"#b00020\">" << XmlEscape("⚠ " + w) << "</text>\n";
    wy += 14;
  }
  // Legend: one swatch per phase that ran.
  double lx = kPlotX;
  for (const PhaseLoad& l : run.phases) {
    o << "  <rect x=\"" << N(lx) << "\" y=\"" << N(top - 20) << "\" width=\"12\" height=\"8\" fill=\""
      << PhaseColor(l.phase) << "\"/>\n";
    const std::string text = PhaseName(l.phase) + (l.policy.empty() ? "" : " (" + l.Describe() + ")");
    o << "  <text x=\"" << N(lx + 16) << "\" y=\"" << N(top - 12) << "\">" << XmlEscape(text) << "</text>\n";
    lx += 40 + 6.0 * static_cast<double>(text.size());
  }

  o << "  <g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double d = x.lo; d <= x.hi * 1.0001; d *= 10) {
    o << "    <line x1=\"" << N(x(d)) << "\" y1=\"" << N(top) << "\" x2=\"" << N(x(d)) << "\" y2=\"" << N(base) << "\"/>\n";
  }
  o << "  </g>\n";
  o << "  <line x1=\"" << N(kPlotX) << "\" y1=\"" << N(base) << "\" x2=\"" << N(kPlotX + kPlotW) << "\" y2=\"" << N(base)
    << "\" stroke=\"#000000\"/>\n";
  for (double d = x.lo; d <= x.hi * 1.0001; d *= 10) {
    o << "  <text x=\"" << N(x(d)) << "\" y=\"" << N(base + 14) << "\" text-anchor=\"middle\">" << DecadeLabel(d)
      << "</text>\n";
  }
  o << "  <text x=\"" << N(kPlotX + kPlotW / 2) << "\" y=\"" << N(base + 32)
    << "\" text-anchor=\"middle\">time per sample (log scale)</text>\n";

  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = top + static_cast<double>(i) * kRowH;
    const Row& row = rows[i];
    if (row.id.empty()) {
      o << "  <text x=\"10\" y=\"" << N(y + 15) << "\" font-weight=\"bold\">" << XmlEscape(row.label) << "</text>\n";
      continue;
    }
    o << "  <text x=\"20\" y=\"" << N(y + 14) << "\">" << XmlEscape(ShortValue(row.label, 60)) << "</text>\n";
    double by = y + 3;
    for (const PhaseLoad& l : run.phases) {
      const TestResult* r = run.Find(row.id, l.phase);
      if (r != nullptr && r->summary.count > 0) {
        const char* color = PhaseColor(l.phase);
        const double p50 = x(static_cast<double>(std::max<int64_t>(r->summary.p50_ns, 1)));
        const double p99 = x(static_cast<double>(std::max<int64_t>(r->summary.p99_ns, 1)));
        const double mx = x(static_cast<double>(std::max<int64_t>(r->summary.max_ns, 1)));
        o << "  <rect x=\"" << N(kPlotX) << "\" y=\"" << N(by) << "\" width=\"" << N(std::max(p50 - kPlotX, 1.0))
          << "\" height=\"" << kBarH << "\" fill=\"" << color << "\"/>\n";
        o << "  <line x1=\"" << N(p50) << "\" y1=\"" << N(by + kBarH / 2) << "\" x2=\"" << N(p99) << "\" y2=\""
          << N(by + kBarH / 2) << "\" stroke=\"" << color << "\"/>\n";
        o << "  <line x1=\"" << N(mx) << "\" y1=\"" << N(by) << "\" x2=\"" << N(mx) << "\" y2=\"" << N(by + kBarH)
          << "\" stroke=\"" << color << "\" stroke-width=\"1.5\"/>\n";
      }
      by += kBarH + 1;
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace rtagent::bench
