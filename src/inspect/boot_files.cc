#include "inspect/boot_files.h"

#include "base/kernel_paths.h"

namespace rtagent {

std::vector<std::string> ReadBootFiles(const SysRoot& root) {
  std::vector<std::string> read;
  auto file = [&](const std::string& path) {
    if (root.Exists(path) && !root.IsDir(path) && root.Read(path)) read.push_back(path);
  };
  // Every file of `dir` ending in `suffix` (the drop-ins grub-mkconfig sources, BLS entries).
  auto dir = [&](const std::string& path, const std::string& suffix) {
    if (!root.IsDir(path)) return;
    auto names = root.List(path);
    if (!names) return;
    for (const auto& n : *names)
      if (n.ends_with(suffix)) file(path + "/" + n);
  };
  file(bootpath::kGrubDefault);
  dir(bootpath::kGrubDropInDir, ".cfg");
  file(bootpath::kGrubCfg);
  file(bootpath::kGrub2Dir + "/grub.cfg");
  for (const auto& env : bootpath::kGrubenv) file(env);
  file(bootpath::kExtlinux);
  file(bootpath::kRpiCmdline);
  file(bootpath::kRpiCmdlineOld);
  for (const auto& loader : bootpath::kLoaderDirs) {
    file(loader + "/loader.conf");
    dir(loader + "/entries", ".conf");
  }
  file(bootpath::kKernelCmdline);
  file(kpath::SystemdBootEfiVar("LoaderEntryDefault"));
  file(kpath::SystemdBootEfiVar("LoaderEntryLastBooted"));
  return read;
}

}  // namespace rtagent
