#include "tune/cgroup_backend.h"

#include "tune/file_cgroup_backend.h"
#include "tune/libcgroup_backend.h"

namespace rtagent {

CgroupFactory DefaultCgroupFactory() {
  return [](const SysRoot& reads, SysRoot* writes, const CpusetHierarchy& h) -> Result<std::unique_ptr<CgroupBackend>> {
    if (reads.IsLive() && (writes == nullptr || writes->IsLive())) return MakeLibcgroupBackend(reads, writes, h);
    return std::unique_ptr<CgroupBackend>(std::make_unique<FileCgroupBackend>(reads, writes, h));
  };
}

}  // namespace rtagent
