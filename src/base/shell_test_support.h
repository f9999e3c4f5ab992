// Test support: run a command line through /bin/sh and keep what it printed and how it ended.
// The black-box CLI tests (rtagent as a user runs it) all go through this one function.
#pragma once

#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

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

}  // namespace rtagent::test
