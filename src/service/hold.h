// `rtagent hold`: the daemon that applies a profile's runtime state at boot, holds what only
// lives while a process holds it (the PM QoS note), re-asserts what drifts (new IRQs,
// re-created irq/* threads, values rewritten by irqbalance or a vendor script), and tells
// systemd and `rtagent status` what it holds.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/pm_qos.h"
#include "base/result.h"
#include "base/sysroot.h"
#include "profile/model.h"
#include "service/hold_state.h"
#include "service/memory_trim.h"
#include "service/notifier.h"
#include "service/self_calls.h"
#include "service/watch_signals.h"
#include "tune/executor.h"
#include "tune/journal.h"

namespace rtagent {
struct FullPlan;  // tune/tuner.h
}

namespace rtagent::service {

struct HoldOptions {
  /// The profile file re-read on SIGHUP ("" = the built-in default).
  std::string profile_path;
  /// Loads the profile again on reload; empty: profile::LoadProfile(profile_path) against the
  /// root. On failure it returns the error and puts every diagnostic in *why.
  std::function<std::optional<profile::Profile>(std::string* why)> load_profile;
  /// The check suite run as "verify" at start and after a reload.
  std::string suite = "boot";
  /// Waits of the suite's windows (interrupts); empty: sleep. Tests return at once.
  std::function<bool(profile::Duration)> check_wait;
  /// The last latency verdict to report (accept --json), read again at each verify; may be empty.
  std::function<std::optional<VerdictSummary>()> verdict;
  /// Where log lines go; empty: a stderr logger (the journal, under systemd).
  std::shared_ptr<spdlog::logger> log;
  /// The syscalls on the daemon's own process (pinning, giving start-up memory back); null: the
  /// real ones on a live root, none under a fixture root (a test's process is never moved).
  SelfCalls* self = nullptr;
  /// Drop the pages only start-up touched once READY (and after a reload); off for --once,
  /// which stops right away.
  bool give_back_memory = true;
  /// A steady clock in milliseconds for the safety re-plan (replan_interval); empty:
  /// std::chrono::steady_clock. Tests move it by hand.
  std::function<int64_t()> clock_ms;
  /// A full re-plan at least this often, whatever the cheap signals say (hold --replan-interval).
  profile::Duration replan_interval = std::chrono::minutes(5);
};

/// How Start() ended. cli turns it into an exit code (0, 3, 4).
enum class StartResult {
  kHolding,     ///< the state is applied, verified and held
  kRefused,     ///< could not start (cannot pin, device, journal, plan): nothing was changed
  kRolledBack,  ///< a write failed: this run's changes were rolled back
};

/// The daemon's state machine. Run() drives it from signals and timers; tests call Start,
/// Tick, Reload and Stop directly, so drift is re-asserted "on the next tick" without sleeping.
class HoldDaemon {
 public:
  /// `qos` is the PM QoS device (MakeQosDevice(root) in production).
  HoldDaemon(SysRoot& root, profile::Profile profile, HoldOptions options, Notifier& notifier,
             std::unique_ptr<QosDevice> qos);
  ~HoldDaemon();

