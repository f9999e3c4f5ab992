#include "tune/cpuset_hierarchy.h"

#include <cerrno>

#include "base/kernel_text.h"
#include "inspect/cgroups.h"

namespace rtagent {

Result<CpusetHierarchy> FindCpusetHierarchy(const SysRoot& root) {
  auto text = root.Read(kpath::kMounts);
  if (!text) return Wrap("cannot read the mounts to find the cpuset hierarchy: ", text.error());
  auto mounts = ParseMounts(*text);
  if (auto v2 = CgroupV2Mount(mounts)) {
    auto ctrl = root.Read(kpath::FromAbsolute(*v2) + "/" + kpath::kCgroupControllers);
    if (ctrl && HasWord(*ctrl, "cpuset")) return CpusetHierarchy{2, *v2, kpath::kCpusetPrefix};
  }
  for (const auto& m : mounts) {
    if (m.fstype == "cgroup" && m.HasOption("cpuset")) {
      return CpusetHierarchy{1, m.target, m.HasOption("noprefix") ? std::string() : kpath::kCpusetPrefix};
    }
  }
  return Error{"no cpuset cgroup hierarchy under " + root.Dir() +
                   ": the cgroup v2 hierarchy does not offer the cpuset controller and no v1 hierarchy has it "
                   "(CONFIG_CPUSETS)",
               ENOENT};
}

}  // namespace rtagent
