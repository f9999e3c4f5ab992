// The process machinery under every load (internal to src/latency): a supervisor process
// per load, its workers, the memory they share with the agent, and the stop sequence.
//
//   agent ──fork──> supervisor (own process group, child subreaper, pinned, SCHED_OTHER)
//                      └─fork──> workers (process group of their own: the "work group")
//
// The supervisor reaps everything under it, including orphans re-parented to it, so a
// stopped load leaves no zombie behind even when PID 1 does not reap (containers, VMs).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "latency/load.h"

namespace rtagent::load_internal {

/// Memory shared (MAP_SHARED|MAP_ANONYMOUS) by the agent, a load's supervisor and its
/// workers: live counters and the errors of processes that cannot return values.
struct SharedState {
  static constexpr int kErrorSlots = 4;
  static constexpr size_t kTextBytes = 256;

  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint32_t> error_count{0};
  std::atomic<int> error_done[kErrorSlots];
  int error_errno[kErrorSlots];
  char errors[kErrorSlots][kTextBytes];
  std::atomic<int> detail_claimed{0};
  std::atomic<int> detail_done{0};
  char detail[kTextBytes];
  std::atomic<int> work_pgid{0};
  std::atomic<int> ended_early{0};
  std::atomic<int> exit_status{-1};  ///< wait status of worker 0 (the external command)
  std::atomic<int> stopping{0};
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters are shared across processes");

/// Records an error in the first free slot (later ones are only counted).
void RecordError(SharedState& shared, const Error& error);
/// Sets the runtime detail once (the first caller wins): "O_DIRECT", a fallback, ...
void SetDetail(SharedState& shared, const std::string& text);

/// What a load does. Prepare() runs in the supervisor, Run() in each worker process.
class LoadBody {
 public:
  virtual ~LoadBody() = default;
  /// "builtin" or "external".
  virtual std::string Kind() const = 0;
  /// One line saying what the load does, for reports and docs.
  virtual std::string Pattern() const = 0;
  /// Unit of the ops counter ("" when the load counts nothing).
  virtual std::string OpsUnit() const { return ""; }
  /// What is known before it runs (buffer size, THP mode).
  virtual std::string StaticDetail() const { return ""; }
  /// In the agent, before anything is forked: sizes the load for `cpus` (the cache of
  /// the CPUs it will run on). Errors are Start()'s errors.
  virtual Result<void> Configure(const CpuSet&) { return Ok(); }
  /// How many worker processes to run on `cpus`.
  virtual int Workers(const CpuSet& cpus) const = 0;
  /// In the supervisor, before forking workers: creates what workers inherit (sockets, a
  /// shared buffer, a log file). Errors are Start()'s errors.
  virtual Result<void> Prepare(SharedState& shared, int workers) = 0;
  /// In the supervisor after every worker started: closes what only workers need.
  virtual void AfterStart() {}
  /// In worker `index` (its own process): sets up, calls `started()` once at work, then
  /// works until killed. Returns only on failure: before started() the error fails Start().
  virtual Result<void> Run(int index, SharedState& shared, const std::function<void()>& started) = 0;
  /// True when worker 0's exit status is the load's ("exited 0" for a command).
  virtual bool ReportsExit() const { return false; }
  /// Adds what only this kind of load knows (argv, log path) to a report.
  virtual void Describe(LoadReport&) const {}
};

/// A Load made of a supervisor process and the workers of a LoadBody.
class ProcessLoad : public Load {
 public:
  ProcessLoad(std::string name, std::unique_ptr<LoadBody> body, int nice, std::chrono::milliseconds grace,
              const SysRoot& root);
  ~ProcessLoad() override;
  ProcessLoad(const ProcessLoad&) = delete;
  ProcessLoad& operator=(const ProcessLoad&) = delete;

  std::string Name() const override { return name_; }
  Result<void> Start(const CpuSet& cpus) override;
  void RequestStop() override;
  void Stop() override;
  bool Running() const override { return supervisor_ > 0; }
  bool EndedEarly() const override;
  int RootPid() const override { return supervisor_; }
  int WorkGroup() const override;
  LoadReport Report() const override;
  /// How long Start waits for the supervisor to report every worker at work (15 s: forking
  /// and placing the workers of a large load on a loaded board); tests shorten it.
  void set_start_timeout(std::chrono::milliseconds timeout) { start_timeout_ = timeout; }

 private:
  // Kills the supervisor and the work group at once and reaps the supervisor.
  void KillNow();

  std::string name_;
  std::unique_ptr<LoadBody> body_;
  int nice_;
  std::chrono::milliseconds grace_;
  std::chrono::milliseconds start_timeout_{15000};
  const SysRoot& root_;
  SharedState* shared_ = nullptr;
  pid_t supervisor_ = 0;
  int workers_ = 0;
  CpuSet cpus_;
  std::chrono::steady_clock::time_point started_at_{};
  std::chrono::steady_clock::time_point stopped_at_{};
  bool ran_ = false;
  bool stop_requested_ = false;
  std::vector<std::string> agent_errors_;
};

/// Pins the calling thread (and what it forks) to `cpus` at SCHED_OTHER with `nice`, and
/// drops any memory lock inherited from the agent (mlockall is the sampler's, not the load's).
Result<void> PlaceSelf(const CpuSet& cpus, int nice);

/// "exited 0", "killed by SIGTERM" for a wait status.
std::string DescribeWaitStatus(int status);

}  // namespace rtagent::load_internal
