// Time stamps as text: one ISO 8601 (UTC) formatter for verdicts, state files and captures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtagent {

/// The current time in whole seconds since the epoch (time(2)).
int64_t UnixNow();

/// `unix_seconds` as ISO 8601 extended UTC: "2026-11-30T03:40:00Z".
std::string IsoTime(int64_t unix_seconds);

/// `unix_seconds` as ISO 8601 basic UTC, fit for a file name: "20261130T034000Z".
std::string IsoTimeBasic(int64_t unix_seconds);

/// The unix time of an ISO 8601 extended UTC stamp as IsoTime writes it ("2026-11-30T03:40:00Z");
/// nullopt for anything else (another zone, a missing part, trailing text).
std::optional<int64_t> ParseIsoTime(std::string_view text);

}  // namespace rtagent
