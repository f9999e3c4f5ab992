// The scheduling seam on the running system: sched_getattr/sched_setattr and
// sched_getaffinity/sched_setaffinity, per thread id.
#pragma once

#include <memory>

#include "base/sysroot.h"
#include "tune/sched_syscalls.h"

namespace rtagent {

/// The running system: syscall(SYS_sched_getattr/SYS_sched_setattr) (glibc in Debian 12 has no
/// wrapper) and sched_{get,set}affinity. `root` must be live; it is used to check that TID still
/// belongs to PID (proc/PID/task/TID), so a reused thread id is never touched.
std::unique_ptr<SchedSyscalls> MakeLiveSchedSyscalls(const SysRoot& root);

}  // namespace rtagent
