// A test double for the one door: a directory tree that records every write and fails
// chosen paths with a chosen errno, as the kernel does (EIO for a per-CPU IRQ, EBUSY for a
// partition, EINVAL for a CPU outside a cgroup's cpuset).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/sysroot.h"

namespace rtagent {

/// FsRoot over a scratch directory, with errno injection and a write log. Never live:
/// IsLive() is false even for "/", so no code under test reaches real processes.
class FaultRoot : public FsRoot {
 public:
  explicit FaultRoot(std::string dir) : FsRoot(std::move(dir)) {}

  /// Every later Write() to `path` fails with `err` (after `after_ok` successful writes).
  void FailWrites(const std::string& path, int err, int after_ok = 0);
  /// Every later Read() of `path` fails with `err`.
  void FailReads(const std::string& path, int err);
  /// Writes that reached the tree, in order: (path, value).
  const std::vector<std::pair<std::string, std::string>>& writes() const { return writes_; }

  /// One write asked of the root, of any kind: a kernel file (Write), a whole file of
  /// rtagent's own (WriteDurable: the journal, a boot file, a new cgroup's files) or a removal.
  struct Call {
    enum Kind { kWrite, kDurable, kRemove } kind;
    std::string path;
  };
  /// Every write asked for, failed ones included, in order: what "write number k" counts.
  const std::vector<Call>& calls() const { return calls_; }
  /// Write number `k` (1-based, counted over calls()) fails with `err`; the writes before and
  /// after it go through, so a rollback after the failure reaches the tree.
  void FailNthWrite(size_t k, int err);
  /// How a process dies at write number k (CrashAtWrite).
  enum class Crash {
    kBefore,    ///< SIGKILL before the write: nothing of it reached the tree
    kTornTemp,  ///< a WriteDurable only: its temporary file holds the first half of the contents,
                ///< not renamed (a power cut before the fsync), then SIGKILL
  };
  /// Raises SIGKILL at write number `k`, as `how` says. Only for a forked child: the test's
  /// parent waits for it and looks at the tree it left. Production code has no such hook.
  void CrashAtWrite(size_t k, Crash how);

  Result<std::string> Read(const std::string& path) const override;
  Result<void> Write(const std::string& path, const std::string& value) override;
  Result<void> WriteDurable(const std::string& path, const std::string& contents) override;
  Result<void> Remove(const std::string& path) override;
  bool IsLive() const override { return false; }

 private:
  struct WriteFault {
    int err;
    int ok_left;
  };
  std::map<std::string, WriteFault> write_faults_;
  std::map<std::string, int> read_faults_;
  std::vector<std::pair<std::string, std::string>> writes_;
  std::vector<Call> calls_;
  size_t fail_at_ = 0;
  int fail_err_ = 0;
  size_t crash_at_ = 0;
  Crash crash_how_ = Crash::kBefore;
  /// Counts a write about to be made, crashing or failing it as set; an error when it fails.
  Result<void> Count(Call::Kind kind, const std::string& path, const std::string& contents);
};

/// A scratch directory removed (recursively) on destruction; optionally a copy of a tree.
class TempTree {
 public:
  /// An empty scratch directory.
  TempTree();
  /// A scratch copy of `source` (a fixture under tests/sysroots/).
  explicit TempTree(const std::string& source);
  ~TempTree();
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& dir() const { return dir_; }
  /// Creates parent directories and writes `contents` to dir()/rel.
  void Put(const std::string& rel, const std::string& contents) const;
  /// Contents of dir()/rel ("" when missing).
  std::string Get(const std::string& rel) const;

 private:
  std::string dir_;
};

}  // namespace rtagent
