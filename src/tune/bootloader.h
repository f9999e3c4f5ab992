// The kernel command line a profile needs, in the files each boot loader reads, edited the way
// its own tools expect: a GRUB drop-in read by update-grub (Debian, Ubuntu) or GRUB_CMDLINE_LINUX
// in /etc/default/grub (Fedora, RHEL, SUSE), the DEFAULT entry's APPEND line of extlinux.conf
// (U-Boot, Jetson), the one line of a Raspberry Pi's cmdline.txt, the options of a Boot Loader
// Specification entry (systemd-boot, GRUB's BLS mode) and /etc/kernel/cmdline (kernel-install).
// Pure functions of file texts: the cores tuner reads the files (boot_plan.h), these say what
// they hold and what they become, the executor writes them (journaled) like any other change.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "inspect/boot_files.h"
#include "profile/model.h"

namespace rtagent {


// ------------------------------------------------------------------------------ arguments

/// Kernel parameters rtagent manages: an existing occurrence of any of them in a boot file is
/// replaced, so removing a setting from the profile removes it from the boot file too.
const std::vector<std::string>& ManagedBootKeys();

/// "isolcpus=nohz,2-3" -> "isolcpus"; "rcu-nocbs=1" -> "rcu_nocbs" (the kernel reads '-' as '_').
std::string BootArgKey(std::string_view arg);

/// A command line's arguments, split on whitespace; "quoted values" are kept whole.
std::vector<std::string> SplitBootArgs(std::string_view line);

/// `line`'s arguments without any managed key or any key of `args`, joined by single spaces.
std::string StripBootArgs(std::string_view line, const std::vector<std::string>& args);

/// StripBootArgs(line, args), then `args` appended.
std::string MergeBootArgs(std::string_view line, const std::vector<std::string>& args);

/// `parts` joined by single spaces, empty parts left out.
std::string JoinBootArgs(const std::vector<std::string>& parts);

// ----------------------------------------------------------------------------------- GRUB

/// The two variables grub-mkconfig turns into every menu entry's arguments: 10_linux puts
/// GRUB_CMDLINE_LINUX on every entry and GRUB_CMDLINE_LINUX_DEFAULT after it on the normal
/// (non-recovery) ones.
struct GrubCmdline {
  std::string linux;          ///< GRUB_CMDLINE_LINUX
  std::string linux_default;  ///< GRUB_CMDLINE_LINUX_DEFAULT
  bool bls = false;           ///< GRUB_ENABLE_BLSCFG=true (Fedora, RHEL: entries in loader/entries)
  /// Assignments rtagent cannot evaluate ("etc/default/grub:7: GRUB_CMDLINE_LINUX=$(...)").
  std::vector<std::string> unknown;
  /// The arguments a normal entry gets from the two variables.
  std::string Args() const { return JoinBootArgs({linux, linux_default}); }
};

/// One `NAME=value` statement of a shell file, where it is and what it sets.
struct ShellAssignment {
  std::string name;
  std::string value;    ///< the value after quote removal and expansion of the variables known so far
  bool known = true;    ///< false: command substitution or an unknown form; `value` is not to be trusted
  size_t begin = 0;     ///< byte offsets of the statement in the text
  size_t end = 0;
  int line = 0;         ///< 1-based
  bool exported = false;  ///< the statement begins with the `export` keyword
};

/// The plain assignments of a file that grub-mkconfig sources as shell: `[export] NAME=WORD`
/// at the start of a line, WORD made of '...', "..." (with \ escapes) and bare characters,
/// $NAME and ${NAME} expanded from `vars` (updated as it goes: a later line sees an earlier
/// one). Anything else (if, for, functions, commands) is skipped: an assignment inside an `if`
/// counts as if it always ran.
std::vector<ShellAssignment> ParseShellAssignments(std::string_view text, std::map<std::string, std::string>* vars);

/// What GRUB's variables are after sourcing `text` (named `name` in messages) on top of `vars`.
void SourceGrubFile(std::string_view text, const std::string& name, GrubCmdline* vars);

/// The Debian/Ubuntu drop-in for /etc/default/grub.d/ (grub-mkconfig sources /etc/default/grub,
/// then /etc/default/grub.d/*.cfg). `before` holds the variables as the files sourced before it
/// leave them. A variable that carries a managed argument (or one of `args`' keys) is redefined
/// from that value without it, so the boot line carries each argument once; the profile's
/// arguments are then added to GRUB_CMDLINE_LINUX (every entry, recovery included).
std::string RenderGrubDropIn(const GrubCmdline& before, const std::vector<std::string>& args,
                             const std::string& profile_path);

/// /etc/default/grub edited in place (Fedora, RHEL, SUSE have no grub.d): the last assignment
/// of GRUB_CMDLINE_LINUX gets `args` (managed ones replaced), GRUB_CMDLINE_LINUX_DEFAULT loses
/// managed arguments, every other line is kept byte for byte. An assignment rtagent cannot
/// evaluate is an error naming its line.
Result<std::string> EditGrubDefault(std::string_view text, const std::vector<std::string>& args);

// ------------------------------------------------------------------------------- extlinux

/// The entry of an extlinux.conf (U-Boot's pxe_utils, syslinux) whose APPEND line carries the
/// arguments.
struct ExtlinuxEntry {
  std::string label;
  std::string why;      ///< "DEFAULT primary", "MENU DEFAULT", "the first LABEL", "cores.bootloader.entry"
  std::string append;   ///< its APPEND arguments as written (${cbootargs} and all)
  bool has_append = false;
};

/// The entry `label` names, else the DEFAULT label, else the label marked MENU DEFAULT, else
/// the first LABEL (what U-Boot boots). Error when there is no such entry.
Result<ExtlinuxEntry> FindExtlinuxEntry(std::string_view text, const std::string& label);

/// extlinux.conf with that entry's APPEND line merged (`${cbootargs}`, which U-Boot expands from
/// the firmware's own arguments, and the other labels kept). Error when the entry has no APPEND.
Result<std::string> EditExtlinux(std::string_view text, const std::vector<std::string>& args, const std::string& label);

// ---------------------------------------------------------------------- one-line files

/// A Raspberry Pi cmdline.txt: one line, merged (the firmware reads only the first line).
std::string EditCmdlineTxt(std::string_view text, const std::vector<std::string>& args);

/// True for Bookworm's /boot/cmdline.txt, a note saying the file moved to /boot/firmware.
bool IsMovedCmdlineNote(std::string_view text);

/// What kernel-install uses when /etc/kernel/cmdline is missing: the running command line
/// without BOOT_IMAGE= and initrd= (the boot loader's own; systemd's 90-loaderentry.install).
std::string KernelInstallDefaultCmdline(std::string_view running);

// ------------------------------------------------------------------------------------ BLS

/// A Boot Loader Specification type #1 entry (loader/entries/*.conf).
struct BlsEntry {
  std::string file;        ///< the file name ("abc-6.12.0-rt.conf")
  std::string title, version, linux, sort_key, machine_id;
  std::string options;     ///< every options line, joined
  /// A rescue entry: never edited (a board must stay recoverable with the distribution's line).
  bool Rescue() const;
  /// systemd-boot's entry id: the file name lower-cased, boot counting ("+3-1") taken out.
  std::string Id() const;
};

/// Parses an entry (keys are the first word of each line; `#` starts a comment).
BlsEntry ParseBlsEntry(const std::string& file, std::string_view text);

/// The entries in systemd-boot's menu order (src/boot/boot.c, boot_entry_compare): entries with
/// a sort-key first (by sort-key, machine-id, then version newest first), then by id, newest
/// version first.
void SortBlsEntries(std::vector<BlsEntry>* entries);

/// True when a loader.conf `default` glob (or an id from an EFI variable) names `e`: matched
/// case-insensitively against its id with and without ".conf" (systemd before 250 dropped it).
bool BlsPatternMatches(const std::string& pattern, const BlsEntry& e);

/// The entries to edit and why.
struct BlsChoice {
  std::vector<std::string> files;
  std::string why;
  std::string problem;  ///< set when nothing can be chosen (no entry, only a rescue entry, ...)
};

/// What the board boots: `override_entry` (cores.bootloader.entry, a file name or glob), else
/// `efi_default` (LoaderEntryDefault, set by `bootctl set-default`), else loader.conf's
/// `default` glob, else GRUB's `saved_entry` (grubenv; the id without .conf, or a title), each
/// the first match in menu order; else every entry of the running kernel (`running_release`).
/// Never a rescue entry. `entries` must be sorted (SortBlsEntries).
BlsChoice ChooseBlsEntries(const std::vector<BlsEntry>& entries, const std::string& override_entry,
                           const std::string& efi_default, const std::string& loader_default,
                           const std::string& saved_entry, const std::string& running_release);

/// A BLS entry with its options merged: the first options line gets `args`, later ones lose
/// managed arguments; an entry without options gets one.
std::string EditBlsEntry(std::string_view text, const std::vector<std::string>& args);

/// The `default` of a loader.conf ("" when none).
std::string LoaderConfDefault(std::string_view text);
/// The `saved_entry` of a GRUB environment block ("" when none).
std::string GrubenvSavedEntry(std::string_view text);
/// The string of a systemd-boot EFI variable file (efivarfs: 4 bytes of attributes, then
/// UTF-16LE up to a NUL), "" when it is not one.
std::string EfiVarString(std::string_view bytes);

// -------------------------------------------------------------------------------- summary

/// What plan, apply and verify say about the boot loader (the cores section's
/// SectionPlan::boot): which one and why, the files that carry the command line, the command
/// apply runs after writing them, and the command line the next boot gets.
struct BootSummary {
  std::string loader;               ///< the type used: grub, extlinux, rpi, bls, kernel-install, print
  std::string why;                  ///< "cores.bootloader: grub", or what `auto` found
  std::string how;                  ///< how it is edited ("a drop-in read by update-grub (Debian, Ubuntu)")
  std::vector<std::string> update;  ///< the command apply runs after writing; empty: none
  std::string loader_adds;          ///< what the loader itself puts first ("BOOT_IMAGE=... root=... ro")
  struct File {
    std::string path;           ///< root-relative
    bool exists = false;
    std::string role;           ///< "entry primary (DEFAULT primary)", "the drop-in", ...
    std::string cmdline_now;    ///< the arguments the next boot gets from it as it is now
    std::string cmdline_after;  ///< ... once `rtagent apply` wrote it
  };
  std::vector<File> files;
  std::string missing;  ///< set when the boot file is not there: what would be written, and where

