#include "report/why.h"

#include "base/text_table.h"
#include "report/format.h"

namespace rtagent {

std::string RenderWhyText(const Attribution& a) {
  const LateWakeup& w = a.wakeup;
  const int64_t total = w.latency_ns;
  std::string out = "Why the wake-up on CPU " + std::to_string(w.cpu) + " was " + FormatNsAsUs(total) +
                    " µs late (" + w.source + ", " + w.comm + ":" + std::to_string(w.pid) + "):\n";
  TextTable t({">µs", ">share", "cause", "what it is"});
  for (const Cause& c : a.causes) {
    std::string name = c.name;
    if (!c.policy.empty()) {
      name += " " + c.policy + (c.priority ? " " + std::to_string(*c.priority) : "");
    }
    t.Row({FormatNsAsUs(c.ns), FormatFixed(c.Share(total), 1) + "%", name, c.detail});
  }
  out += t.Render(2);
  out += "  events: " + a.events + "\n";
  for (const std::string& n : a.notes) out += "  note: " + n + "\n";
  return out;
}

nlohmann::json WhyJson(const Attribution& a) {
  const LateWakeup& w = a.wakeup;
  nlohmann::json wake = {{"cpu", w.cpu},   {"latency_us", static_cast<double>(w.latency_ns) / 1000.0},
                         {"source", w.source}, {"pid", w.pid},
                         {"comm", w.comm}};
  wake["irq_latency_us"] = w.irq_latency_ns ? nlohmann::json(static_cast<double>(*w.irq_latency_ns) / 1000.0) : nlohmann::json();
  nlohmann::json causes = nlohmann::json::array();
  for (const Cause& c : a.causes) {
    nlohmann::json j = {{"kind", c.kind},
                        {"name", c.name},
                        {"us", static_cast<double>(c.ns) / 1000.0},
                        {"share_percent", std::stod(FormatFixed(c.Share(w.latency_ns), 1))},
                        {"detail", c.detail}};
    j["irq"] = c.irq ? nlohmann::json(*c.irq) : nlohmann::json();
    j["pid"] = c.pid ? nlohmann::json(*c.pid) : nlohmann::json();
    j["comm"] = c.comm;
    j["policy"] = c.policy;
    j["priority"] = c.priority ? nlohmann::json(*c.priority) : nlohmann::json();
    causes.push_back(std::move(j));
  }
  return {{"wakeup", wake}, {"causes", causes}, {"notes", a.notes}, {"events", a.events}};
}

}  // namespace rtagent
