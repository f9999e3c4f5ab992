// The cgroup backend on the running system, through libcgroup.
#pragma once

#include <memory>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/cgroup_backend.h"

namespace rtagent {

/// The live backend: cgroup_init, cgroup_create_cgroup, cgroup_modify_cgroup with
/// cgroup_set_value_string, cgroup_get_cgroup/cgroup_get_value_string,
/// cgroup_change_cgroup_path (every thread of a process) and cgroup_delete_cgroup (tasks
/// migrate to the parent). The cgroup core files (cgroup.subtree_control) go through the
/// root. libcgroup's ECGOTHER is turned back into the kernel's errno, so known refusals
/// (EINVAL, EBUSY, ENOSPC) stay recognisable. EINVAL when `reads` is not the running system.
Result<std::unique_ptr<CgroupBackend>> MakeLibcgroupBackend(const SysRoot& reads, SysRoot* writes, CpusetHierarchy h);

}  // namespace rtagent
