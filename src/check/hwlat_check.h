// hwlat: the kernel's hardware latency tracer (hwlat_check.cc). Its settings are the profile's
// checks.hwlat block, declared with the check.
#pragma once

#include <string>

#include "check/check.h"

namespace rtagent::check {

/// checks.hwlat in the profile (docs/profile.md).
struct HwlatSettings {
  profile::Marked<bool> enabled;
  profile::Marked<Duration> width;     ///< hwlat_detector/width: spinning per window; default 500ms
  profile::Marked<Duration> window;    ///< hwlat_detector/window; default 1s
  profile::Marked<Duration> duration;  ///< how long the tracer runs; default 30s
  profile::Marked<int> threshold_us;   ///< tracing_thresh; default 10
  /// hwlat_detector/mode: none | round-robin | per-cpu; default round-robin (the kernel's).
  /// IsSet() tells a mode the profile asked for (a kernel without it is a SKIP) from the default.
  profile::Marked<std::string> mode;
};

/// The checks.hwlat block of a loaded profile.
const HwlatSettings& HwlatSettingsOf(const profile::Profile& p);

}  // namespace rtagent::check
