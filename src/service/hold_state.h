// What `rtagent hold` holds, written to run/rtagent/state.json for `rtagent status`, and the
// same facts as a Prometheus textfile for node_exporter's textfile collector.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent::service {

/// One value found changed under the daemon and what it did about it.
struct DriftEvent {
  int64_t time = 0;         ///< unix seconds
  std::string section;      ///< profile section: irqs, ranks, cores, ...
  std::string what;         ///< "IRQ 24 (eth0) affinity"
  std::string key;          ///< the actuator's address (a root-relative path for files)
  std::string old_value;    ///< what it had drifted to
  std::string new_value;    ///< what the profile wants (written back)
  std::string outcome;      ///< "re-asserted", "unchangeable: ...", "failed: ..."
  /// Who changed it, when hold can tell: "irqbalance (process 4242)" for an IRQ's affinity
  /// that drifted while irqbalance runs; "" when unknown. Kept in the state file ("cause").
  std::string cause = "";
  /// The values are hex CPU masks (an IRQ's smp_affinity): status shows the CPUs they name
  /// beside them. Kept in the state file ("cpu_mask") only when true.
  bool cpu_mask = false;
};

/// The last verification: plan again (conformance) plus the boot check suite.
struct VerifyResult {
  int64_t time = 0;         ///< unix seconds; 0 = never ran
  std::string result;       ///< "PASS", "WARN", "FAIL", "SKIP"
  int differs = 0;          ///< profile items that do not match the system
  int pass = 0, warn = 0, fail = 0, skip = 0;  ///< check answers of the suite
  std::string suite;        ///< "boot"
  std::string summary;      ///< one line
};

/// One measured CPU of that verdict, the figures a fleet's dashboard shows.
struct VerdictCpuSummary {
  int cpu = 0;
  std::optional<double> worst_us;  ///< nullopt when the CPU had no sample
  std::optional<double> p99_us;    ///< nullopt when unknown or beyond the histogram's limit
  uint64_t overflows = 0;          ///< wake-ups beyond the histogram's limit
  uint64_t samples = 0;

  bool operator==(const VerdictCpuSummary&) const = default;
};

/// The last latency verdict (accept --json) the daemon was told about.
struct VerdictSummary {
  std::string path;
  bool pass = false;
  std::string started_at;           ///< ISO 8601 UTC
  std::optional<int64_t> ended_at;  ///< unix seconds: the start plus the run's actual length; nullopt when unknown
  std::optional<double> worst_us;   ///< the worst wake-up latency of any CPU
  std::vector<VerdictCpuSummary> cpus;  ///< in CPU order
};

/// What `rtagent revert` put back after the hold stopped: the state file of a hold that kept
/// its values still says they are held until revert notes that they are not.
struct RevertedSince {
  int64_t time = 0;  ///< unix seconds
  int restored = 0;  ///< values put back
  int failed = 0;    ///< values revert could not put back (its output names them)
};

/// Everything `rtagent status` shows.
struct HoldState {
  static constexpr size_t kMaxDriftEvents = 32;  ///< the ring kept in the file

