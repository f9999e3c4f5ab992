#include "cli/stop_signal.h"

#include "latency/sampler_process.h"

namespace rtagent {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<SamplerProcess*> g_sampler{nullptr};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler stores the stop flag");
static_assert(std::atomic<SamplerProcess*>::is_always_lock_free, "a signal handler reads the sampler");

void OnStopSignal(int) {
  g_stop.store(true);
  if (SamplerProcess* s = g_sampler.load()) s->RequestStop();  // kill(2): async-signal-safe
}

}  // namespace

std::atomic<bool>& StopFlag() { return g_stop; }

void SetStopTarget(SamplerProcess* sampler) { g_sampler.store(sampler); }

StopSignals::StopSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  // SA_RESTART: a write to a full pipe (`| tee`, a CI log, the journal) that the signal cuts
  // off would fail with EINTR, and stdio then drops what it held and every later line of
  // standard output. Nothing waits on a restartable call to notice the stop: the long steps
  // poll StopFlag() between short sleeps or polls, which the signal still ends early.
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int_);
  ::sigaction(SIGTERM, &sa, &old_term_);
  // By default either would end the process at once, with whatever the run raised still raised.
  // Ignored (nohup, a shell that ignores SIGPIPE), they stay ignored: a write to a reader that
  // went away then fails with EPIPE, and the run goes on to its end.
  for (auto [sig, old] : {std::pair{SIGHUP, &old_hup_}, std::pair{SIGPIPE, &old_pipe_}}) {
    ::sigaction(sig, nullptr, old);
    if (old->sa_handler != SIG_IGN) ::sigaction(sig, &sa, nullptr);
  }
}

StopSignals::~StopSignals() {
  g_sampler.store(nullptr);
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
  ::sigaction(SIGHUP, &old_hup_, nullptr);
  ::sigaction(SIGPIPE, &old_pipe_, nullptr);
}

}  // namespace rtagent
