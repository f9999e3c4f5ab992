#include "bench/pi_child.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>

#include "bench/peer.h"
#include "latency/measuring_cgroup.h"

namespace rtagent::bench {
namespace {

// One protocol's figures as plain data, for memory shared across fork.
struct SharedMode {
  int periods = 0, misses = 0, inversions = 0, contended = 0, attempts = 0, capped = 0;
  bool out_of_time = false;
  int64_t worst_response_ns = 0, worst_block_ns = 0, worst_medium_ns = 0;
  int low_tid = 0;
  int n_low_tids = 0;
  int low_tids[kPiMaxAttempts] = {};
};

struct SharedOutcome {
  std::atomic<bool> stop{false};  // the parent's stop, passed on
  int state = 0;                  // 0: no result, 1: a result, 2: an error
  int err = 0;
  char message[1024] = {};
  char cgroup[256] = {};
  bool interrupted = false;
  int64_t time_limit_ns = 0;
  SharedMode none, inherit;
};

void CopyText(char* into, size_t size, std::string_view text) {
  const size_t n = std::min(size - 1, text.size());
  std::memcpy(into, text.data(), n);
  into[n] = '\0';
}

SharedMode ToShared(const PiModeResult& m) {
  SharedMode s;
  s.periods = m.periods;
  s.misses = m.misses;
  s.inversions = m.inversions;
  s.contended = m.contended;
  s.attempts = m.attempts;
  s.capped = m.capped;
  s.out_of_time = m.out_of_time;
  s.worst_response_ns = m.worst_response_ns;
  s.worst_block_ns = m.worst_block_ns;
  s.worst_medium_ns = m.worst_medium_ns;
  s.low_tid = m.low_tid;
  s.n_low_tids = static_cast<int>(std::min<size_t>(m.low_tids.size(), kPiMaxAttempts));
  std::copy_n(m.low_tids.begin(), s.n_low_tids, s.low_tids);
  return s;
}

PiModeResult FromShared(const SharedMode& s, const char* protocol) {
  PiModeResult m;
  m.protocol = protocol;
  m.periods = s.periods;
  m.misses = s.misses;
  m.inversions = s.inversions;
  m.contended = s.contended;
  m.attempts = s.attempts;
  m.capped = s.capped;
  m.out_of_time = s.out_of_time;
  m.worst_response_ns = s.worst_response_ns;
  m.worst_block_ns = s.worst_block_ns;
  m.worst_medium_ns = s.worst_medium_ns;
  m.low_tid = s.low_tid;
  m.low_tids.assign(s.low_tids, s.low_tids + s.n_low_tids);
  return m;
}

// The child's whole life: join, run, leave the outcome in `out`.
void ChildRuns(SysRoot& root, const std::string& cgroup_dir, PiOptions options, SharedOutcome& out) {
  if (auto joined = JoinCgroup(root, cgroup_dir); !joined) {
    out.err = joined.error().err;
    CopyText(out.message, sizeof out.message,
             "cannot move the experiment's process into cgroup " + cgroup_dir + ": " + joined.error().message);
    out.state = 2;
    return;
  }
  CopyText(out.cgroup, sizeof out.cgroup, OwnV2Cgroup(root));
  options.stop = &out.stop;
  auto r = RunPiExperiment(options);
  if (!r) {
    out.err = r.error().err;
    CopyText(out.message, sizeof out.message, r.error().message);
    out.state = 2;
    return;
  }
  out.none = ToShared(r->none);
  out.inherit = ToShared(r->inherit);
  out.interrupted = r->interrupted;
  out.time_limit_ns = r->time_limit_ns;
  out.state = 1;
}

std::string HowItEnded(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

Result<PiResult> RunPiExperimentInCgroup(SysRoot& root, const std::string& cgroup_dir, const PiOptions& options) {
  if (auto ok = ValidatePiOptions(options); !ok) return ok.error();
  SharedBlock<SharedOutcome> shared;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    return MakeError("cannot start the process that would run the experiment in cgroup " + cgroup_dir + " (fork)", errno);
  }
  if (pid == 0) {
    // It dies with the caller, and leaves without the caller's exit handlers.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == parent) ChildRuns(root, cgroup_dir, options, *shared);
    ::_exit(0);
  }
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;  // ECHILD: gone, and no result
    if (options.stop != nullptr && options.stop->load()) shared->stop.store(true);
    const timespec pause{0, 20000000};
    ::nanosleep(&pause, nullptr);
  }
  if (shared->state == 2) return Error{shared->message, shared->err};
  if (shared->state != 1) {
    return MakeError("the experiment's process in cgroup " + cgroup_dir + " ended without a result: " + HowItEnded(status));
  }
  PiResult r;
  r.cpu = options.cpu;
  r.priority = options.priority;
  r.timing = options.timing;
  r.none = FromShared(shared->none, "none");
  r.inherit = FromShared(shared->inherit, "inherit");
  r.interrupted = shared->interrupted;
  r.time_limit_ns = shared->time_limit_ns;
  r.cgroup = shared->cgroup;
  return r;
}

}  // namespace rtagent::bench
