#include "inspect/boot_files.h"

#include "base/kernel_paths.h"

namespace rtagent {

// init_priority: made before every other file's initialisers, as for the kernel paths
// (base/kernel_paths.h), so a table built from them at start (fuzz/bootfile_fuzz.cc's kinds)
// sees them made, as it did when they were inline variables in the header.
namespace bootpath {
const std::string kGrubDefault __attribute__((init_priority(101))) = "etc/default/grub";
const std::string kGrubDropInDir __attribute__((init_priority(101))) = "etc/default/grub.d";
const std::string kGrubDropIn __attribute__((init_priority(101))) = "etc/default/grub.d/90-rtagent.cfg";
const std::string kGrubCfg __attribute__((init_priority(101))) = "boot/grub/grub.cfg";
const std::string kGrub2Dir __attribute__((init_priority(101))) = "boot/grub2";
const std::vector<std::string> kGrubenv __attribute__((init_priority(101))) = {"boot/grub2/grubenv", "boot/grub/grubenv"};
const std::string kExtlinux __attribute__((init_priority(101))) = "boot/extlinux/extlinux.conf";
const std::string kRpiCmdline __attribute__((init_priority(101))) = "boot/firmware/cmdline.txt";
const std::string kRpiCmdlineOld __attribute__((init_priority(101))) = "boot/cmdline.txt";
const std::vector<std::string> kLoaderDirs __attribute__((init_priority(101))) = {"boot/loader", "efi/loader", "boot/efi/loader"};
const std::string kKernelCmdline __attribute__((init_priority(101))) = "etc/kernel/cmdline";
}  // namespace bootpath

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
