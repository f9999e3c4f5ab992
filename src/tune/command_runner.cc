#include "tune/command_runner.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace rtagent {

const std::vector<std::string>& ProgramDirs() {
  static const std::vector<std::string> k = {"usr/sbin", "usr/bin", "sbin", "bin"};
  return k;
}

namespace {

std::string Quote(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n\"'\\$`") == std::string::npos) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void KeepTail(std::string& out) {
  if (out.size() > CommandRun::kMaxOutput) out.erase(0, out.size() - CommandRun::kMaxOutput);
}

}  // namespace

std::string CommandRun::CommandLine() const {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + Quote(a);
  return s;
}

std::string CommandRun::Status() const {
  if (exit_status < 0) return "not run: " + note;
  if (exit_status > 128) return "killed by signal " + std::to_string(exit_status - 128);
  return "exit " + std::to_string(exit_status);
}

nlohmann::json CommandRunJson(const CommandRun& r) {
  nlohmann::json j = {{"argv", r.argv}, {"exit_status", r.exit_status}, {"output", r.output}};
  if (!r.program.empty()) j["program"] = r.program;
  if (r.skipped) j["skipped"] = true;
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

std::optional<CommandRun> CommandRunFromJson(const nlohmann::json& j) {
  // Every field is checked before it is read: nlohmann's value() throws on a field of another
  // type, and a journal is outside input (found by fuzz/journal_fuzz.cc).
  if (!j.is_object()) return std::nullopt;
  auto is = [&](const char* key, auto test) { return !j.contains(key) || test(j[key]); };
  auto str = [](const nlohmann::json& v) { return v.is_string(); };
  if (!is("argv", [](const nlohmann::json& v) { return v.is_array(); }) || !is("program", str) ||
      !is("output", str) || !is("note", str) || !is("exit_status", [](const nlohmann::json& v) { return v.is_number_integer(); }) ||
      !is("skipped", [](const nlohmann::json& v) { return v.is_boolean(); })) {
    return std::nullopt;
  }
  CommandRun r;
  if (j.contains("argv")) {
    for (const auto& a : j["argv"]) {
      if (!a.is_string()) return std::nullopt;
      r.argv.push_back(a.get<std::string>());
    }
  }
  r.program = j.value("program", "");
  const long long status = j.value("exit_status", -1LL);
  if (status < -1 || status > 255) return std::nullopt;
  r.exit_status = static_cast<int>(status);
  r.output = j.value("output", "");
  r.skipped = j.value("skipped", false);
  r.note = j.value("note", "");
  return r;
}

std::optional<std::string> FindProgram(const SysRoot& root, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  for (const std::string& dir : ProgramDirs()) {
    const std::string path = dir + "/" + name;
    if (root.Exists(path) && !root.IsDir(path)) return path;
  }
  return std::nullopt;
}

CommandRun LiveCommandRunner::Run(const std::vector<std::string>& argv) {
  CommandRun run;
  run.argv = argv;
  if (argv.empty()) {
    run.note = "no command";
    return run;
  }
  auto found = FindProgram(root_, argv[0]);
  if (!found) {
    std::string dirs;
    for (const std::string& d : ProgramDirs()) dirs += (dirs.empty() ? "/" : ", /") + d;
    run.note = argv[0] + " is not installed (looked in " + dirs + ")";
    return run;
  }
  run.program = root_.HostPath(*found);

  // Its stdin reads end of file at once (a pipe whose writing end is closed here); its
  // stdout and stderr go into one pipe, in the order it wrote them.
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    run.note = std::string("cannot make a pipe: ") + std::strerror(errno);
    return run;
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    run.note = std::string("cannot make a pipe: ") + std::strerror(errno);
    ::close(in[0]);
    ::close(in[1]);
    return run;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDERR_FILENO);
  // The child starts clean whatever rtagent set for itself (Ctrl-C handling, blocked signals).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_err = ::posix_spawn(&pid, run.program.c_str(), &fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(in[0]);
  ::close(in[1]);
  ::close(out[1]);
  if (spawn_err != 0) {
    ::close(out[0]);
    run.note = "cannot start " + run.program + ": " + std::strerror(spawn_err);
    return run;
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n > 0) {
      run.output.append(buf, static_cast<size_t>(n));
      KeepTail(run.output);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      run.note = std::string("cannot wait for it: ") + std::strerror(errno);
      return run;
    }
  }
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  return run;
}

CommandRun FixtureCommandRunner::Run(const std::vector<std::string>& argv) {
  asked_.push_back(argv);
  CommandRun run;
  run.argv = argv;
  run.skipped = true;
  run.note = root_dir_ + " is a system tree, not this machine; on the board itself rtagent runs it here";
  return run;
}

CommandRunnerFactory DefaultCommandRunnerFactory() {
  return [](const SysRoot& root) -> std::shared_ptr<CommandRunner> {
    if (root.IsLive()) return std::make_shared<LiveCommandRunner>(root);
    return std::make_shared<FixtureCommandRunner>(root.Dir());
  };
}

}  // namespace rtagent
