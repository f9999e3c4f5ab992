// The "why" of a late wake-up (trace/attribution.h) for people and programs: the table
// `rtagent explain` prints and the "why" object of its JSON. docs/explain.md explains each row.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "trace/attribution.h"

namespace rtagent {

/// The wake-up in one line, then one row per cause (µs, share, what it is), then the notes.
std::string RenderWhyText(const Attribution& a);

/// The attribution as JSON: wakeup {cpu, latency_us, source, pid, comm, irq_latency_us},
/// causes [{kind, name, us, share_percent, irq, pid, comm, policy, priority, detail}], notes, events.
nlohmann::json WhyJson(const Attribution& a);

}  // namespace rtagent
