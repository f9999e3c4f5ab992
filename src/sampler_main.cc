// rtagent-sampler: the measuring process `rtagent accept` and `commission` start.
//
// It runs the Sampler (src/latency/sampler.h) and nothing else, so that its mlockall() locks
// only this small program, libc, the measuring threads' stacks and the histograms: not
// rtagent's profile loader, checks, renderers and their libraries (libstdc++ is linked in
// statically, only the parts used). It is not a command for people: its arguments are
// written by SamplerArgs() and its output, on the pipe given as --out-fd, is read by
// SamplerProcess (src/latency/sampler_protocol.h describes the stream).
//
// Signals: SIGINT and SIGTERM stop the run early (the result is still sent, marked
// interrupted). They are blocked before the measuring threads exist, so no signal ever
// lands on a measuring thread; this thread waits for them between progress lines. The
// process also ends its run when the agent dies (PR_SET_PDEATHSIG).
#include <malloc.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "latency/sampler.h"
#include "latency/sampler_protocol.h"

namespace {

// Writes the whole text to fd; false when the agent's end of the pipe is gone.
bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

constexpr long kProgressEveryNs = 250 * 1000 * 1000;

}  // namespace

int main(int argc, char** argv) {
  using namespace rtagent;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto inv = ParseSamplerArgs(args);
  if (!inv) {
    // Not started by rtagent (or by another version of it): say so on stderr.
    std::string msg = "rtagent-sampler: " + inv.error().message +
                      "\nrtagent-sampler is started by `rtagent accept` and `rtagent commission`; it is not run by hand.\n";
    (void)WriteAll(STDERR_FILENO, msg);
    return 2;
  }
  const int out = inv->out_fd;
  ::signal(SIGPIPE, SIG_IGN);
  // One malloc arena for every thread: a thread's first allocation would otherwise reserve
  // an arena of its own (64 MiB of address space on 64-bit glibc), and under
  // mlockall(MCL_FUTURE) that reservation counts against the locked-memory limit
  // (RLIMIT_MEMLOCK) although it never becomes resident. The loop itself never allocates.
  ::mallopt(M_ARENA_MAX, 1);

  // Stop signals and the agent's death are taken by this thread only, synchronously.
  sigset_t stop_set;
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGINT);
  sigaddset(&stop_set, SIGTERM);
  sigaddset(&stop_set, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &stop_set, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (inv->parent_pid > 0 && ::getppid() != inv->parent_pid) return 1;  // the agent died before the prctl

  if (!WriteAll(out, EncodeHello())) return 1;
  FsRoot root(inv->root_dir);
  Sampler sampler(inv->config, root);
  if (auto ok = sampler.Start(); !ok) {
    (void)WriteAll(out, EncodeError(ok.error()));
    return 1;
  }
  if (!WriteAll(out, EncodeReady())) sampler.RequestStop();

  const timespec wait{0, kProgressEveryNs};
  while (!sampler.Finished()) {
    const int sig = ::sigtimedwait(&stop_set, nullptr, &wait);
    if (sig > 0) {
      sampler.RequestStop();
      continue;
    }
    if (!WriteAll(out, EncodeProgress(sampler.Progress()))) sampler.RequestStop();  // the agent is gone
  }
  auto result = sampler.Wait();
  if (!result) {
    (void)WriteAll(out, EncodeError(result.error()));
    return 1;
  }
  return WriteAll(out, EncodeResult(*result)) ? 0 : 1;
}
