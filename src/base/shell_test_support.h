// Test support: run a command line through /bin/sh and keep what it printed and how it ended.
// The black-box CLI tests (rtagent as a user runs it) all go through this one function.
#pragma once

#include <dirent.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "base/kernel_paths.h"

namespace rtagent::test {

struct ShellResult {
  int code = -1;    ///< the exit status, or -1 when it died by a signal or could not start
  std::string out;  ///< stdout (add "2>&1" to the command for stderr too)
};

/// Runs `command` with popen(3) and waits for it.
inline ShellResult RunShell(const std::string& command) {
  ShellResult r;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) {
    r.out = "popen(" + command + "): " + std::strerror(errno);
    return r;
  }
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// The child of `parent` whose command name (comm, /proc/PID/stat) is `comm`, or 0.
inline pid_t ChildNamed(pid_t parent, const std::string& comm) {
  DIR* d = ::opendir(("/" + kpath::kProc).c_str());
  if (d == nullptr) return 0;
  pid_t found = 0;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream in("/" + kpath::ProcStat(pid));
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 > stat.size()) continue;
    if (stat.substr(open + 1, close - open - 1) != comm) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) found = pid;
  }
  ::closedir(d);
  return found;
}

/// Waits (at most a minute) until `parent` has a child named `comm`: its pid; -1 when the
/// parent ended first (it is reaped then), 0 when none came. rtagent accept and commission
/// start their measuring process, rtagent-sampler, once the run is under way: the point a
/// test sends Ctrl-C at, instead of sleeping a guessed time.
inline pid_t WaitForChildNamed(pid_t parent, const std::string& comm) {
  for (int i = 0; i < 600; ++i) {
    if (pid_t c = ChildNamed(parent, comm)) return c;
    int st = 0;
    if (::waitpid(parent, &st, WNOHANG) == parent) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

/// A file made immutable (chattr +i: even root's open for writing fails with EPERM), made
/// mutable again when this ends, so the scratch tree can be removed.
class Immutable {
 public:
  explicit Immutable(std::string path) : path_(std::move(path)) {
    ok_ = std::system(("chattr +i '" + path_ + "' 2>/dev/null").c_str()) == 0;
  }
  ~Immutable() {
    if (ok_) (void)std::system(("chattr -i '" + path_ + "' 2>/dev/null").c_str());
  }
  Immutable(const Immutable&) = delete;
  Immutable& operator=(const Immutable&) = delete;
  /// False when the file system or the caller cannot set the flag (tmpfs, no CAP_LINUX_IMMUTABLE).
  bool ok() const { return ok_; }

 private:
  std::string path_;
  bool ok_ = false;
};

}  // namespace rtagent::test
