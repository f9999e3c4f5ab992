// Ctrl-C and SIGTERM for the long commands (accept, commission, bench, apply): the first
// signal asks the running step to stop early and still finish its work (write the verdict,
// revert, put back what the run raised), never to die half-way with the system changed. A
// closed terminal (SIGHUP: the SSH session dropped) and a reader that went away (SIGPIPE:
// `| head`) stop the run the same way, unless they were ignored when it started (nohup).
#pragma once

#include <atomic>
#include <csignal>

namespace rtagent {

class SamplerProcess;

/// Set by SIGINT, SIGTERM, SIGHUP or SIGPIPE while a StopSignals guard is alive. Lock-free, so
/// the handler may store it; RunSuite and long loops poll it.
std::atomic<bool>& StopFlag();

/// The measuring process a stop signal should reach at once (RequestStop is a kill(2));
/// nullptr when none runs.
void SetStopTarget(SamplerProcess* sampler);

/// Installs the stop handler for SIGINT, SIGTERM, SIGHUP and SIGPIPE (the last two only when
/// not ignored) and puts the previous handlers back when it ends. Guards nest: an inner guard
/// (accept inside commission) restores the outer one's.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
  struct sigaction old_pipe_ {};
};

}  // namespace rtagent
