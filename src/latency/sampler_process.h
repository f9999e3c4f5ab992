// The agent's side of the measuring process: starts rtagent-sampler, follows its progress,
// stops it on Ctrl-C and reads what it measured.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "latency/sampler.h"
#include "latency/sampler_protocol.h"

namespace rtagent {

/// Where the measuring program is: $RTAGENT_SAMPLER when set, else rtagent-sampler beside
/// the running program (the build folder), else ../libexec/rtagent/ from it (an install),
/// else the install prefix's libexec/rtagent/. The error names every place it looked.
Result<std::string> FindSamplerBinary();
/// The same, looking beside `self_dir` instead of the running program's folder (tests).
Result<std::string> FindSamplerBinary(const std::string& self_dir);

/// Runs a Sampler in its own process (rtagent-sampler) with the same interface as Sampler:
/// Start, RequestStop (safe in a signal handler), Finished, Progress, Wait.
///
/// Why a process: the sampler locks its memory (mlockall) so no page fault lands inside a
/// measurement. In the agent's process that locks every page of rtagent and its libraries;
/// in its own it locks its code, libc, the stacks and the histograms, as cyclictest does.
class SamplerProcess {
 public:
  /// `binary` empty: FindSamplerBinary() at Start().
  SamplerProcess(SamplerConfig config, const SysRoot& root, std::string binary = "");
  /// Stops the process if it still runs (SIGTERM, then SIGKILL after a grace) and reaps it.
  ~SamplerProcess();
  SamplerProcess(const SamplerProcess&) = delete;
  SamplerProcess& operator=(const SamplerProcess&) = delete;

  /// Checks the config, starts the process and waits until every measuring thread is set up
  /// and measuring ("ready"). Its setup errors come back as they were (errno included); a
  /// process that dies or answers nonsense is an error that says so.
  Result<void> Start();
  /// Asks the run to stop at the next wake-up: kill(SIGTERM), async-signal-safe.
  void RequestStop();
  /// Reads what the process has sent so far without waiting; true once it sent its last line
  /// (or died).
  bool Finished();
  /// Per-CPU samples and worst so far, from the last progress line.
  std::vector<CpuProgress> Progress() const;
  /// Waits for the whole result and for the process to exit.
  Result<SamplerResult> Wait();

  /// The measuring process (0 when none runs).
  pid_t pid() const { return pid_.load(); }
  /// How long Start waits for "ready" (30 s: locking memory and starting a thread per CPU on a
  /// loaded board); tests shorten it.
  void set_ready_timeout(std::chrono::milliseconds timeout) { ready_timeout_ = timeout; }

 private:
  // Reads what is available (wait_ms < 0: until a line or EOF arrives); false at EOF.
  bool Pump(int wait_ms);
  // Reaps the process; the wait status, or -1.
  int Reap(bool kill_first);
  std::string DescribeExit(int status) const;

  SamplerConfig config_;
  const SysRoot& root_;
  std::string binary_;
  std::atomic<pid_t> pid_{0};
  int fd_ = -1;
  bool eof_ = false;
  std::string pending_;
  SamplerStreamReader reader_;
  std::optional<Error> stream_error_;
  std::vector<CpuProgress> zero_progress_;
  int exit_status_ = -1;
  std::chrono::milliseconds ready_timeout_{30000};
};

}  // namespace rtagent
