// Test support: a sleeping child process with a name of its own (its comm), for the live tests
// whose plan looks for a process by name; a child that does one thing the test process must
// not (enter a namespace, drop capabilities) and says how it went; a veth pair in a network
// namespace of the child's own.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "base/kernel_paths.h"
#include "base/sysroot.h"

namespace rtagent::test {

/// Forks a child that names itself `name` and sleeps; killed and reaped on every exit path.
/// The constructor waits until the name shows in the child's comm, up to 20 s (a loaded
/// machine may not run the child for a while), so a plan that looks for it finds it.
class NamedChild {
 public:
  explicit NamedChild(const std::string& name) {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
      for (;;) ::pause();
    }
    if (pid_ < 0) return;
    FsRoot live("/");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      auto comm = live.ReadTrimmed(kpath::Pid(pid_) + "/comm");
      if (comm && *comm == name) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~NamedChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  NamedChild(const NamedChild&) = delete;
  NamedChild& operator=(const NamedChild&) = delete;
  /// The child's pid; -1 when fork failed.
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
};

/// Sends a child's words to the parent and ends the child at once (no Catch teardown, no
/// destructors of the parent's objects).
using Say = std::function<void(const std::string&)>;

/// What a child said, and whether it exited (rather than died of a signal).
struct ChildWords {
  std::string said;
  bool exited = false;
};

/// Runs `body` in a forked child, which ends by calling the `say` it is given (returning from
/// `body` says ""); the parent waits for it and returns its words.
inline ChildWords RunChild(const std::function<void(const Say&)>& body) {
  int pipefd[2];
  if (::pipe(pipefd) != 0) return {std::string("pipe: ") + std::strerror(errno), false};
  const pid_t pid = ::fork();
  if (pid < 0) return {std::string("fork: ") + std::strerror(errno), false};
  if (pid == 0) {
    ::close(pipefd[0]);
    const Say say = [&](const std::string& what) {
      (void)!::write(pipefd[1], what.data(), what.size());
      ::_exit(0);
    };
    body(say);
    say("");
  }
  ::close(pipefd[1]);
  ChildWords out;
  char buf[512];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) out.said.append(buf, static_cast<size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  out.exited = ::waitpid(pid, &status, 0) == pid && WIFEXITED(status);
  return out;
}

/// In a RunChild body: enters a network namespace of the child's own and makes a veth pair
/// v0/v1 there, 4 rx and 4 tx queues each (veth's driver has rx and tx channels, no combined
/// ones). This machine's interfaces are neither seen nor changed, and the pair goes with the
/// child. A namespace refused says "no network namespace: ..." (the caller's skip).
inline void EnterNetnsWithVeth(const Say& say) {
  if (::unshare(CLONE_NEWNET) != 0) say(std::string("no network namespace: unshare(CLONE_NEWNET): ") + std::strerror(errno));
  if (std::system("ip link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1 numtxqueues 4 numrxqueues 4") != 0) {
    say("ip link add: the veth pair was not made");
  }
}

}  // namespace rtagent::test
