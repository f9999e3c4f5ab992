// The "why" of a late wake-up (trace/attribution.h) for people and programs: the table
// `rtagent explain` prints and the "why" object of its JSON. docs/explain.md explains each row.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/result.h"
#include "trace/attribution.h"

namespace rtagent {

/// A cause as a reader names it: "noise-spin:412 RT 98", "IRQ 4 (ttyS0)".
std::string CauseLabel(const Cause& c);

/// The wake-up in one line, then one row per cause (µs, share, what it is), then the notes.
std::string RenderWhyText(const Attribution& a);

/// The attribution as JSON: wakeup {cpu, latency_us, latency_ns, source, pid, comm,
/// irq_latency_us}, causes [{kind, name, us, ns, share_percent, irq, pid, comm, policy,
/// priority, detail}], notes, events. Keys in this order (docs/explain.md).
nlohmann::ordered_json WhyJson(const Attribution& a);

/// An attribution read back from WhyJson's form (a verdict's why, an explain --json file).
/// Errors name the missing or mistyped key.
Result<Attribution> ParseWhyJson(const nlohmann::ordered_json& j);

}  // namespace rtagent
