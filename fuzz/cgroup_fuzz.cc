// Cgroup files (inspect/cgroups.h, tune/cpuset_hierarchy.h, tune/file_cgroup_backend.h):
// /proc/mounts, cpuset.cpus.partition and the cpuset tree inspect walks, the hierarchy the
// partitions tuner picks, and /proc/PID/cgroup. Input: the mounts file, then files, each
// "PATH\nCONTENTS" (PATH root-relative), after the separator.
#include "base/kernel_paths.h"
#include "fuzz/fuzz_support.h"
#include "inspect/cgroups.h"
#include "tune/cpuset_hierarchy.h"
#include "tune/file_cgroup_backend.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto files = fuzz::SplitFiles(fuzz::Text(data, size));
  fuzz::MemRoot root;
  root.files[kpath::kMounts] = files[0];
  for (size_t i = 1; i < files.size(); ++i) {
    const std::string& f = files[i];
    const size_t nl = f.find('\n');
    if (nl == std::string::npos || nl == 0) continue;
    root.files[f.substr(0, nl)] = f.substr(nl + 1);
  }
  (void)ParsePartition(files[0]);
  const std::vector<Mount> mounts = ParseMounts(files[0]);
  (void)CgroupV2Mount(mounts);
  (void)CollectCgroups(root, mounts);
  if (auto h = FindCpusetHierarchy(root)) {
    FileCgroupBackend backend(root, nullptr, *h);
    (void)backend.CgroupOf(1);
    (void)backend.Exists("/rt");
    (void)backend.Get("/rt", h->Cpuset(kpath::kCpusetCpus));
  }
  return 0;
}
