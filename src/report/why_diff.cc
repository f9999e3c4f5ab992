#include "report/why_diff.h"

#include <cmath>
#include <map>

#include "base/text_table.h"
#include "report/diff.h"
#include "report/format.h"
#include "report/markdown.h"
#include "report/why.h"

namespace rtagent {
namespace {

using json = nlohmann::ordered_json;

// The match key: kind and name, the thread's PID left out ("noise-spin:412" -> "noise-spin").
std::string MatchKey(const Cause& c) {
  std::string name = c.pid && !c.comm.empty() ? c.comm : c.name;
  return c.kind + "\n" + name + "\n" + c.policy + (c.priority ? std::to_string(*c.priority) : "");
}

std::string Change(int64_t before_ns, int64_t after_ns, const DiffTolerance& tol) {
  const double delta_us = static_cast<double>(after_ns - before_ns) / 1000.0;
  const double percent = before_ns > 0 ? 100.0 * delta_us * 1000.0 / static_cast<double>(before_ns) : 100.0;
  if (std::fabs(delta_us) <= tol.abs_us || std::fabs(percent) <= tol.percent) return "same";
  return delta_us > 0 ? "grew" : "shrank";
}

std::string UsOr(const std::optional<int64_t>& ns) { return ns ? FormatNsAsUs(*ns) : "–"; }

}  // namespace

CauseDiff DiffCauses(const Attribution& before, const Attribution& after, const DiffTolerance& tol) {
  CauseDiff d;
  d.before_latency_ns = before.wakeup.latency_ns;
  d.after_latency_ns = after.wakeup.latency_ns;
  std::map<std::string, const Cause*> in_before;
  for (const Cause& c : before.causes) in_before.emplace(MatchKey(c), &c);
  std::map<std::string, bool> matched;
  for (const Cause& a : after.causes) {
    CauseChange ch;
    ch.kind = a.kind;
    ch.label = CauseLabel(a);
    ch.after_ns = a.ns;
    ch.after_share = a.Share(after.wakeup.latency_ns);
    auto b = in_before.find(MatchKey(a));
    if (b == in_before.end()) {
      ch.change = "appeared";
    } else {
      matched[b->first] = true;
      ch.before_ns = b->second->ns;
      ch.before_share = b->second->Share(before.wakeup.latency_ns);
      ch.change = Change(*ch.before_ns, a.ns, tol);
    }
    d.causes.push_back(std::move(ch));
  }
  for (const Cause& b : before.causes) {
    if (matched.count(MatchKey(b))) continue;
    CauseChange ch;
    ch.kind = b.kind;
    ch.label = CauseLabel(b);
    ch.before_ns = b.ns;
    ch.before_share = b.Share(before.wakeup.latency_ns);
    ch.change = "vanished";
    d.causes.push_back(std::move(ch));
  }
  return d;
}

std::string RenderCauseDiffText(const CauseDiff& d) {
  std::string out = "Why, before and after: the late wake-up was " + FormatNsAsUs(d.before_latency_ns) + " µs, then " +
                    FormatNsAsUs(d.after_latency_ns) + " µs\n";
  TextTable t({">µs before", ">µs after", "change", "cause"});
  for (const CauseChange& c : d.causes) t.Row({UsOr(c.before_ns), UsOr(c.after_ns), c.change, c.label});
  return out + t.Render(2);
}

std::string RenderCauseDiffMarkdown(const CauseDiff& d) {
  std::string o = "## Why: causes before and after\n\nThe explained wake-up: " + FormatNsAsUs(d.before_latency_ns) +
                  " µs before, " + FormatNsAsUs(d.after_latency_ns) + " µs after.\n\n";
  o += "| Cause | Before µs | Share | After µs | Share | Change |\n|---|---:|---:|---:|---:|---|\n";
  for (const CauseChange& c : d.causes) {
    o += "| " + MarkdownCell(c.label) + " | " + UsOr(c.before_ns) + " | " +
         (c.before_ns ? FormatFixed(c.before_share, 1) + "%" : "–") + " | " + UsOr(c.after_ns) + " | " +
         (c.after_ns ? FormatFixed(c.after_share, 1) + "%" : "–") + " | " +
         (c.change == "appeared" || c.change == "grew" ? "**" + c.change + "**" : c.change) + " |\n";
  }
  return o + "\n";
}

json CauseDiffJson(const CauseDiff& d) {
  auto us = [](const std::optional<int64_t>& ns) { return ns ? json(static_cast<double>(*ns) / 1000.0) : json(nullptr); };
  json causes = json::array();
  for (const CauseChange& c : d.causes) {
    json j;
    j["kind"] = c.kind;
    j["label"] = c.label;
    j["before_us"] = us(c.before_ns);
    j["after_us"] = us(c.after_ns);
    j["before_share_percent"] = c.before_ns ? json(std::stod(FormatFixed(c.before_share, 1))) : json(nullptr);
    j["after_share_percent"] = c.after_ns ? json(std::stod(FormatFixed(c.after_share, 1))) : json(nullptr);
    j["change"] = c.change;
    causes.push_back(std::move(j));
  }
  json out;
  out["before_latency_us"] = static_cast<double>(d.before_latency_ns) / 1000.0;
  out["after_latency_us"] = static_cast<double>(d.after_latency_ns) / 1000.0;
  out["causes"] = causes;
  return out;
}

}  // namespace rtagent