  /// The whole command line of the next boot (the loader's own part, then the first file's),
  /// as the files are now or once apply wrote them.
  std::string NextCmdline(bool after_apply) const;
};

// ------------------------------------------------------------------------------ detection

/// The boot loader `auto` chose and what it found.
struct BootloaderGuess {
  profile::BootloaderType type = profile::BootloaderType::kPrint;
  std::string why;
};

/// The boot loader of the system under `root`, from the files present: a Raspberry Pi's
/// cmdline.txt, extlinux.conf, systemd-boot's loader.conf (kernel-install when
/// /etc/kernel/cmdline exists, else its entries), GRUB's /etc/default/grub, BLS entries alone;
/// else print.
BootloaderGuess DetectBootloader(const SysRoot& root);

/// How GRUB is configured on this system, and the step that turns the configuration into
/// what GRUB reads at boot.
enum class GrubFlavour {
  kDebian,     ///< a drop-in in /etc/default/grub.d, then update-grub
  kMkconfig,   ///< /etc/default/grub in place, then grub2-mkconfig -o /boot/grub2/grub.cfg
  kGrubby,     ///< /etc/default/grub in place (kernels installed later), grubby for the BLS default entry
};
struct GrubSystem {
  GrubFlavour flavour = GrubFlavour::kDebian;
  std::string why;
};
/// Debian when update-grub, /etc/default/grub.d or /boot/grub/grub.cfg is there (or nothing
/// says otherwise); else grub2-mkconfig's systems, with grubby when `defaults` enable BLS.
GrubSystem DetectGrubFlavour(const SysRoot& root, const GrubCmdline& defaults);

}  // namespace rtagent
