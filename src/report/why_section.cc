#include "report/why_section.h"

#include <nlohmann/json.hpp>

#include "base/json_reason.h"
#include "base/text_table.h"
#include "base/xml.h"
#include "report/format.h"
#include "report/json_get.h"
#include "report/markdown.h"
#include "report/why.h"

namespace rtagent {
namespace {

using json = nlohmann::ordered_json;

// The causes a one-line caption names: the largest, up to three.
constexpr size_t kCaptionCauses = 3;

std::string CoarseWhere(const WhySection& w) {
  std::string out = "CPU " + std::to_string(w.coarse_cpu);
  if (w.coarse_worst_ns) out += ", worst " + FormatNsAsUs(*w.coarse_worst_ns) + " µs";
  return out;
}

std::string TraceLine(const WhySection& w) {
  if (w.trace_path.empty()) return "";
  return "the raw trace (" + w.trace_format + "): " + w.trace_path;
}

}  // namespace

json WhySectionJson(const WhySection& w) {
  json out;
  out["status"] = w.status;
  out["reason"] = w.reason;
  out["threshold_us"] = w.threshold_us ? json(*w.threshold_us) : json(nullptr);
  out["crossed"] = w.crossed;
  out["trace"] = w.trace_path.empty() ? json(nullptr) : json{{"path", w.trace_path}, {"format", w.trace_format}};
  if (w.attribution) out["attribution"] = WhyJson(*w.attribution);
  if (w.status == "coarse") {
    json counts = json::array();
    for (const CoarseCount& c : w.coarse) counts.push_back(json{{"source", c.source}, {"name", c.name}, {"delta", c.delta}});
    json coarse;
    coarse["cpu"] = w.coarse_cpu;
    coarse["worst_us"] = w.coarse_worst_ns ? json(static_cast<double>(*w.coarse_worst_ns) / 1000.0) : json(nullptr);
    coarse["worst_ns"] = w.coarse_worst_ns ? json(*w.coarse_worst_ns) : json(nullptr);
    coarse["window"] = w.coarse_window;
    coarse["counts"] = counts;
    out["coarse"] = coarse;
  }
  return out;
}

Result<WhySection> ParseWhySectionJson(const json& j) {
  try {
    WhySection w;
    w.status = j.at("status").get<std::string>();
    if (w.status != "explained" && w.status != "coarse" && w.status != "skip") {
      return InvalidInput("why.status must be explained, coarse or skip, not \"" + w.status + "\"");
    }
    w.reason = j.value("reason", "");
    if (j.contains("threshold_us") && !j.at("threshold_us").is_null()) w.threshold_us = JsonGet<int64_t>(j.at("threshold_us"));
    w.crossed = j.value("crossed", false);
    if (j.contains("trace") && !j.at("trace").is_null()) {
      w.trace_path = j.at("trace").at("path").get<std::string>();
      w.trace_format = j.at("trace").value("format", "");
    }
    if (j.contains("attribution")) {
      auto a = ParseWhyJson(j.at("attribution"));
      if (!a) return a.error();
      w.attribution = std::move(*a);
    } else if (w.status == "explained") {
      return InvalidInput("why: status explained without an attribution");
    }
    if (w.status == "coarse") {
      const json& c = j.at("coarse");
      w.coarse_cpu = JsonGet<int>(c.at("cpu"));
      if (c.contains("worst_ns") && !c.at("worst_ns").is_null()) w.coarse_worst_ns = JsonGet<int64_t>(c.at("worst_ns"));
      w.coarse_window = c.value("window", "");
      for (const json& k : c.at("counts")) {
        w.coarse.push_back({k.at("source").get<std::string>(), k.at("name").get<std::string>(), JsonGet<uint64_t>(k.at("delta"))});
      }
    }
    return w;
  } catch (const json::exception& e) {
    return InvalidInput("why: " + JsonReason(e));
  }
}

std::string RenderWhySectionText(const WhySection& w) {
  std::string out;
  if (w.status == "explained" && w.attribution) {
    if (w.threshold_us && !w.crossed) {
      out += "No traced wake-up was later than " + std::to_string(*w.threshold_us) + " µs; the worst one:\n";
    }
    out += RenderWhyText(*w.attribution);
  } else if (w.status == "coarse") {
    out += "Why (coarse: counters, not a trace; " + w.reason + "):\n";
    out += "  on " + CoarseWhere(w) + ", during " + w.coarse_window + ":\n";
    TextTable t({">count", "what ran on the CPU"});
    for (const CoarseCount& c : w.coarse) t.Row({FormatCount(c.delta), c.name});
    out += w.coarse.empty() ? "  no interrupt or softirq counter moved\n" : t.Render(2);
  } else {
    out += "why: SKIP — " + w.reason + "\n";
  }
  if (!w.trace_path.empty()) out += "  " + TraceLine(w) + "\n";
  return out;
}

std::string RenderWhySectionMarkdown(const WhySection& w) {
  std::string o = "## Why the worst wake-up was late\n\n";
  if (w.status == "explained" && w.attribution) {
    const Attribution& a = *w.attribution;
    o += "The kernel's tracers (" + MarkdownCell(a.events) + ") on CPU " + std::to_string(a.wakeup.cpu) + ": the " +
         (w.crossed ? "first wake-up past " + std::to_string(w.threshold_us.value_or(0)) + " µs"
                    : std::string("worst traced wake-up")) +
         ", " + FormatNsAsUs(a.wakeup.latency_ns) + " µs (" + MarkdownCell(a.wakeup.source) + ", " +
         MarkdownCell(a.wakeup.comm) + ":" + std::to_string(a.wakeup.pid) + ").\n\n";
    o += "| µs | Share | Cause | What it is |\n|---:|---:|---|---|\n";
    for (const Cause& c : a.causes) {
      o += "| " + FormatNsAsUs(c.ns) + " | " + FormatFixed(c.Share(a.wakeup.latency_ns), 1) + "% | " +
           MarkdownCell(CauseLabel(c)) + " | " + MarkdownCell(c.detail) + " |\n";
    }
    o += "\n";
    for (const std::string& n : a.notes) o += "- Note: " + MarkdownCell(n) + "\n";
  } else if (w.status == "coarse") {
    o += "**Coarse**: counters, not a trace (" + MarkdownCell(w.reason) + "). On " + CoarseWhere(w) + ", during " +
         MarkdownCell(w.coarse_window) + ":\n\n";
    if (w.coarse.empty()) {
      o += "No interrupt or softirq counter moved.\n";
    } else {
      o += "| Count | What ran on the CPU |\n|---:|---|\n";
      for (const CoarseCount& c : w.coarse) o += "| " + FormatCount(c.delta) + " | " + MarkdownCell(c.name) + " |\n";
    }
  } else {
    o += "SKIP: " + MarkdownCell(w.reason) + "\n";
  }
  if (!w.trace_path.empty()) o += "\nThe raw trace (" + w.trace_format + "): `" + w.trace_path + "`\n";
  return o + "\n";
}

std::string RenderWhySectionHtml(const WhySection& w) {
  auto e = [](const std::string& s) { return XmlEscape(s); };
  std::string o = "<h2 id=\"why\">Why the worst wake-up was late</h2>\n";
  if (w.status == "explained" && w.attribution) {
    const Attribution& a = *w.attribution;
    o += "<p>The kernel's tracers (" + e(a.events) + ") on CPU " + std::to_string(a.wakeup.cpu) + ": the " +
         e(w.crossed ? "first wake-up past " + std::to_string(w.threshold_us.value_or(0)) + " µs"
                     : std::string("worst traced wake-up")) +
         ", <strong>" + FormatNsAsUs(a.wakeup.latency_ns) + " µs</strong> (" + e(a.wakeup.source) + ", " +
         e(a.wakeup.comm) + ":" + std::to_string(a.wakeup.pid) + ").</p>\n";
    o += "<table class=\"why\">\n<caption>Where the " + FormatNsAsUs(a.wakeup.latency_ns) +
         " µs went, largest first</caption>\n<thead><tr><th scope=\"col\" class=\"num\">µs</th>"
         "<th scope=\"col\" class=\"num\">Share</th><th scope=\"col\">Cause</th><th scope=\"col\">What it is</th>"
         "</tr></thead>\n<tbody>\n";
    for (const Cause& c : a.causes) {
      o += "<tr><td class=\"num\">" + FormatNsAsUs(c.ns) + "</td><td class=\"num\">" +
           FormatFixed(c.Share(a.wakeup.latency_ns), 1) + "%</td><th scope=\"row\">" + e(CauseLabel(c)) + "</th><td>" +
           e(c.detail) + "</td></tr>\n";
    }
    o += "</tbody>\n</table>\n";
    if (!a.notes.empty()) {
      o += "<ul>\n";
      for (const std::string& n : a.notes) o += "<li>Note: " + e(n) + "</li>\n";
      o += "</ul>\n";
    }
  } else if (w.status == "coarse") {
    o += "<p><strong>Coarse</strong>: counters, not a trace (" + e(w.reason) + "). On " + e(CoarseWhere(w)) +
         ", during " + e(w.coarse_window) + ":</p>\n";
    if (w.coarse.empty()) {
      o += "<p>No interrupt or softirq counter moved.</p>\n";
    } else {
      o += "<table class=\"why\">\n<thead><tr><th scope=\"col\" class=\"num\">Count</th>"
           "<th scope=\"col\">What ran on the CPU</th></tr></thead>\n<tbody>\n";
      for (const CoarseCount& c : w.coarse) {
        o += "<tr><td class=\"num\">" + FormatCount(c.delta) + "</td><td>" + e(c.name) + "</td></tr>\n";
      }
      o += "</tbody>\n</table>\n";
    }
  } else {
    o += "<p><strong>SKIP</strong>: " + e(w.reason) + "</p>\n";
  }
  if (!w.trace_path.empty()) {
    o += "<p>The raw trace (" + e(w.trace_format) + "): <code>" + e(w.trace_path) + "</code></p>\n";
  }
  return o;
}

std::string WhyCaption(const WhySection& w) {
  if (w.status == "explained" && w.attribution) {
    const Attribution& a = *w.attribution;
    std::string out = "why";
    for (size_t i = 0; i < a.causes.size() && i < kCaptionCauses; ++i) {
      out += (i ? ", " : ": ") + CauseLabel(a.causes[i]) + " " + FormatFixed(a.causes[i].Share(a.wakeup.latency_ns), 1) + "%";
    }
    return out + " (CPU " + std::to_string(a.wakeup.cpu) + ", " + FormatNsAsUs(a.wakeup.latency_ns) + " µs)";
  }
  if (w.status == "coarse") {
    std::string out = "why (coarse, counters on " + CoarseWhere(w) + ")";
    for (size_t i = 0; i < w.coarse.size() && i < kCaptionCauses; ++i) {
      out += (i ? ", " : ": ") + w.coarse[i].name + " ×" + FormatCount(w.coarse[i].delta);
    }
    return out;
  }
  return "why: SKIP (" + w.reason + ")";
}

}  // namespace rtagent
