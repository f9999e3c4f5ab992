// External loads: a command from the profile (stress-ng, the robot's own workload) run as
// argv without a shell, in a process group of its own, pinned before exec, its output kept.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/kernel_text.h"
#include "latency/load.h"
#include "latency/load_process.h"

namespace rtagent {
namespace {

using load_internal::LoadBody;
using load_internal::ProcessLoad;
using load_internal::SharedState;

// execvp's search path when PATH is unset (glibc posix/execvpe.c uses the same).
constexpr const char* kDefaultPath = "/bin:/usr/bin";

// 0 when `path` is an executable regular file, else the errno execve(2) would give.
int ExecutableError(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  if (!S_ISREG(st.st_mode)) return EACCES;
  return ::access(path.c_str(), X_OK) == 0 ? 0 : errno;
}

class ExternalBody : public LoadBody {
 public:
  explicit ExternalBody(ExternalLoadSpec spec) : spec_(std::move(spec)) {}
  std::string Kind() const override { return "external"; }
  std::string Pattern() const override {
    std::string s;
    for (const auto& a : spec_.argv) s += (s.empty() ? "" : " ") + a;
    return s;
  }
  int Workers(const CpuSet&) const override { return 1; }
  bool ReportsExit() const override { return true; }
  void Describe(LoadReport& r) const override {
    r.argv = spec_.argv;
    r.log_path = spec_.log_path;
  }

  Result<void> Prepare(SharedState&, int) override {
    log_fd_ = ::open(spec_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd_ < 0) return MakeError("load '" + spec_.name + "': cannot open its log " + spec_.log_path, errno);
    return Ok();
  }

  void AfterStart() override { ::close(log_fd_); }

  // The command's stdin is an empty pipe (reads see end of file at once), its stdout and
  // stderr the log. The start pipe is close-on-exec: a successful exec is the "started".
  Result<void> Run(int, SharedState&, const std::function<void()>&) override {
    int in[2];
    if (::pipe(in) != 0) return MakeError("load '" + spec_.name + "': cannot create stdin", errno);
    ::close(in[1]);
    if (::dup2(in[0], STDIN_FILENO) < 0 || ::dup2(log_fd_, STDOUT_FILENO) < 0 || ::dup2(log_fd_, STDERR_FILENO) < 0) {
      return MakeError("load '" + spec_.name + "': cannot redirect its output", errno);
    }
    std::vector<char*> argv;
    for (const auto& a : spec_.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    return MakeError("load '" + spec_.name + "': cannot run '" + spec_.argv[0] + "'", errno);
  }

 private:
  ExternalLoadSpec spec_;
  int log_fd_ = -1;
};

}  // namespace

Result<std::string> FindProgram(const std::string& program) {
  if (program.empty()) return InvalidInput("empty program name");
  if (program.find('/') != std::string::npos) {
    int err = ExecutableError(program);
    if (err == 0) return program;
    return MakeError("program '" + program + "' cannot be run", err);
  }
  const char* env = std::getenv("PATH");
  std::string path = env && *env ? env : kDefaultPath;
  for (std::string_view dir : SplitChar(path, ':')) {
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + program;
    if (ExecutableError(candidate) == 0) return candidate;
  }
  return Error{"program '" + program + "' not found in PATH (" + path + "): install it, or give its full path", ENOENT};
}

Result<std::unique_ptr<Load>> MakeExternalLoad(const ExternalLoadSpec& spec, const SysRoot& root) {
  ExternalLoadSpec s = spec;
  if (s.argv.empty() || s.argv[0].empty()) return InvalidInput("external load '" + s.name + "': empty command");
  if (s.name.empty()) {
    size_t slash = s.argv[0].rfind('/');
    s.name = slash == std::string::npos ? s.argv[0] : s.argv[0].substr(slash + 1);
  }
  if (s.log_path.empty()) return InvalidInput("external load '" + s.name + "': no log file given");
  if (s.nice < -20 || s.nice > 19) return InvalidInput("external load '" + s.name + "': nice must be -20 to 19");
  if (s.stop_grace.count() < 0) return InvalidInput("external load '" + s.name + "': negative stop grace");
  auto found = FindProgram(s.argv[0]);
  if (!found) return Wrap("external load '" + s.name + "': ", found.error());
  std::string name = s.name;
  int nice = s.nice;
  auto grace = s.stop_grace;
  return std::unique_ptr<Load>(
      std::make_unique<ProcessLoad>(name, std::make_unique<ExternalBody>(std::move(s)), nice, grace, root));
}

}  // namespace rtagent
