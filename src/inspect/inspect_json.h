// inspect's JSON: the stable schema documented in docs/inspect.md ("schema": "rtagent.inspect/1").
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "inspect/system_state.h"

namespace rtagent {

/// The schema name and version every inspect document carries in its "schema" key. Adding
/// keys keeps the version; renaming or removing one, or changing a type, bumps it.
inline constexpr const char* kInspectSchema = "rtagent.inspect/1";

/// The state as JSON: "schema" plus one key per collected section, keys in display order. A pure function of the
/// state (no time, host name or root path), so two trees with the same files give the same
/// document.
nlohmann::ordered_json InspectJson(const SystemState& state);

/// Writes InspectJson(state).dump(2) and a newline to `out`, byte for byte, without holding
/// the document: each section is built and written in turn, and the long arrays (the IRQs,
/// the real-time threads, the CPUs' power states) an element at a time. `inspect --json`.
void WriteInspectJson(const SystemState& state, std::ostream& out);

}  // namespace rtagent
