// Ctrl-C and SIGTERM for the long commands (accept, commission): the first signal asks the
// running step to stop early and still finish its work (write the verdict, revert), never
// to die half-way with the system changed.
#pragma once

#include <atomic>
#include <csignal>

namespace rtagent {

class SamplerProcess;

/// Set by SIGINT or SIGTERM while a StopSignals guard is alive. Lock-free, so the handler may
/// store it; RunSuite and long loops poll it.
std::atomic<bool>& StopFlag();

/// The measuring process a stop signal should reach at once (RequestStop is a kill(2));
/// nullptr when none runs.
void SetStopTarget(SamplerProcess* sampler);

/// Installs the stop handler for SIGINT and SIGTERM and puts the previous handlers back when
/// it ends. Guards nest: an inner guard (accept inside commission) restores the outer one's.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace rtagent
