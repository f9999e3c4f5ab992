#include "cli/profile_arg.h"

#include <unistd.h>

#include <iostream>

#include "base/exit_codes.h"
#include "profile/loader.h"

namespace rtagent {

std::optional<std::string> ResolveForCommand(const std::string& command, const std::string& arg, int* exit_code) {
  auto file = ResolveProfileArg(arg, DefaultProfileDirs());
  if (!file) {
    std::cerr << "rtagent " << command << ": " << file.error().message << "\n";
    *exit_code = kExitBadInput;
    return std::nullopt;
  }
  return *file;
}

std::optional<LoadedProfile> LoadForCommand(const std::string& command, const GlobalOptions& g, const std::string& arg,
                                            int* exit_code) {
  auto resolved = ResolveForCommand(command, arg, exit_code);
  if (!resolved) return std::nullopt;
  const std::string& path = *resolved;
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent " << command << ": " << root.error().message << "\n";
    *exit_code = kExitBadInput;
    return std::nullopt;
  }
  auto cpus = profile::ReadSystemCpus(**root);
  if (!cpus) {
    std::cerr << "rtagent " << command << ": " << cpus.error().message << "\n";
    *exit_code = kExitCannotRun;
    return std::nullopt;
  }
  profile::Diagnostics diags;
  auto p = path.empty() ? profile::LoadDefaultProfile(*cpus, &diags) : profile::LoadProfile(path, *cpus, &diags);
  bool color = g.color && ::isatty(STDERR_FILENO);
  if (!p) {
    std::cerr << diags.FormatText(color);
    std::cerr << "rtagent " << command << ": " << (path.empty() ? "the built-in default profile" : path)
              << " is invalid; nothing was changed\n";
    *exit_code = kExitBadInput;
    return std::nullopt;
  }
  if (diags.WarningCount() > 0) std::cerr << diags.FormatText(color);
  return LoadedProfile{std::move(*root), std::move(*p), path};
}

bool CanWrite(const std::string& command, const SysRoot& root) {
  if (!root.IsLive() || ::geteuid() == 0) return true;
  std::cerr << "rtagent " << command << ": changing the live system needs root (run it with sudo); nothing was changed\n";
  return false;
}

}  // namespace rtagent
