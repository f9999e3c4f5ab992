// The kernel command line a profile needs, rendered into the board's boot loader
// configuration: a GRUB drop-in, extlinux.conf's APPEND line (Jetson, U-Boot boards), the
// Raspberry Pi's cmdline.txt, a systemd-boot (BLS) entry's options line, or printed.
// Pure text functions: the cores tuner reads the file, these compute the new text, the
// executor writes it (journaled) like any other change.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "profile/model.h"

namespace rtagent {

/// Kernel parameters rtagent manages: an existing occurrence of any of them in a boot file is
/// replaced, so removing a setting from the profile removes it from the boot file too.
extern const std::vector<std::string> kManagedBootKeys;

/// "isolcpus=nohz,2-3" -> "isolcpus"; "rcu_nocb_poll" -> "rcu_nocb_poll".
std::string BootArgKey(std::string_view arg);

/// `line`'s whitespace-separated arguments with every managed key (and every key of `args`)
/// removed, then `args` appended. Quoted values are kept whole.
std::string MergeBootArgs(std::string_view line, const std::vector<std::string>& args);

/// A GRUB drop-in for /etc/default/grub.d/ (sourced by update-grub on Debian and Ubuntu).
std::string RenderGrubDropIn(const std::vector<std::string>& args, const std::string& profile_path);

/// extlinux.conf with the APPEND line of the entry labelled `label` merged (the DEFAULT
/// entry when `label` is empty, else the first LABEL). Error when there is no such entry or
/// it has no APPEND line.
Result<std::string> EditExtlinux(std::string_view text, const std::vector<std::string>& args, const std::string& label);

/// A Raspberry Pi cmdline.txt: one line, merged.
std::string EditCmdlineTxt(std::string_view text, const std::vector<std::string>& args);

/// A BLS entry (Boot Loader Specification type #1) with its "options" line merged, or
/// added when it has none.
std::string EditBlsEntry(std::string_view text, const std::vector<std::string>& args);

/// The boot loader of the system under `root` when the profile says auto: cmdline.txt
/// (Raspberry Pi), extlinux.conf, a GRUB configuration, BLS entries, else print.
profile::BootloaderType DetectBootloader(const SysRoot& root);

}  // namespace rtagent