  int pid = 0;
  std::string state;        ///< "starting", "holding", "stopped", "failed"
  std::string profile;      ///< the profile's path
  std::string root;         ///< the system root held
  int64_t since = 0;        ///< when the state was first held (unix seconds)
  int64_t updated = 0;      ///< last write of this file
  std::string on_stop;      ///< keep | revert
  std::string watch_interval;  ///< "5s"
  std::string cpus;         ///< CPUs the daemon runs on ("0" or "not pinned: ...")
  std::optional<int> pm_qos_us;  ///< the note held on /dev/cpu_dma_latency; nullopt = none
  int applied = 0;          ///< values written at start (and reloads) plus re-asserts
  int unchangeable = 0;     ///< items the kernel refuses to change (managed IRQs, ...)
  int reboot_required = 0;  ///< boot-time items waiting for a reboot
  uint64_t ticks = 0;       ///< watch ticks run
  uint64_t replans = 0;     ///< ticks that planned the whole profile (the others read only the cheap signals)
  std::string last_replan;  ///< why the last of them did: "IRQ 125 fired outside CPUs 0", "safety interval", ...
  std::string replan_interval;  ///< "5m": a full re-plan at least this often
  int64_t last_tick_us = 0; ///< CPU-side cost of the last tick: plan again and compare (wall time, us)
  uint64_t drift_total = 0; ///< drift events ever seen (the ring keeps the last kMaxDriftEvents)
  std::deque<DriftEvent> drift;
  VerifyResult last_verify;
  std::string last_reload;  ///< "" never; "ok" or "failed: why", with `last_reload_time`
  int64_t last_reload_time = 0;
  std::string stop_reason;  ///< "SIGTERM: state kept", ...
  std::optional<VerdictSummary> verdict;
  std::optional<RevertedSince> reverted;  ///< set by `rtagent revert` once the hold has stopped
  /// Set by the hold itself when it put its values back as it stopped (on_stop: revert).
  std::optional<RevertedSince> put_back_at_stop;
  /// The Prometheus textfile the hold writes ("" when the profile names none), so that
  /// `rtagent revert`, which does not read the profile, can say there too that nothing is held.
  std::string prometheus_textfile;

  /// Adds an event, dropping the oldest beyond kMaxDriftEvents.
  void AddDrift(DriftEvent e);
  /// What the file claims: the daemon is starting or holding (whether its pid still runs is
  /// the reader's question).
  bool ClaimsToHold() const { return state == "holding" || state == "starting"; }
};

/// Root-relative path of the state file: run/rtagent/state.json.
std::string StatePath();
/// The state file's path on this machine, for messages: StatePath() under the root's directory.
std::string StateFileOnHost(const SysRoot& root);
/// Where the Prometheus textfile the profile names (an absolute path) is on this machine: that
/// path on the running system, the same path under the tree's directory for a fixture root, so a
/// hold of a fixture never writes the running system's metrics.
std::string TextfileOnHost(const SysRoot& root, const std::string& path);

nlohmann::json ToJson(const HoldState& s);
/// Parses a state file; the error names what is wrong.
Result<HoldState> ParseHoldState(const std::string& text);
/// The state `rtagent hold` last wrote under `root`: nullopt when there is no state file (hold
/// never ran, or /run was emptied by a reboot); an error, naming the file, when it cannot be
/// read or parsed. Whether that hold still runs is the caller's question (its pid).
Result<std::optional<HoldState>> ReadHoldState(const SysRoot& root);
/// After `rtagent revert` put values back: notes it in the state file a hold left behind (one
/// stopped with on_stop: keep, or one whose process is gone), so `status` no longer says those
/// values are held, and rewrites the hold's Prometheus textfile (when the file names one and
/// it is still there) with `rtagent_held_values 0`. Nothing to do when there is no state file;
/// an error names the file when one cannot be read or written. The caller has made sure no
/// hold runs (NoHoldBeside).
Result<void> NoteRevertSince(SysRoot& root, const RevertedSince& what);
/// The PM QoS note `rtagent hold` says it holds (its state file's pm_qos_us), for a latency
/// run to tell whose note was in force; nullopt when there is no state file, it cannot be read,
/// or it names no note (or none that makes sense).
std::optional<int32_t> HeldPmQosNote(const SysRoot& root);

/// `rtagent status` for a person. `running` says whether the pid is still alive.
std::string RenderStatusText(const HoldState& s, bool running, int64_t now);
/// What `hold --once` prints after its one pass has stopped: the pass, how it stopped (state kept
/// or reverted), then what status shows.
std::string RenderOnceText(const HoldState& s, int64_t now);

/// node_exporter textfile collector format (text exposition format 0.0.4).
std::string RenderPrometheus(const HoldState& s, bool up);

}  // namespace rtagent::service
