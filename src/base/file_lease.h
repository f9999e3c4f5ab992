// A lease on kernel control files in one directory (tracefs, /proc/sys/fs/mqueue): what a
// command changes for its run and puts back exactly, on every exit path (STYLE.md, "Held
// resources are leases"). Every read and write goes through the SysRoot it was taken on.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// A lease on control files under one directory. Take() remembers each file's value; Set()
/// writes a new one; Restore() (and the destructor, on every exit path) writes back the
/// remembered value of every file Set() touched, in the order the files were taken (a tracer
/// listed first stops before its parameters move).
class FileLease {
 public:
  /// Reads `files` (names relative to `dir`: kernel_paths.h's kCurrentTracer..., or
  /// "msgsize_max" under proc/sys/fs/mqueue). A file that does not exist is not leased
  /// (hwlat_detector/mode before Linux 5.14); one that exists but cannot be read is an error,
  /// and nothing is leased.
  static Result<FileLease> Take(SysRoot& root, std::string dir, const std::vector<std::string>& files);

  FileLease(FileLease&& other) noexcept;
  FileLease& operator=(FileLease&&) = delete;
  FileLease(const FileLease&) = delete;
  FileLease& operator=(const FileLease&) = delete;
  ~FileLease();

  /// True when `file` was found and leased.
  bool Has(const std::string& file) const;
  /// The value `file` held when taken ("" when not leased): trimmed, and for a choice file
  /// ("none [round-robin] per-cpu") the selected choice.
  std::string Saved(const std::string& file) const;
  /// Writes `value` to a leased file. The file counts as changed even when the write fails
  /// (a partial write is possible), so Restore() writes it back too.
  Result<void> Set(const std::string& file, const std::string& value);
  /// Writes every changed file that does not already read its old value back, in lease
  /// order; a write the kernel refuses (hwlat's width above its window) is tried once more
  /// after the rest. The error names every file left changed and the value it should hold.
  /// Runs once.
  Result<void> Restore();

 private:
  FileLease(SysRoot& root, std::string dir) : root_(&root), dir_(std::move(dir)) {}
  std::string Path(const std::string& file) const { return dir_ + "/" + file; }
  struct Saved_ {
    std::string file;
    std::string value;
    bool changed = false;
  };
  SysRoot* root_ = nullptr;
  std::string dir_;
  std::vector<Saved_> saved_;
  bool restored_ = false;
};

}  // namespace rtagent
