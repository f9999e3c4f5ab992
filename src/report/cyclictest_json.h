// cyclictest's --json=FILE output (rt-tests 2.x, src/lib/rt-utils.c rt_write_json and
// cyclictest's write_stats) read as an imported run.
#pragma once

#include <string_view>

#include "base/result.h"
#include "report/import.h"

namespace rtagent {

/// Reads a cyclictest --json file: "sysinfo" (nodename, release, version, realtime), the
/// command line (rt-tests spells its key "cmdline:"; its -i/--interval, -p/--priority,
/// --policy, -m/--mlockall and -h/--histogram as given), "start_time"/"end_time" (whole
/// seconds: the duration to a second, unknown when both name the same second), and per
/// "thread": "cpu", "cycles", "min", "avg", "max" and "histogram" (bucket in µs -> count, the
/// buckets that counted something). The histogram's range is -h N from the command line (the
/// last bucket named when the line does not say). The wake-ups missing from the histogram
/// (cycles minus its sum) are its overflows; the file has no sample numbers for them.
/// Without a histogram (no -h: cyclictest still writes an empty one) the run cannot be read
/// (its percentiles are unknown): the error says to run with -h. Errors name the key.
Result<ImportedRun> ParseCyclictestJson(std::string_view text);

/// The settings a cyclictest command line gives a run, as the cyclictest --json and rteval
/// imports read it: -i/--interval, -p/--priority, --policy (SCHED_FIFO when a priority above 0
/// is given without one, cyclictest's default), -m/--mlockall (also among combined short
/// flags, rteval's -qmu), and -h/--histogram N, the histogram's size in µs, into
/// `histogram_us`. The error says which option is wrong ("-i often is not an interval in µs").
Result<void> ReadCyclictestCmdline(std::string_view cmdline, ImportedRun& run, std::optional<uint32_t>& histogram_us);

}  // namespace rtagent
