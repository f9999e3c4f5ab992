// Whom rtagent trusts with the files that decide what it does as root: a profile, the files it
// includes, a check suite file, the journal it reverts from. Anyone who can change one of them
// controls the kernel's tuning (and, through a journal's boot entries, the boot loader), so as
// root they must be as safe as sudo's sudoers or sshd's authorized_keys: owned by root, and
// neither the file nor any directory above it writable by another user.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace rtagent {

/// The rule a file is held to before rtagent acts on it.
struct FileTrust {
  /// False: every file is taken (rtagent does not run as root, or --allow-unsafe-profile).
  bool enforce = false;
  /// The one owner trusted besides root (uid 0): 0 in production. A test sets its own uid, so
  /// that the files it creates stand for root's.
  uid_t owner = 0;

  /// The rule for this process: enforced when it runs as root (effective uid 0), unless
  /// `allow_unsafe` (--allow-unsafe-profile).
  static FileTrust ForThisProcess(bool allow_unsafe);
};

/// The rule this process holds its files to: main sets it once, from the effective uid and
/// --allow-unsafe-profile, before any file is read; until then (unit tests) nothing is enforced.
/// The profile loader, the suite loader and the journal ask it, so no caller can forget it.
const FileTrust& ProcessFileTrust();
/// Sets ProcessFileTrust() (main; a test that exercises the rule, restoring it after).
void SetProcessFileTrust(const FileTrust& trust);

/// Why a file is not safe to act on as root, and how to make it so.
struct Untrusted {
  std::string message;  ///< names the file or directory and the permission that lets others in
  std::string hint;     ///< the chown or chmod that fixes it
};

/// Checks `path` and every directory above it, up to "/", both as written (a symbolic link's
/// owner counts: whoever owns it can point it elsewhere) and as resolved (the file the link
/// leads to). Each must be owned by root (or trust.owner), must not be writable by every user,
/// and may be writable by its group only when the group is root's (gid 0). A sticky directory
/// owned by root (/tmp) may be writable by everyone: only an entry's owner may rename or
/// remove it, and that entry is checked in turn. nullopt when the file is safe, when
/// !trust.enforce, or when `path` does not exist (opening it reports that).
std::optional<Untrusted> FindUntrusted(const std::string& path, const FileTrust& trust);

}  // namespace rtagent
