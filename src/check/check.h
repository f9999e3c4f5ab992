// A check answers one question about the running system: does the tuning hold, is the kernel
// the one the profile needs, is the clock honest. It reads (hwlat also drives the tracer and
// puts it back), never tunes, and answers PASS, WARN, FAIL or SKIP, always with the reason,
// the measured figure and the lesson's chapter the rule comes from (issue 4, docs/checks.md).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "inspect/system_state.h"
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
/// A window the suite does not set comes from the profile's checks section.
struct Suite {
  std::string name;         ///< "commission", "boot", "ci", or the file's `name`
  std::string description;
  std::string source;       ///< "checks/boot.yaml (built-in)" or the path read
  std::vector<std::string> checks;  ///< check names in run order
  std::optional<Duration> interrupts_window;
  std::optional<Duration> hwlat_duration;
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

  /// The interrupt window: the suite's, else the profile's.
  Duration InterruptsWindow() const;
  /// The hwlat duration: the suite's, else the profile's.
  Duration HwlatDuration() const;
};

class Check {
 public:
  virtual ~Check() = default;
  /// Its name in suites and in the profile's checks section: "kernel", "cmdline", ...
  virtual std::string Name() const = 0;
  /// One line for people: "PREEMPT_RT, kernel version and the RT safety net".
  virtual std::string Title() const = 0;
  /// True when the profile's checks section turns it off (checks.<name>.enabled: false).
  virtual bool DisabledByProfile(const profile::Profile& p) const;
  /// Runs it. Never throws; a file it cannot read is a SKIP or WARN with the reason.
  virtual std::vector<CheckResult> Run(CheckEnv& env) const = 0;
};

// One factory per check, each in its own file (check/<name>_check.cc).
std::unique_ptr<Check> MakeConformanceCheck();  ///< verify's conformance: plan again, every item matches
std::unique_ptr<Check> MakeKernelCheck();
std::unique_ptr<Check> MakeCmdlineCheck();
std::unique_ptr<Check> MakeInterruptsCheck();
std::unique_ptr<Check> MakeHwlatCheck();
std::unique_ptr<Check> MakeClockCheck();
std::unique_ptr<Check> MakeRanksCheck();
std::unique_ptr<Check> MakeLintCheck();
std::unique_ptr<Check> MakePiCheck();  ///< priority inheritance: the codelab's experiment (src/bench/)

/// Every check, in the order the commission suite runs them.
std::vector<std::unique_ptr<Check>> AllChecks();
/// The check called `name`, or nullptr.
std::unique_ptr<Check> FindCheck(const std::string& name);

}  // namespace rtagent::check
