// A SysRoot decorator that copies everything read through it into a directory: the
// mechanism behind `rtagent capture`, and a list of the files a command reads (bench).
#pragma once

#include <string>
#include <vector>

#include "base/sysroot.h"

namespace rtagent {

/// Forwards every read to `source` and mirrors each successful one under `out_dir`, so that
/// `--root out_dir` later answers the same reads the same way:
///   - Read: the bytes are written to out_dir/path (parents created);
///   - List: the directory is created (its entries appear as they are read);
///   - ReadLink: a symbolic link with the same target (an absolute target is made relative
///     to out_dir, so the copy never points back into the live system).
/// Exists and IsDir are forwarded and not recorded: callers that want a fact captured must
/// Read or List it. Write always fails with EROFS: recording never changes the source.
/// A copy that fails (disk full, a path that would leave out_dir) does not fail the read;
/// it is kept in CopyErrors() for the caller to report.
class RecordingRoot : public SysRoot {
 public:
  RecordingRoot(const SysRoot& source, std::string out_dir);

  Result<std::string> Read(const std::string& path) const override;
  Result<std::vector<std::string>> List(const std::string& path) const override;
  Result<std::string> ReadLink(const std::string& path) const override;
  bool Exists(const std::string& path) const override { return source_.Exists(path); }
  bool IsDir(const std::string& path) const override { return source_.IsDir(path); }
  Result<void> Write(const std::string& path, const std::string& value) override;
  std::string Dir() const override { return source_.Dir(); }
  bool IsLive() const override { return source_.IsLive(); }

  /// Root-relative paths of the files copied, in the order they were first read.
  const std::vector<std::string>& Files() const { return files_; }
  /// Copies that failed, one message each (empty when the capture is complete).
  const std::vector<std::string>& CopyErrors() const { return copy_errors_; }

 private:
  /// out_dir_/path after checking that `path` stays inside out_dir_ (no "..").
  bool Target(const std::string& path, std::string* host) const;
  void MakeDirs(const std::string& host_dir) const;

  const SysRoot& source_;
  std::string out_dir_;
  // Recording is a side effect of const reads, as a cache would be.
  mutable std::vector<std::string> files_;
  mutable std::vector<std::string> copy_errors_;
};

}  // namespace rtagent
