// Test support: a sleeping child process with a name of its own (its comm), for the live tests
// whose plan looks for a process by name.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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

}  // namespace rtagent::test
