// rteval's summary.xml read as an imported run. rteval (the kernel.org utils/rteval project)
// runs loads and cyclictest (or rtla timerlat) and writes one XML report per run; the layout
// comes from its writers (rtevalReport.py, sysinfo/osinfo.py, modules/__init__.py and
// modules/measurement/cyclictest.py) and the stylesheet that reads it (rteval_text.xsl).
// docs/latency.md lists the elements read and the versions that changed them.
#pragma once

#include <string_view>

#include "base/result.h"
#include "report/import.h"

namespace rtagent {

/// Reads an rteval summary.xml: the root <rteval version=...>; the host from
/// SystemInfo/uname (rteval 2.x and later) or uname (1.x): node, kernel (uname -r) and its
/// is_RT attribute; the clocksource as a note; the cyclictest section at Measurements/cyclictest
/// (2.x and later, its command line an attribute) or cyclictest (1.x, a child element): per CPU
/// <core id= priority=> its statistics (samples, minimum, maximum, mean in µs) and histogram
/// (<bucket index= value=>, 1 µs buckets of cyclictest -h); the duration from the section's
/// timestamps (runloop_start, runloop_stop) or run_info's days/hours/minutes/seconds; a
/// breaktrace abort_report as a note. rteval does not count the wake-ups past its histogram:
/// the overflows are unknown (a maximum past the histogram proves there was at least one).
/// A timerlat section is refused (rteval adds rtla's IRQ, thread and user columns into one
/// histogram). Errors name the line and the element, with a hint.
Result<ImportedRun> ParseRtevalSummary(std::string_view text);

}  // namespace rtagent
