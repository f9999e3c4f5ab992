// tracefs for the code that drives a kernel tracer or event (the hwlat check, the
// priority-inversion evidence): where it is mounted, the tracers it offers, and a lease on its
// control files that puts back exactly what it changed (STYLE.md, "Held resources are
// leases"). Documentation/trace/ftrace.rst.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// The tracefs directory under `root`: sys/kernel/tracing, else the older
/// sys/kernel/debug/tracing, whichever holds available_tracers. Never mounts anything; the
/// error says neither is mounted.
Result<std::string> FindTracefs(const SysRoot& root);

/// The tracers the kernel was built with (available_tracers: "hwlat blk function nop").
Result<std::vector<std::string>> AvailableTracers(const SysRoot& root, const std::string& tracefs);

/// A lease on tracefs control files. Take() remembers each file's value; Set() writes a new
/// one; Restore() (and the destructor, on every exit path) writes back the remembered value
/// of every file Set() touched, the tracer first so that it stops before its parameters move.
class TracefsLease {
 public:
  /// Reads `files` (names relative to `tracefs`, kernel_paths.h's kCurrentTracer...). A file
  /// that does not exist is not leased (hwlat_detector/mode before Linux 5.14); one that exists but
  /// cannot be read is an error, and nothing is leased.
  static Result<TracefsLease> Take(SysRoot& root, std::string tracefs, const std::vector<std::string>& files);

  TracefsLease(TracefsLease&& other) noexcept;
  TracefsLease& operator=(TracefsLease&&) = delete;
  TracefsLease(const TracefsLease&) = delete;
  TracefsLease& operator=(const TracefsLease&) = delete;
  ~TracefsLease();

  /// True when `file` was found and leased.
  bool Has(const std::string& file) const;
  /// The value `file` held when taken ("" when not leased): trimmed, and for a choice file
  /// ("none [round-robin] per-cpu") the selected choice.
  std::string Saved(const std::string& file) const;
  /// Writes `value` to a leased file. The file counts as changed even when the write fails
  /// (a partial write is possible), so Restore() writes it back too.
  Result<void> Set(const std::string& file, const std::string& value);
  /// Writes every changed file that does not already read its old value back: the tracer
  /// first, then the others in lease order; a write
  /// the kernel refuses (hwlat's width above its window) is tried once more after the rest.
  /// The error names every file left changed and the value it should hold. Runs once.
  Result<void> Restore();

 private:
  TracefsLease(SysRoot& root, std::string tracefs) : root_(&root), tracefs_(std::move(tracefs)) {}
  struct Saved_ {
    std::string file;
    std::string value;
    bool changed = false;
  };
  SysRoot* root_ = nullptr;
  std::string tracefs_;
  std::vector<Saved_> saved_;
  bool restored_ = false;
};

}  // namespace rtagent
