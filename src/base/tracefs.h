// tracefs for the code that drives a kernel tracer or event (the hwlat check, the
// priority-inversion evidence): where it is mounted, the tracers it offers, and a lease on its
// control files that puts back exactly what it changed (STYLE.md, "Held resources are
// leases"). Documentation/trace/ftrace.rst.
#pragma once

#include <string>
#include <vector>

#include "base/file_lease.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// The tracefs directory under `root`: sys/kernel/tracing, else the older
/// sys/kernel/debug/tracing, whichever holds available_tracers. Never mounts anything; the
/// error says neither is mounted.
Result<std::string> FindTracefs(const SysRoot& root);

/// The tracers the kernel was built with (available_tracers: "hwlat blk function nop").
Result<std::vector<std::string>> AvailableTracers(const SysRoot& root, const std::string& tracefs);

/// A lease on tracefs control files (FileLease with the tracefs directory as its `dir`);
/// callers list current_tracer first so that the tracer stops before its parameters move back.
using TracefsLease = FileLease;

}  // namespace rtagent
