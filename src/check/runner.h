// Runs a suite of checks and renders the answers: a table for a person, JSON for a program,
// JUnit for CI. `rtagent verify`, `commission`, `accept` (its pre-flight) and `hold` all run
// checks through here.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "check/check.h"
#include "profile/model.h"

namespace rtagent::check {

/// A built-in suite by name (profile/builtin_suites.h), or a suite file by path (anything with a '/' or ending in .yaml).
/// The error names the file, line and key, or lists the valid names.
Result<Suite> LoadSuite(const std::string& name_or_path);
/// Parses a suite's YAML text (checks/README.md); `file` names it in errors, which are
/// "file:line:column: error: ..." lines with hints, every problem at once.
Result<Suite> ParseSuite(const std::string& text, const std::string& file);

struct RunOptions {
  /// Waits for a window; default: sleeps, returning false early when *stop is set.
  std::function<bool(Duration)> wait;
  const std::atomic<bool>* stop = nullptr;
  /// Called after each check finishes (progress on a terminal); may be empty.
  std::function<void(const std::string& check, const std::vector<CheckResult>&)> on_check;
};

struct SuiteReport {
  std::string suite;
  std::string suite_source;  ///< where the suite came from: "checks/ci.yaml (built-in)" or a path
  std::string profile;  ///< the profile's path
  std::string root;     ///< the system root checked
  /// Which machine answered, from the root (proc/sys/kernel/hostname and osrelease): a verify
  /// result fetched from a fleet says where it came from. Absent when the root lacks the file
  /// (a fixture tree without it), never this machine's name in its place.
  std::optional<std::string> hostname;
  std::optional<std::string> kernel_release;
  std::vector<CheckResult> results;  ///< in run order
  bool interrupted = false;          ///< Ctrl-C stopped it; the checks not run are absent

  /// The worst status of any result (SKIP when there is none).
  Status Overall() const;
  int Count(Status s) const;
};

/// The checks of `suite` the profile leaves on that declare they need root on a live system
/// and cannot run without it (CheckInfo::needs_root: hwlat drives the tracer; not those that
/// skip without root, as pi does). Empty when the suite runs as any user.
std::vector<std::string> NeedsRoot(const Suite& suite, const profile::Profile& profile);

/// Runs every check of `suite`; a check the profile turns off answers SKIP with that reason.
SuiteReport RunSuite(const profile::Profile& profile, SysRoot& root, const Suite& suite,
                     const RunOptions& options = {});

}  // namespace rtagent::check
