// Test support: what a directory tree holds, to prove a command wrote nothing (or exactly
// what it should), and the live IRQ a host test may move and put back.
#pragma once

#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/kernel_paths.h"
#include "base/sysroot.h"

namespace rtagent::test {

/// Every regular file under `top` with its contents, keyed by the path relative to `top`.
/// With `with_dirs`, each directory too ("dir/" -> ""), so a created or removed empty
/// directory shows. Paths starting with `skip` (e.g. "run", rtagent's own files) are left out.
inline std::map<std::string, std::string> SnapshotTree(const std::string& top, bool with_dirs = false,
                                                       const std::string& skip = "") {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(top); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = fs::relative(it->path(), top).string();
    if (!skip.empty() && rel.rfind(skip, 0) == 0) continue;
    if (it->is_directory()) {
      if (with_dirs) out[rel + "/"] = "";
      continue;
    }
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out[rel] = ss.str();
  }
  return out;
}

/// The files and directories that differ between two trees, rtagent's own run/ aside.
inline std::vector<std::string> TreeDiff(const std::string& a, const std::string& b) {
  auto fa = SnapshotTree(a, true, "run"), fb = SnapshotTree(b, true, "run");
  std::vector<std::string> diff;
  for (const auto& [k, v] : fa) {
    auto it = fb.find(k);
    if (it == fb.end() || it->second != v) diff.push_back(k);
  }
  for (const auto& [k, v] : fb) {
    if (!fa.count(k)) diff.push_back(k);
  }
  return diff;
}

/// On the live system: the first IRQ (not 0) whose smp_affinity_list reads `all_cpus` and
/// takes a write of its own value, with that value; nullopt when there is none.
inline std::optional<std::pair<int, std::string>> FindMovableIrq(SysRoot& live, const std::string& all_cpus) {
  auto names = live.List(kpath::kProcIrqDir);
  if (!names) return std::nullopt;
  for (const auto& n : *names) {
    if (n.find_first_not_of("0123456789") != std::string::npos || n == "0") continue;
    const std::string p = kpath::ProcIrqFile(std::stoi(n), kpath::kIrqSmpAffinityList);
    auto a = live.ReadTrimmed(p);
    if (a && *a == all_cpus && live.Write(p, *a)) return std::make_pair(std::stoi(n), *a);
  }
  return std::nullopt;
}

/// While it lives, this process may write files only up to `bytes` (RLIMIT_FSIZE), and a write
/// past that fails with EFBIG instead of raising SIGXFSZ: a full disk as write(2) reports it, to
/// callers that see an errno. Keep its scope to the call under test (Catch2 writes too).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &was_);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGXFSZ, &ignore, &old_action_);
    struct rlimit small = was_;
    small.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &small);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &was_);
    ::sigaction(SIGXFSZ, &old_action_, nullptr);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  struct rlimit was_ {};
  struct sigaction old_action_ {};
};

}  // namespace rtagent::test