  /// Pins itself to service.cpus with SCHED_OTHER (live root only), takes the PM QoS note,
  /// applies the runtime state through the executor and journal (never a boot loader file:
  /// boot arguments are `rtagent apply`'s; they are logged as pending), verifies, writes the state
  /// file, sends READY=1 and gives back the pages only start-up touched. On failure nothing is
  /// held and nothing was changed (StartResult says why).
  StartResult Start();
  /// One watch tick. It reads the cheap signals first (WatchSignals: /proc/interrupts, the
  /// thread list, the managed files in turn) and plans again only when one moved, when the last
  /// plan left a failed write, on the first tick after start or a reload, and at least every
  /// HoldOptions::replan_interval. After a plan every item that drifted is re-asserted (one change
  /// at a time, so one failure does not undo the others) with one log line each. Returns the
  /// number of drift events. The first tick after start or a reload gives memory back again.
  int Tick();
  /// SIGHUP: loads the profile again. A bad profile (or new CPUs it cannot pin to, a new note
  /// or a write that fails) keeps the old profile and state and logs why; returns false then.
  bool Reload();
  /// SIGTERM/SIGINT (or the end of --once): keeps the state (on_stop: keep) or reverts it
  /// through the journal (on_stop: revert), releases the PM QoS note, writes the final state.
  /// Returns false when a revert left values behind (named in the log). Idempotent.
  bool Stop(const std::string& why);
  /// Plans again (conformance) and runs the check suite; stores and returns the result.
  VerifyResult Verify();
  /// Sends WATCHDOG=1.
  void PingWatchdog();

  /// The loop: waits on `signal_fd` (OpenSignalFd) and the next tick or watchdog ping.
  /// Returns Stop()'s answer after SIGTERM/SIGINT.
  bool Run(int signal_fd);

  const HoldState& state() const { return state_; }
  const profile::Profile& profile() const { return profile_; }
  bool HoldsPmQos() const { return lease_.Held(); }
  /// The one-line summary sent as STATUS=.
  std::string StatusLine() const;

 private:
  /// Switches to SCHED_OTHER with a long timer slack and pins to `p`'s service.cpus; the error
  /// names the CPUs and the errno. Under a fixture root (no SelfCalls) it only notes why not.
  Result<void> Pin(const profile::Profile& p);
  /// Drops the clean file pages start-up (or a reload) touched and trims the heap; once more
  /// after the next tick when `again_after_tick`.
  void GiveBackStartupMemory(bool again_after_tick);
  /// The drop itself (self_ must be set); a failure is a warning.
  TrimReport DropPages();
  /// Takes, changes or gives back the note as `p` asks.
  Result<void> HoldNote(const profile::Profile& p);
  /// After a full plan whose drift was re-asserted: what the cheap signals compare against.
  void ArmWatch(const FullPlan& plan);
  int64_t ClockMs() const;
  /// Applies `changes` one by one; records refusals; returns how many were written.
  int ApplyEach(const std::vector<Change>& changes, bool as_drift, std::string* first_error);
  void WriteState();
  /// Says which boot-time files wait for `rtagent apply` (hold never writes them).
  void LogLeftToApply();
  void Notify(const std::string& msg);
  /// Start() failed before changing anything: logs `log_line`, records `reason` as the
  /// stop reason in the state file and STATUS=, and returns kRefused.
  StartResult FailStart(const std::string& log_line, const std::string& reason);

  SysRoot& root_;
  profile::Profile profile_;
  HoldOptions options_;
  Notifier& notifier_;
  std::shared_ptr<spdlog::logger> log_;
  SelfCalls* self_;
  Journal journal_;
  std::unique_ptr<Executor> executor_;
  PmQosLease lease_;
  HoldState state_;
  /// Boot-time files the profile would change (LeftToApply): apply's job, reported as pending.
  std::vector<std::string> left_to_apply_;
  bool started_ = false;
  bool stopped_ = false;
  bool trim_after_tick_ = false;
  WatchSignals watch_;
  int64_t last_plan_ms_ = 0;
  std::string unarmed_why_ = "first tick";  ///< why a tick without a baseline plans
  int64_t last_state_write_ = 0;
};

/// Blocks SIGHUP, SIGTERM and SIGINT in this thread (call before any other thread starts)
/// and returns a signalfd(2) that reads them. The error names the errno; on failure the signal
/// mask is as it was.
Result<int> OpenSignalFd(SelfCalls& calls = RealSelfCalls());

/// A stderr logger: no timestamps under systemd (the journal adds them), with them otherwise.
std::shared_ptr<spdlog::logger> MakeStderrLogger();

}  // namespace rtagent::service
