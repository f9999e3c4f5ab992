#include "report/why.h"

#include "base/json_reason.h"
#include "base/text_table.h"
#include "report/format.h"
#include "report/json_get.h"

namespace rtagent {

std::string CauseLabel(const Cause& c) {
  if (c.policy.empty()) return c.name;
  return c.name + " " + c.policy + (c.priority ? " " + std::to_string(*c.priority) : "");
}

std::string RenderWhyText(const Attribution& a) {
  const LateWakeup& w = a.wakeup;
  const int64_t total = w.latency_ns;
  std::string out = "Why the wake-up on CPU " + std::to_string(w.cpu) + " was " + FormatNsAsUs(total) +
                    " µs late (" + w.source + ", " + w.comm + ":" + std::to_string(w.pid) + "):\n";
  TextTable t({">µs", ">share", "cause", "what it is"});
  for (const Cause& c : a.causes) {
    t.Row({FormatNsAsUs(c.ns), FormatFixed(c.Share(total), 1) + "%", CauseLabel(c), c.detail});
  }
  out += t.Render(2);
  out += "  events: " + a.events + "\n";
  for (const std::string& n : a.notes) out += "  note: " + n + "\n";
  return out;
}

namespace {

using json = nlohmann::ordered_json;

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <typename T>
std::optional<T> OptionalAt(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return JsonGet<T>(j.at(key));
}

// A time written as µs (the readable key) and, since verdicts carry it, as exact ns.
int64_t NsAt(const json& j, const char* ns_key, const char* us_key) {
  if (j.contains(ns_key)) return JsonGet<int64_t>(j.at(ns_key));
  return JsonUsToNs(j.at(us_key));
}

}  // namespace

json WhyJson(const Attribution& a) {
  const LateWakeup& w = a.wakeup;
  json wake;
  wake["cpu"] = w.cpu;
  wake["latency_us"] = static_cast<double>(w.latency_ns) / 1000.0;
  wake["latency_ns"] = w.latency_ns;
  wake["source"] = w.source;
  wake["pid"] = w.pid;
  wake["comm"] = w.comm;
  wake["irq_latency_us"] = w.irq_latency_ns ? json(static_cast<double>(*w.irq_latency_ns) / 1000.0) : json();
  json causes = json::array();
  for (const Cause& c : a.causes) {
    json j;
    j["kind"] = c.kind;
    j["name"] = c.name;
    j["us"] = static_cast<double>(c.ns) / 1000.0;
    j["ns"] = c.ns;
    j["share_percent"] = std::stod(FormatFixed(c.Share(w.latency_ns), 1));
    j["irq"] = OrNull(c.irq);
    j["pid"] = OrNull(c.pid);
    j["comm"] = c.comm;
    j["policy"] = c.policy;
    j["priority"] = OrNull(c.priority);
    j["detail"] = c.detail;
    causes.push_back(std::move(j));
  }
  json out;
  out["wakeup"] = wake;
  out["causes"] = causes;
  out["notes"] = a.notes;
  out["events"] = a.events;
  return out;
}

Result<Attribution> ParseWhyJson(const json& j) {
  try {
    Attribution a;
    const json& w = j.at("wakeup");
    a.wakeup.cpu = JsonGet<int>(w.at("cpu"));
    a.wakeup.latency_ns = NsAt(w, "latency_ns", "latency_us");
    a.wakeup.source = w.value("source", "");
    a.wakeup.pid = w.value("pid", -1);
    a.wakeup.comm = w.value("comm", "");
    if (auto irq_us = OptionalAt<double>(w, "irq_latency_us")) {
      a.wakeup.irq_latency_ns = JsonUsToNs(json(*irq_us));
    }
    for (const json& c : j.at("causes")) {
      Cause cause;
      cause.kind = c.at("kind").get<std::string>();
      cause.name = c.at("name").get<std::string>();
      cause.ns = NsAt(c, "ns", "us");
      cause.irq = OptionalAt<int>(c, "irq");
      cause.pid = OptionalAt<int>(c, "pid");
      cause.comm = c.value("comm", "");
      cause.policy = c.value("policy", "");
      cause.priority = OptionalAt<int>(c, "priority");
      cause.detail = c.value("detail", "");
      a.causes.push_back(std::move(cause));
    }
    a.notes = j.value("notes", std::vector<std::string>{});
    a.events = j.value("events", "");
    return a;
  } catch (const json::exception& e) {
    return InvalidInput("why: " + JsonReason(e));
  }
}

}  // namespace rtagent
