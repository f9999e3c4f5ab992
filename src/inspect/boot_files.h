// The files that carry a board's kernel command line, for each boot loader rtagent knows
// (tune/bootloader.h edits them), and reading them all: `rtagent capture` copies them, so a
// captured board replays its boot configuration under --root.
#pragma once

#include <string>
#include <vector>

#include "base/sysroot.h"

namespace rtagent {

/// The boot files rtagent knows, relative to the system root (capture copies them, detection
/// looks for them). Not kernel interfaces: the boot loaders' own files. Defined once, in
/// boot_files.cc: an inline string here was built again by the start-up code of every file that
/// includes this header (docs/performance.md, "A static rtagent").
namespace bootpath {
extern const std::string kGrubDefault;  // "etc/default/grub"
extern const std::string kGrubDropInDir;  // "etc/default/grub.d"
extern const std::string kGrubDropIn;  // "etc/default/grub.d/90-rtagent.cfg"
extern const std::string kGrubCfg;  // "boot/grub/grub.cfg" (Debian's update-grub writes it)
extern const std::string kGrub2Dir;  // "boot/grub2" (Fedora, RHEL, SUSE)
extern const std::vector<std::string> kGrubenv;  // {"boot/grub2/grubenv", "boot/grub/grubenv"}
extern const std::string kExtlinux;  // "boot/extlinux/extlinux.conf"
extern const std::string kRpiCmdline;  // "boot/firmware/cmdline.txt" (Raspberry Pi OS Bookworm and later)
extern const std::string kRpiCmdlineOld;  // "boot/cmdline.txt" (older releases)
/// Where systemd-boot's loader.conf and the BLS entries live: the ESP or XBOOTLDR mounted at
/// /boot, /efi or /boot/efi (the Boot Loader Specification's $BOOT).
extern const std::vector<std::string> kLoaderDirs;  // {"boot/loader", "efi/loader", "boot/efi/loader"}
extern const std::string kKernelCmdline;  // "etc/kernel/cmdline" (kernel-install reads it)
}  // namespace bootpath

/// Reads every boot loader file of bootpath under `root` that exists (the directories of
/// drop-ins and BLS entries listed, each *.cfg and *.conf read, and systemd-boot's EFI
/// variables), so a RecordingRoot copies them. Returns the root-relative paths read.
std::vector<std::string> ReadBootFiles(const SysRoot& root);

}  // namespace rtagent
