// Helpers shared by the inspect tests (and the tests that write thread trees): fixture paths,
// running the rtagent binary, stat lines.
#pragma once

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/kernel_paths.h"
#include "base/shell_test_support.h"

namespace rtagent::testing {

/// The fields of a stat line a test sets; the others are filler.
struct StatFields {
  int tid = 1;
  std::string comm;
  char state = 'S';
  int ppid = 1;
  int pgrp = 1;               ///< field 5 (and the session, field 6)
  unsigned long flags = 0;    ///< field 9, PF_*
  int cpu = 0;                ///< field 39, processor
  unsigned rt_priority = 0;   ///< field 40
  int policy = 0;             ///< field 41
};

/// A /proc/PID/task/TID/stat line as fs/proc/array.c prints it (52 fields, nice 0).
inline std::string StatLine(const StatFields& f) {
  std::string s = std::to_string(f.tid) + " (" + f.comm + ") " + f.state + " " + std::to_string(f.ppid) + " " +
                  std::to_string(f.pgrp) + " " + std::to_string(f.pgrp) + " 0 -1 " + std::to_string(f.flags);
  for (int n = 10; n <= 38; ++n) s += " " + std::to_string(n == 19 ? 0 : n * 3);
  s += " " + std::to_string(f.cpu) + " " + std::to_string(f.rt_priority) + " " + std::to_string(f.policy);
  for (int n = 42; n <= 52; ++n) s += " 0";
  return s + "\n";
}

/// An irqbalance process (one thread) added to a fixture tree, as the kernel shows it: its
/// main thread's task/PID/stat, which a walk of the threads reads, and proc/PID/stat.
template <class Tree>
void PutIrqbalanceProcess(const Tree& tree, int pid) {
  const std::string line = StatLine({.tid = pid, .comm = "irqbalance", .pgrp = pid});
  tree.Put(kpath::TaskStat(pid, pid), line);
  tree.Put(kpath::ProcStat(pid), line);
}

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

