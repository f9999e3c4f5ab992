// Loads that push against the latency sampler while it measures: built-in stressors (cache,
// messaging, disk, network, memory) and external commands from the profile (stress-ng, the
// robot's own workload). Each runs as a process tree of its own, pinned to housekeeping CPUs
// at SCHED_OTHER, and is stopped and reaped completely at the end. See docs/loads.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// Where a load's tasks were seen running: the "processor" field (39) of
/// /proc/PID/task/TID/stat, sampled over the run for every task of the load's process tree.
struct LoadPlacement {
  CpuSet seen;      ///< every CPU a task of the load was last seen on
  CpuSet allowed;   ///< union of the tasks' affinity masks (Cpus_allowed_list)
  CpuSet measured;  ///< the CPUs the sampler measured, which the load had to stay off
  int samples = 0;  ///< sampling rounds that found at least one task of the load
  int tasks = 0;    ///< tasks (threads) seen over the run
};

/// What a load did: the evidence a verdict needs about one load.
struct LoadReport {
  std::string name;               ///< "cache", "messaging", ..., or the external load's name
  std::string kind;               ///< "builtin" or "external"
  std::string pattern;            ///< one line saying what the load does
  std::vector<std::string> argv;  ///< external loads: the command run
  std::string log_path;           ///< external loads: where stdout and stderr went
  CpuSet cpus_asked;              ///< the CPUs it was pinned to
  int nice = 0;                   ///< its nice value (SCHED_OTHER)
  int workers = 0;                ///< worker processes it ran
  double seconds = 0;             ///< from started to stopped (or to now while running)
  uint64_t ops = 0;               ///< work done, counted in `ops_unit`
  std::string ops_unit;           ///< "cache lines", "messages", "blocks", "pages"; "" for external
  uint64_t bytes = 0;             ///< bytes moved (written, sent, touched)
  std::string detail;             ///< how it ran: buffer size, O_DIRECT or its fallback, THP mode
  std::vector<std::string> errors;  ///< what went wrong, first ones first
  bool ended_early = false;       ///< some of its work ended before Stop (crash, exit, error)
  std::string exit;               ///< external loads: "exited 0", "killed by SIGTERM"; "" otherwise
  LoadPlacement placement;        ///< filled by LoadSet (or a caller running a PlacementTracker)

  /// CPUs the load was seen on that it was not asked to run on.
  CpuSet Leaked() const;
  /// CPUs the load was seen on that the sampler measured: the leak that spoils a run.
  CpuSet OnMeasured() const;
  /// True when placement was sampled at least once and every CPU seen was asked for and
  /// none is measured.
  bool PlacementProven() const;
  /// "ran on 0 (asked 0)"; "ran on 0-1 (asked 0): LEAK onto 1 (measured)"; "not sampled (asked 0)".
  std::string PlacementSummary() const;
};

/// A load: started on a set of CPUs, stopped, reported. Implementations run their work in
/// child processes (a supervisor and its workers) so the sampler's address space, memory
/// lock and scheduling class are never shared with the load. Not thread-safe: one owner.
/// Start() from a thread that outlives the load: the load dies with that thread
/// (PR_SET_PDEATHSIG), which is what keeps loads from surviving a crashed agent.
class Load {
 public:
  virtual ~Load() = default;
  /// Short name used in reports.
  virtual std::string Name() const = 0;
  /// Starts the load pinned to `cpus` at SCHED_OTHER. Returns once every worker is pinned
  /// and at work, or with the error that stopped it (nothing is left running then).
  virtual Result<void> Start(const CpuSet& cpus) = 0;
  /// Asks the load to stop without waiting for it, so several loads stop in parallel.
  /// Stop() completes it. No-op when not running or already asked.
  virtual void RequestStop() = 0;
  /// Stops the load: SIGTERM to its process group, SIGKILL after the grace period, every
  /// process reaped. Idempotent; a load never started is a no-op. Errors land in Report().
  virtual void Stop() = 0;
  /// True between a successful Start() and Stop().
  virtual bool Running() const = 0;
  /// True when some of its work ended before Stop() (a crash, an external command exiting).
  virtual bool EndedEarly() const = 0;
  /// Pid of the root of the load's process tree (its supervisor), 0 when not running.
  virtual int RootPid() const = 0;
  /// Process group of the load's workers, 0 when not running.
  virtual int WorkGroup() const = 0;
  /// What the load did so far (or in all, after Stop()). Placement is left empty.
  virtual LoadReport Report() const = 0;
};

