#include "base/file_trust.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace rtagent {
namespace {

namespace fs = std::filesystem;

std::string Mode(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

std::string UserName(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  std::string name = "uid " + std::to_string(uid);
  return pw != nullptr ? name + " (" + pw->pw_name + ")" : name;
}

std::string GroupName(gid_t gid) {
  const group* gr = ::getgrgid(gid);
  std::string name = "group " + std::to_string(gid);
  return gr != nullptr ? name + " (" + gr->gr_name + ")" : name;
}

// "/a/b/c" -> "/a/b/c", "/a/b", "/a", "/".
std::vector<std::string> SelfAndParents(const fs::path& p) {
  std::vector<std::string> out;
  for (fs::path at = p; !at.empty(); at = at.parent_path()) {
    out.push_back(at.string());
    if (at == at.root_path()) break;
  }
  return out;
}

// One file or directory against the rule; `file` is the profile (or journal) it guards.
std::optional<Untrusted> Judge(const std::string& at, const struct stat& st, const std::string& file,
                               const FileTrust& trust) {
  const std::string what = at == file ? at : "the directory " + at + " (above " + file + ")";
  if (st.st_uid != 0 && st.st_uid != trust.owner) {
    return Untrusted{what + " is owned by " + UserName(st.st_uid) +
                         ", not root: that user can change what rtagent does as root",
                     "chown root:root " + at + " (or run rtagent with --allow-unsafe-profile if you trust that user)"};
  }
  if (S_ISLNK(st.st_mode)) return std::nullopt;  // a link's own mode means nothing; its owner does
  // Owned by root (or the trusted owner) as checked above.
  const bool sticky_root_dir = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0;
  if ((st.st_mode & S_IWOTH) != 0 && !sticky_root_dir) {
    return Untrusted{what + " is writable by every user (mode " + Mode(st.st_mode) + ")", "chmod o-w " + at};
  }
  if ((st.st_mode & S_IWGRP) != 0 && st.st_gid != 0 && !sticky_root_dir) {
    return Untrusted{what + " is writable by " + GroupName(st.st_gid) + " (mode " + Mode(st.st_mode) + ")",
                     "chmod g-w " + at + " (or chgrp root " + at + ")"};
  }
  return std::nullopt;
}

FileTrust& ProcessTrust() {
  static FileTrust trust;
  return trust;
}

}  // namespace

const FileTrust& ProcessFileTrust() { return ProcessTrust(); }

void SetProcessFileTrust(const FileTrust& trust) { ProcessTrust() = trust; }

FileTrust FileTrust::ForThisProcess(bool allow_unsafe) {
  FileTrust t;
  t.enforce = ::geteuid() == 0 && !allow_unsafe;
  return t;
}

std::optional<Untrusted> FindUntrusted(const std::string& path, const FileTrust& trust) {
  if (!trust.enforce) return std::nullopt;
  std::error_code ec;
  const fs::path written = fs::absolute(fs::path(path), ec).lexically_normal();
  if (ec) return std::nullopt;
  char resolved[PATH_MAX];
  if (::realpath(written.c_str(), resolved) == nullptr) return std::nullopt;  // missing: the open says so
  const std::string file = written.string();
  struct stat st;
  // As written (lstat: each link is judged by its owner), then as resolved (stat).
  for (const std::string& at : SelfAndParents(written)) {
    if (::lstat(at.c_str(), &st) != 0) continue;
    if (auto bad = Judge(at, st, file, trust)) return bad;
  }
  const std::string target = resolved;
  for (const std::string& at : SelfAndParents(fs::path(target))) {
    if (::stat(at.c_str(), &st) != 0) continue;
    if (auto bad = Judge(at, st, target, trust)) return bad;
  }
  return std::nullopt;
}

}  // namespace rtagent
