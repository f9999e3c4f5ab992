// cyclictest's --json=FILE output (rt-tests 2.x, src/lib/rt-utils.c rt_write_json and
// cyclictest's write_stats) read as an imported run.
#pragma once

#include <string_view>

#include "base/result.h"
#include "report/import.h"

namespace rtagent {

/// Reads a cyclictest --json file: "sysinfo" (nodename, release, version, realtime), the
/// command line (rt-tests spells its key "cmdline:"; its -i/--interval, -p/--priority,
/// --policy and -m/--mlockall as given), "start_time"/"end_time" (whole seconds: the duration
/// to a second), and per "thread": "cpu",
/// "cycles", "min", "avg", "max" and, with -h, "histogram" (bucket in µs -> count). The
/// wake-ups missing from the histogram (cycles minus its sum) are its overflows; the file has
/// no sample numbers for them. Without a histogram the run cannot be read (its
/// percentiles are unknown): the error says to run with -h. Errors name the key.
Result<ImportedRun> ParseCyclictestJson(std::string_view text);

}  // namespace rtagent
