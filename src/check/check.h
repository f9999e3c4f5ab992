// A check answers one question about the running system: does the tuning hold, is the kernel
// the one the profile needs, is the clock honest. It reads (hwlat also drives the tracer and
// puts it back), never tunes, and answers PASS, WARN, FAIL or SKIP, always with the reason,
// the measured figure and the lesson's chapter the rule comes from (issue 4, docs/checks.md).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "inspect/system_state.h"
#include "profile/keys.h"
#include "profile/model.h"

namespace rtagent::check {

using Duration = std::chrono::nanoseconds;

enum class Status { kPass, kWarn, kFail, kSkip };
/// "PASS", "WARN", "FAIL", "SKIP".
std::string ToString(Status s);
/// The worse of two statuses: FAIL > WARN > PASS > SKIP.
Status Worse(Status a, Status b);

/// One answer of one check. A check may return several (one per rule, per CPU, per IRQ).
struct CheckResult {
  std::string check;     ///< the check that answered: "kernel", "interrupts", "lint", ...
  std::string id;        ///< stable id for JSON, JUnit and lint.ignore: "kernel.preempt_rt"
  Status status = Status::kSkip;
  std::string summary;   ///< one line: what was found and why that status
  std::string measured;  ///< the figure measured, as a reader should see it ("LOC 1000/s on CPU 2")
  std::string limit;     ///< what was expected ("0/s", "PREEMPT_RT required"); "" when none
  std::string chapter;   ///< where the rule comes from: "Chapter 3 (CPU isolation)"
  profile::SourceMark mark;  ///< the profile line behind it, when there is one
  std::string hint;      ///< what to do about it; "" on PASS
};

/// A suite: which checks run, in which order, and the windows it imposes (checks/*.yaml).
/// A window the suite does not set comes from the profile's checks section. A suite that
/// extends a built-in one runs its checks, with its windows unless it sets its own.
struct Suite {
  std::string name;         ///< "commission", "boot", "ci", or the file's `name`
  std::string description;
  std::string source;       ///< "checks/boot.yaml (built-in)" or the path read
  std::vector<std::string> checks;  ///< check names in run order
  std::map<std::string, Duration> windows;  ///< windows.<check>: for checks whose window a suite may set
  std::string extends;      ///< the built-in suite whose checks and windows it starts from; "" none
};

/// The window of time a check measures over, as its settings in the profile give it.
struct WindowSetting {
  /// The profile's value and where it was written (checks.interrupts.window).
  std::function<const profile::Marked<Duration>&(const profile::Profile&)> of;
  /// Set when a suite may set it (windows.<check>): the shortest it may be.
  std::optional<Duration> suite_min;
};

/// What a check declares about itself. The runner, the suite parser, the profile and the
/// reference read this instead of matching check names.
struct CheckInfo {
  std::string name;      ///< in suites and under checks.<name>: "hwlat"
  std::string title;     ///< one line for people
  std::string chapters;  ///< the lesson's chapters its rules cite, as docs/checks.md lists them ("2, 4")
  bool needs_root = false;   ///< it writes on a live system and needs root there (hwlat drives tracefs)
  /// With needs_root: without root it is a SKIP with the reason rather than a reason for
  /// verify to refuse the suite (pi: its experiment only needs SCHED_FIFO threads).
  bool skips_without_root = false;
  bool live_window = false;  ///< it measures over a window of the live system's time
  /// Its block under checks.<name> (the toggle and its own settings); nullptr when the profile
  /// cannot turn it off (conformance).
  const profile::CheckBlockBase* settings = nullptr;
  std::optional<WindowSetting> window = std::nullopt;
};

/// Everything a check may use.
struct CheckEnv {
  const profile::Profile& profile;
  SysRoot& root;                 ///< read-only for every check but hwlat, which restores what it writes
  const SystemState& state;      ///< collected once before the checks run
  const Suite& suite;
  /// Waits for `d` (an interrupt window, a hwlat run); false when interrupted (Ctrl-C).
  /// Tests pass one that returns at once, after changing the fixture tree.
  std::function<bool(Duration)> wait;
  /// Set by SIGINT/SIGTERM; long checks poll it.
  const std::atomic<bool>* stop = nullptr;
  /// True when time passes on the system under test while `wait` waits: the live system.
  /// RunSuite sets it from the root (SysRoot::IsLive); a test that changes its fixture tree
  /// inside `wait` sets it to stand for a live window. False under --root: a fixture tree
  /// never changes, so a window there measures nothing.
  bool live_time = false;

  /// The window `check` measures over: the suite's when it sets one, else the profile's.
  Duration Window(const CheckInfo& check) const;
  /// Why nothing timed can be measured here (a window of counts, this machine's clock), for a
  /// SKIP: the one rule every check that needs live time asks. nullopt when time is live.
  std::optional<std::string> NoLiveTime() const;
};

class Check {
 public:
  virtual ~Check() = default;
  /// What it declares about itself.
  virtual const CheckInfo& Info() const = 0;
  /// Its name in suites and in the profile's checks section: "kernel", "cmdline", ...
  const std::string& Name() const { return Info().name; }
  /// One line for people: "PREEMPT_RT, kernel version and the RT safety net".
  const std::string& Title() const { return Info().title; }
  /// True when the profile turns it off (checks.<name>: false, or checks.<name>.enabled: false).
  bool DisabledByProfile(const profile::Profile& p) const;
  /// Runs it. Never throws; a file it cannot read is a SKIP or WARN with the reason.
  virtual std::vector<CheckResult> Run(CheckEnv& env) const = 0;
};

/// Every check, in the order the profile's checks section lists their blocks (check.cc: one
/// row each).
std::vector<std::unique_ptr<Check>> AllChecks();
/// The check called `name`, or nullptr.
std::unique_ptr<Check> FindCheck(const std::string& name);

/// Completes the profile language with the sections the tuners declare and the checks'
/// blocks (profile/language.h). main, and the tests' main, call it once before any profile loads.
void DeclareProfileLanguage();

}  // namespace rtagent::check
