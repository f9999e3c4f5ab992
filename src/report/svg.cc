#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/xml.h"
#include "report/format.h"
#include "report/log_axis.h"
#include "report/why_section.h"

namespace rtagent {
namespace {

// Layout: title lines, one line per trust warning, the plot, axis titles, one legend line
// per CPU. Only the plot's size is fixed; the picture grows with warnings and CPUs.
constexpr double kWidth = 900, kLeft = 80, kRight = 30, kPlotH = 300;
constexpr double kPlotW = kWidth - kLeft - kRight;
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"};

std::string N(double v) { return FormatFixed(v, 1); }

std::string Label(double decade) {
  return FormatCount(static_cast<uint64_t>(std::llround(decade)));
}

}  // namespace

std::string RenderSvg(const Verdict& v) {
  // The why's caption is one more line under the warnings.
  const double caption_lines = static_cast<double>(v.warnings.size()) + (v.why ? 1 : 0);
  const double top = 58 + caption_lines * 14 + 24;
  // Axes: latency from 0.5 µs (bin 0's left edge) to the decade above everything drawn;
  // counts from 0.5 (below a single wake-up) to the decade above the fullest bin.
  double top_us = 10;
  uint64_t top_count = 1;
  int64_t worst_ns = -1;
  int worst_cpu = -1;
  for (const CpuResult& c : v.cpus) {
    top_us = std::max(top_us, static_cast<double>(c.histogram.limit_us()));
    top_us = std::max(top_us, static_cast<double>(c.histogram.max_ns()) / 1000.0 + 1);
    for (uint64_t n : c.histogram.bins()) top_count = std::max(top_count, n);
    if (c.histogram.samples() > 0 && c.histogram.max_ns() > worst_ns) {
      worst_ns = c.histogram.max_ns();
      worst_cpu = c.cpu;
    }
  }
  std::optional<double> limit_us;
  for (const Criterion& k : v.criteria) {
    if (k.name == "max") limit_us = k.limit;
  }
  if (limit_us) top_us = std::max(top_us, *limit_us + 1);
  const LogAxis x{0.5, DecadeAbove(top_us), kLeft, kLeft + kPlotW};
  const LogAxis y{0.5, DecadeAbove(static_cast<double>(top_count) + 1), top + kPlotH, top};
  const double base = top + kPlotH;
  const double height = base + 58 + static_cast<double>(v.cpus.size()) * 16 + 8;

  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << N(height) << "\" viewBox=\"0 0 "
    << kWidth << " " << N(height) << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o << "  <title>" << XmlEscape("Wake-up latency: " + v.profile_name + " (" + (v.pass ? "PASS" : "FAIL") + ")")
    << "</title>\n";
  o << "  <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "  <text x=\"" << kLeft << "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">"
    << XmlEscape("Wake-up latency — " + v.profile_name + " — " + (v.pass ? "PASS" : "FAIL")) << "</text>\n";
  o << "  <text x=\"" << kLeft << "\" y=\"42\" fill=\"#444444\">"
    << XmlEscape((v.Knows("cpus") ? "CPUs " : "threads ") + v.config.cpus.ToList() +
                 (v.Knows("interval") ? ", every " + std::to_string(v.config.interval_us) + " µs" : ", interval unknown") +
                 (v.Knows("duration") ? " for " + FormatDuration(v.config.duration_actual_ns) : ", duration unknown") +
                 (v.Knows("kernel") ? ", " + v.host.kernel_release + (v.host.preempt_rt ? " PREEMPT_RT" : "") : ", kernel unknown"))
    << "</text>\n";
  double wy = 58;
  for (const TrustWarning& w : v.warnings) {
    o << "  <text x=\"" << kLeft << "\" y=\"" << N(wy) << "\" fill=\"#b00020\">" << XmlEscape("⚠ " + w.text)
      << "</text>\n";
    wy += 14;
  }
  if (v.why) {
    o << "  <text x=\"" << kLeft << "\" y=\"" << N(wy) << "\" fill=\"#333333\">" << XmlEscape(WhyCaption(*v.why))
      << "</text>\n";
  }

  // Grid and axes, one line per decade.
  o << "  <g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (double d = 1; d <= x.hi; d *= 10) {
    o << "    <line x1=\"" << N(x(d)) << "\" y1=\"" << N(top) << "\" x2=\"" << N(x(d)) << "\" y2=\"" << N(base) << "\"/>\n";
  }
  for (double d = 1; d <= y.hi; d *= 10) {
    o << "    <line x1=\"" << N(kLeft) << "\" y1=\"" << N(y(d)) << "\" x2=\"" << N(kLeft + kPlotW) << "\" y2=\"" << N(y(d))
      << "\"/>\n";
  }
  o << "  </g>\n";
  o << "  <g stroke=\"#000000\" stroke-width=\"1\">\n";
  o << "    <line x1=\"" << N(kLeft) << "\" y1=\"" << N(base) << "\" x2=\"" << N(kLeft + kPlotW) << "\" y2=\"" << N(base)
    << "\"/>\n";
  o << "    <line x1=\"" << N(kLeft) << "\" y1=\"" << N(top) << "\" x2=\"" << N(kLeft) << "\" y2=\"" << N(base) << "\"/>\n";
  o << "  </g>\n";
  o << "  <g fill=\"#000000\">\n";
  for (double d = 1; d <= x.hi; d *= 10) {
    o << "    <text x=\"" << N(x(d)) << "\" y=\"" << N(base + 16) << "\" text-anchor=\"middle\">" << Label(d)
      << "</text>\n";
  }
  for (double d = 1; d <= y.hi; d *= 10) {
    o << "    <text x=\"" << N(kLeft - 6) << "\" y=\"" << N(y(d) + 4) << "\" text-anchor=\"end\">" << Label(d)
      << "</text>\n";
  }
  o << "    <text x=\"" << N(kLeft + kPlotW / 2) << "\" y=\"" << N(base + 34)
    << "\" text-anchor=\"middle\">wake-up latency (µs, log scale)</text>\n";
  o << "    <text transform=\"translate(18 " << N(top + kPlotH / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">wake-ups per 1 µs bin (log scale)</text>\n";
  o << "  </g>\n";

  // One step outline per CPU: each non-empty bin [b, b+1) at its count, down to the
  // baseline between runs of non-empty bins.
  for (size_t i = 0; i < v.cpus.size(); ++i) {
    const CpuResult& c = v.cpus[i];
    const char* color = kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
    std::string d;
    const auto& bins = c.histogram.bins();
    bool open = false;
    for (size_t b = 0; b < bins.size(); ++b) {
      if (bins[b] == 0) {
        if (open) d += " V" + N(base);
        open = false;
        continue;
      }
      const double x0 = x(std::max(static_cast<double>(b), 0.5)), x1 = x(static_cast<double>(b) + 1);
      const double yc = y(static_cast<double>(bins[b]));
      if (!open) d += (d.empty() ? "M" : " M") + N(x0) + " " + N(base) + " V" + N(yc);
      else d += " V" + N(yc);
      d += " H" + N(x1);
      open = true;
    }
    if (open) d += " V" + N(base);
    o << "  <path d=\"" << d << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\"/>\n";
    // Overflows have no bin: each kept worst event is a dot at its latency, one wake-up high.
    for (const OverflowEvent& e : c.histogram.worst_overflows()) {
      o << "  <circle cx=\"" << N(x(static_cast<double>(e.latency_ns) / 1000.0)) << "\" cy=\"" << N(y(1))
        << "\" r=\"3\" fill=\"" << color << "\"/>\n";
    }
  }

  // Histogram limit (dotted), profile limit (dashed red), worst case (solid, labelled).
  if (!v.cpus.empty()) {
    const double hx = x(v.cpus.front().histogram.limit_us());
    o << "  <line x1=\"" << N(hx) << "\" y1=\"" << N(top) << "\" x2=\"" << N(hx) << "\" y2=\"" << N(base)
      << "\" stroke=\"#888888\" stroke-dasharray=\"2 3\"/>\n";
    o << "  <text x=\"" << N(hx - 4) << "\" y=\"" << N(top + 12) << "\" text-anchor=\"end\" fill=\"#666666\">"
      << "histogram limit " << v.cpus.front().histogram.limit_us() << " µs</text>\n";
  }
  if (limit_us) {
    const double lx = x(*limit_us);
    o << "  <line x1=\"" << N(lx) << "\" y1=\"" << N(top) << "\" x2=\"" << N(lx) << "\" y2=\"" << N(base)
      << "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
    o << "  <text x=\"" << N(lx + 4) << "\" y=\"" << N(top + 28) << "\" fill=\"#d62728\">limit "
      << FormatFixed(*limit_us, 0) << " µs</text>\n";
  }
  if (worst_ns >= 0) {
    const double wx = x(static_cast<double>(worst_ns) / 1000.0);
    o << "  <line x1=\"" << N(wx) << "\" y1=\"" << N(top) << "\" x2=\"" << N(wx) << "\" y2=\"" << N(base)
      << "\" stroke=\"#000000\" stroke-width=\"2\"/>\n";
    // Near the right edge the label goes left of its line.
    const bool right_edge = wx > kLeft + kPlotW * 0.8;
    o << "  <text x=\"" << N(right_edge ? wx - 4 : wx + 4) << "\" y=\"" << N(top + 44) << "\""
      << (right_edge ? " text-anchor=\"end\"" : "") << " font-weight=\"bold\">worst "
      << FormatNsAsUs(worst_ns) << " µs (CPU " << worst_cpu << ")</text>\n";
  }

  // Legend under the axis title, one line per CPU.
  for (size_t i = 0; i < v.cpus.size(); ++i) {
    const CpuResult& c = v.cpus[i];
    const char* color = kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
    const double lx = kLeft, ly = base + 58 + static_cast<double>(i) * 16;
    o << "  <rect x=\"" << N(lx) << "\" y=\"" << N(ly - 9) << "\" width=\"12\" height=\"10\" fill=\"" << color << "\"/>\n";
    o << "  <text x=\"" << N(lx + 16) << "\" y=\"" << N(ly) << "\">"
      << XmlEscape("CPU " + std::to_string(c.cpu) + ": max " +
                   (c.stats.max_ns ? FormatNsAsUs(*c.stats.max_ns) + " µs" : std::string("–")) + ", " +
                   CountOf(c.stats.samples, "wake-up", "wake-ups") + ", " +
                   (v.Knows("overflows") ? CountOf(c.stats.overflows, "overflow", "overflows") : std::string("overflows unknown")))
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace rtagent
