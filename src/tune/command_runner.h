// Commands rtagent runs on the board: a boot loader's update step (update-grub after the GRUB
// drop-in, kernel-install after /etc/kernel/cmdline). Always a fixed argv whose program is
// looked up in the system's own program directories and started with posix_spawn: never
// through a shell, never a program or path the profile names. Behind a seam like the sched and
// cgroup actuators: under --root nothing runs (the twin records what would have run), and
// tests make a command succeed, fail or record that it ran.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>  // declarations only: the .cc files that build JSON include json.hpp
#include <optional>
#include <string>
#include <vector>

#include "base/sysroot.h"

namespace rtagent {

/// One command and how it ended: what apply and revert show and the journal keeps.
struct CommandRun {
  std::vector<std::string> argv;  ///< as asked: argv[0] is a program name ("update-grub")
  std::string program;            ///< the file started ("/usr/sbin/update-grub"); "" when none
  int exit_status = -1;           ///< its exit status, 128+N after signal N, -1 when it did not run
  std::string output;             ///< stdout and stderr as one stream, at most the last kMaxOutput bytes
  bool skipped = false;           ///< not run on purpose (a fixture root): not a failure
  std::string note;               ///< why it did not run, or why it ran (after a failure)

  /// The last this many bytes of output are kept (update-grub prints a few lines per kernel).
  static constexpr size_t kMaxOutput = 16384;
  /// True when it should have run and did not end with status 0.
  bool Failed() const { return !skipped && exit_status != 0; }
  /// argv as a person would type it, words with spaces or quotes quoted.
  std::string CommandLine() const;
  /// "exit 0", "exit 1", "killed by signal 9", "not run: ..." (the note), for a report line.
  std::string Status() const;
};

/// A run as JSON, {argv, program, exit_status, output, skipped, note}: the journal keeps it and
/// apply --json shows it. And back (absent fields take their defaults; nullopt when a field has
/// another type or the exit status is out of range).
nlohmann::json CommandRunJson(const CommandRun& run);
std::optional<CommandRun> CommandRunFromJson(const nlohmann::json& j);

/// The seam: runs a command to its end and says how it went. Never fails as a call: a
/// program that cannot be found or started is a run with exit_status -1 and a note.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  virtual CommandRun Run(const std::vector<std::string>& argv) = 0;
};

/// Where a program named by rtagent is looked for, relative to the system root, in order.
const std::vector<std::string>& ProgramDirs();

/// The root-relative path of program `name` under `root` (the first of ProgramDirs() that has
/// it), nullopt when none has.
std::optional<std::string> FindProgram(const SysRoot& root, const std::string& name);

/// The running system: argv[0] found with FindProgram on `root` (which must be live), started
/// with posix_spawn (default signal dispositions, no blocked signals, stdin at end of file,
/// stdout and stderr into one pipe) and waited for.
class LiveCommandRunner : public CommandRunner {
 public:
  explicit LiveCommandRunner(const SysRoot& root) : root_(root) {}
  CommandRun Run(const std::vector<std::string>& argv) override;

 private:
  const SysRoot& root_;
};

/// The twin for a fixture root: runs nothing and answers "skipped", saying the command would
/// run on the board itself; remembers every command it was asked for.
class FixtureCommandRunner : public CommandRunner {
 public:
  explicit FixtureCommandRunner(std::string root_dir) : root_dir_(std::move(root_dir)) {}
  CommandRun Run(const std::vector<std::string>& argv) override;
  const std::vector<std::vector<std::string>>& asked() const { return asked_; }

 private:
  std::string root_dir_;
  std::vector<std::vector<std::string>> asked_;
};

/// Makes the runner for a root: the live one only when `root.IsLive()`, the twin otherwise.
using CommandRunnerFactory = std::function<std::shared_ptr<CommandRunner>(const SysRoot& root)>;
CommandRunnerFactory DefaultCommandRunnerFactory();

}  // namespace rtagent
