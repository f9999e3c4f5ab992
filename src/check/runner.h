// Runs a suite of checks and renders the answers: a table for a person, JSON for a program,
// JUnit for CI. `rtagent verify`, `commission`, `accept` (its pre-flight) and `hold` all run
// checks through here.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "check/check.h"
#include "profile/model.h"

namespace rtagent::check {

/// The names of the built-in suites (checks/*.yaml compiled into the binary).
std::vector<std::string> BuiltinSuiteNames();
/// A built-in suite by name, or a suite file by path (anything with a '/' or ending in .yaml).
/// The error names the file, line and key, or lists the valid names.
Result<Suite> LoadSuite(const std::string& name_or_path);

struct RunOptions {
  /// Waits for a window; default: sleeps, returning false early when *stop is set.
  std::function<bool(Duration)> wait;
  const std::atomic<bool>* stop = nullptr;
  /// Called after each check finishes (progress on a terminal); may be empty.
  std::function<void(const std::string& check, const std::vector<CheckResult>&)> on_check;
};

struct SuiteReport {
  std::string suite;
  std::string profile;  ///< the profile's path
  std::string root;     ///< the system root checked
  std::vector<CheckResult> results;  ///< in run order
  bool interrupted = false;          ///< Ctrl-C stopped it; the checks not run are absent

  /// The worst status of any result (SKIP when there is none).
  Status Overall() const;
  int Count(Status s) const;
};

/// Runs every check of `suite` that the profile does not turn off.
SuiteReport RunSuite(const profile::Profile& profile, SysRoot& root, const Suite& suite,
                     const RunOptions& options = {});

}  // namespace rtagent::check
