// Helpers shared by the inspect tests: fixture paths, running the rtagent binary, temp dirs.
#pragma once

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "base/shell_test_support.h"
#include <string>

namespace rtagent::testing {

/// tests/sysroots/<name> in the source tree.
inline std::string Fixture(const std::string& name) {
  return std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/" + name;
}

/// The output and exit code of the rtagent binary run with `args` (stderr discarded unless
/// `with_stderr`).
struct RunResult {
  std::string out;
  int code = -1;
};
inline RunResult RunRtagent(const std::string& args, bool with_stderr = false) {
  std::string cmd = std::string(RTAGENT_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  RunResult r;
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  r.code = s.code;
  r.out = s.out;
  return r;
}

/// A fresh directory under /tmp, removed with everything in it at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/rtagent-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

}  // namespace rtagent::testing#include "base/shell_test_support.h"

