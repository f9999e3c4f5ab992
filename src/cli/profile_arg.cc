#include "cli/profile_arg.h"

#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "base/exit_codes.h"
#include "base/kernel_paths.h"
#include "base/time_text.h"
#include "profile/loader.h"
#include "service/hold_state.h"
#include "tune/executor.h"
#include "tune/journal.h"

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

bool NoHoldBeside(const std::string& command, const SysRoot& root) {
  auto read = service::ReadHoldState(root);
  if (!read || !*read) return true;  // no state file, or one `status` reports: no hold to meet
  const service::HoldState& s = **read;
  if (!s.ClaimsToHold() || s.pid <= 0) return true;
  const std::string comm = root.Read(kpath::Pid(s.pid) + "/comm").value_or("");
  if (comm.rfind("rtagent", 0) != 0) return true;  // it stopped without saying so
  std::cerr << "rtagent " << command << ": rtagent hold (process " << s.pid << ") is holding "
            << (s.profile.empty() ? std::string("the built-in default profile") : s.profile)
            << " here: it would put its own values back and rewrite the journal this " << command
            << " writes. Stop it first (systemctl stop rtagent.service; its service.on_stop says whether it "
               "reverts), or make the profile it reads the one you want and reload it "
               "(systemctl reload rtagent.service); nothing was changed\n";
  return false;
}

std::unique_ptr<RootLock> ClaimWriting(const std::string& command, SysRoot& root) {
  auto lock = root.TryLock(Journal::LockPath(), "process " + std::to_string(::getpid()) + " (rtagent " + command + ")");
  if (lock) return std::move(*lock);
  if (lock.error().err == EWOULDBLOCK) {
    std::cerr << "rtagent " << command << ": another rtagent is changing the tuning here: " << lock.error().message
              << ". Two at once would each journal only their own changes, and a revert could not put the "
                 "other's back; wait for it to finish (or stop it) and run this again; nothing was changed\n";
  } else {
    std::cerr << "rtagent " << command << ": " << lock.error().message
              << "; the lock that keeps two rtagents from writing the journal at once cannot be taken; "
                 "nothing was changed\n";
  }
  return nullptr;
}

void NoteRevertInHoldState(const std::string& command, SysRoot& root, const RevertReport& report) {
  service::RevertedSince what;
  for (const ChangeResult& r : report.results) {
    if (r.outcome == Outcome::kApplied) {
      ++what.restored;
    } else if (r.outcome != Outcome::kAlreadySet) {
      ++what.failed;
    }
  }
  if (what.restored == 0 && what.failed == 0) return;
  what.time = UnixNow();
  if (auto noted = service::NoteRevertSince(root, what); !noted) {
    std::cerr << "rtagent " << command << ": the values are back, but what the stopped `rtagent hold` left "
              << "still calls them held: " << noted.error().message << "\n";
  }
}

bool CanWrite(const std::string& command, const SysRoot& root) {
  if (!root.IsLive() || ::geteuid() == 0) return true;
  std::cerr << "rtagent " << command << ": changing the live system needs root (run it with sudo); nothing was changed\n";
  return false;
}

}  // namespace rtagent
