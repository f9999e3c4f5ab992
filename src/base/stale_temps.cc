#include "base/stale_temps.h"

#include <unistd.h>

#include <cerrno>

namespace rtagent {

Result<void> RemoveStaleTemps(SysRoot& root, const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string prefix = path.substr(slash == std::string::npos ? 0 : slash + 1) + ".tmp.";
  auto names = root.List(dir.empty() ? "." : dir);
  if (!names) {
    if (names.error().err == ENOENT || names.error().err == ENOTDIR) return Ok();
    return names.error();
  }
  const std::string mine = std::to_string(::getpid());
  for (const std::string& n : *names) {
    // WriteFileAtomic's name: the target's, ".tmp.", the writer's pid. This process's own is
    // a write in progress, not a leftover.
    if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid = n.substr(prefix.size());
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == mine) continue;
    if (auto r = root.Remove(dir.empty() ? n : dir + "/" + n); !r) return r;
  }
  return Ok();
}

}  // namespace rtagent
