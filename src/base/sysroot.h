// The one door to the kernel: every read and write of /proc, /sys, /dev, tracefs and /run.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace rtagent {

/// A lock on a file under a root, held while the object lives (SysRoot::TryLock).
class RootLock {
 public:
  virtual ~RootLock() = default;
};

/// Access to the system's kernel interfaces under a root directory (`--root DIR`, "/" on a
/// live system). Paths given to it are relative to that root ("proc/cmdline"), and are built
/// only by the helpers in base/kernel_paths.h, so no other code spells a kernel path.
/// Tests use a fixture tree under tests/sysroots/ or a subclass that injects errors.
class SysRoot {
 public:
  virtual ~SysRoot() = default;

  /// Whole contents of a file. ENOENT when missing; the errno of the read otherwise.
  virtual Result<std::string> Read(const std::string& path) const = 0;
  /// Names in a directory, sorted, without "." and "..".
  virtual Result<std::vector<std::string>> List(const std::string& path) const = 0;
  /// Target of a symbolic link.
  virtual Result<std::string> ReadLink(const std::string& path) const = 0;
  virtual bool Exists(const std::string& path) const = 0;
  virtual bool IsDir(const std::string& path) const = 0;
  /// Writes `value` to an existing file as the kernel expects: one write(2) call, no
  /// truncation games, the kernel's errno returned (EIO for an IRQ that cannot move).
  virtual Result<void> Write(const std::string& path, const std::string& value) = 0;

  /// Writes a whole file of rtagent's own (a journal, a state file) durably: parent
  /// directories created, contents written to a temporary file, fsync, rename over the
  /// target, fsync of the directory. A crash leaves either the old or the new file.
  virtual Result<void> WriteDurable(const std::string& path, const std::string& contents);
  /// Removes a file of rtagent's own; a missing file is not an error.
  virtual Result<void> Remove(const std::string& path);

  /// Takes, without waiting, the exclusive lock of a file of rtagent's own (made with its
  /// directories when missing), writing `note` into it for whoever finds it taken. The lock
  /// lasts as long as the returned object; dropping it removes the file and the directories it
  /// made. Taken elsewhere: an Error with errno EWOULDBLOCK whose message is the holder's note.
  /// A root that is no directory of this machine's shares nothing with another process, and
  /// its lock is always free.
  virtual Result<std::unique_ptr<RootLock>> TryLock(const std::string& path, const std::string& note);

  /// The directory this root stands for ("/" when live).
  virtual std::string Dir() const = 0;
  /// True when this is the running system, so syscalls (sched_setattr, ...) may reach it.
  /// Under --root DIR it is false and nothing may touch live processes.
  virtual bool IsLive() const = 0;

  /// Read() with surrounding whitespace and the trailing newline removed.
  Result<std::string> ReadTrimmed(const std::string& path) const;
  /// Read() of a file holding one integer.
  Result<long long> ReadInt(const std::string& path) const;
  /// The host path of a root-relative path: Dir() joined to it with one '/'. The one place a
  /// root and a path are joined, for messages and for the files rtagent opens itself.
  std::string HostPath(const std::string& path) const;
};

/// SysRoot over a directory of the local file system.
class FsRoot : public SysRoot {
 public:
  explicit FsRoot(std::string dir);
  Result<std::string> Read(const std::string& path) const override;
  Result<std::vector<std::string>> List(const std::string& path) const override;
  Result<std::string> ReadLink(const std::string& path) const override;
  bool Exists(const std::string& path) const override;
  bool IsDir(const std::string& path) const override;
  Result<void> Write(const std::string& path, const std::string& value) override;
  Result<void> WriteDurable(const std::string& path, const std::string& contents) override;
  Result<void> Remove(const std::string& path) override;
  Result<std::unique_ptr<RootLock>> TryLock(const std::string& path, const std::string& note) override;
  std::string Dir() const override { return dir_; }
  bool IsLive() const override { return dir_ == "/"; }

 private:
  std::string dir_;
};

/// True when `path` (relative to "/", as a SysRoot takes it) names a kernel file that shows
/// all it holds in one read(2) of a buffer large enough: it has one show() and no records
/// after it (procfs's single_open and sysctl handlers; a sysfs attribute, at most a page).
/// The live FsRoot then skips the read that would return 0 (issue 19: on a 20,000-thread
/// server, a read per thread's stat). Named by kernel source, not guessed from a short read:
/// a seq_file of many records (/proc/interrupts, cgroup.procs, /proc/PID/maps) hands out a
/// page of them per read, and any file of debugfs or tracefs may do the same. The trees and
/// files are listed in base/kernel_paths.h (kOneShowTrees, kOneShowTaskFiles).
bool KernelShowsWholeInOneRead(std::string_view path);

/// Writes a whole file at a host path so that a crash leaves the old or the new file, never
/// a part: contents to PATH.tmp.PID, fsync, rename over PATH, fsync of the directory. The
/// directory must exist. Used for the journal (through SysRoot::WriteDurable) and for reports.
Result<void> WriteFileAtomic(const std::string& path, const std::string& contents);

/// Opens the root named by --root (an existing directory), or the live system for "/".
Result<std::unique_ptr<SysRoot>> OpenRoot(const std::string& dir);

}  // namespace rtagent