/// Options of the built-in loads. Defaults are modest: a shared 24 GiB machine runs them
/// beside other work, and a board under test runs them beside its own.
struct BuiltinLoadOptions {
  /// Worker processes; 0 picks the load's default (cache, memory: one per CPU asked;
  /// disk: 1; network: 2, one sender and one receiver).
  int workers = 0;
  /// Nice value of every task of the load (SCHED_OTHER). Negative needs CAP_SYS_NICE.
  int nice = 0;
  /// Upper bound on what one load maps (its buffers), whatever the other options say.
  uint64_t memory_limit_bytes = 256ull << 20;
  /// cache: the buffer thrashed; 0 = twice the last-level cache (64 MiB when unknown).
  uint64_t cache_buffer_bytes = 0;
  /// messaging: groups of senders and receivers (hackbench -g).
  int messaging_groups = 1;
  /// messaging: senders and receivers in each group (hackbench -f).
  int messaging_fds = 10;
  /// messaging: pipes instead of AF_UNIX socketpairs (hackbench -p).
  bool messaging_pipes = false;
  /// disk: the directory of the temporary files (unlinked as soon as they are open).
  std::string disk_dir = "/var/tmp";
  /// disk: size of one write; a multiple of the device's logical block size.
  uint64_t disk_block_bytes = 1ull << 20;
  /// disk: size each worker's file wraps at (disk space used per worker).
  uint64_t disk_file_bytes = 64ull << 20;
  /// network: UDP datagrams instead of a TCP stream (both on 127.0.0.1 only).
  bool network_udp = false;
  /// How long a stopped load may take before SIGKILL (built-ins die at once on SIGTERM).
  std::chrono::milliseconds stop_grace{500};
};

/// An external command run as a load.
struct ExternalLoadSpec {
  /// Name in reports; argv[0]'s base name when empty.
  std::string name;
  /// The command, run without a shell (execvp: argv[0] is looked up in PATH).
  std::vector<std::string> argv;
  /// File receiving stdout and stderr (appended, created 0644). Required.
  std::string log_path;
  /// Nice value (SCHED_OTHER).
  int nice = 0;
  /// Time between SIGTERM to the command's process group and SIGKILL.
  std::chrono::milliseconds stop_grace{2000};
};

/// Names of the built-in loads: cache, messaging, disk, network, memory.
const std::vector<std::string>& BuiltinLoadNames();

/// A built-in load by name. `root` must be the live system for Start() to be meaningful;
/// it is read now (cache sizes, THP mode) and by the load's supervisor, so it must outlive
/// the load. Unknown names and impossible options are errors.
Result<std::unique_ptr<Load>> MakeBuiltinLoad(const std::string& name, const BuiltinLoadOptions& options,
                                              const SysRoot& root);

/// An external load. The program is looked up now, so a missing one is an error naming it
/// before anything runs. `root` must outlive the load.
Result<std::unique_ptr<Load>> MakeExternalLoad(const ExternalLoadSpec& spec, const SysRoot& root);

/// Size in bytes of the last-level (highest level, data or unified) cache of `cpu`, from
/// sysfs cpuN/cache/index*/{level,type,size}.
Result<uint64_t> LastLevelCacheBytes(const SysRoot& root, int cpu);

/// The file execvp would run for `program`: itself when it holds a '/', else the first
/// executable match in $PATH. ENOENT with the program's name when there is none.
Result<std::string> FindProgram(const std::string& program);

}  // namespace rtagent
