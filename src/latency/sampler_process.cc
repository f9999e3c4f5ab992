#include "latency/sampler_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/kernel_paths.h"

extern char** environ;

namespace rtagent {
namespace {

constexpr char kSamplerProgram[] = "rtagent-sampler";
// How long a stopped measuring process may take to send its result and exit.
constexpr auto kStopGrace = std::chrono::seconds(5);

bool IsExecutable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// The directory of the running program, from the kernel's link (empty when unreadable).
std::string SelfDir() {
  char buf[4096];
  const std::string link = "/" + kpath::kSelfExe;
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash);
}

// The child's end of the pipe becomes fd 3 there (dup2 in the child clears close-on-exec).
constexpr int kChildFd = 3;

// Starts the measuring program with the write end of a new pipe as its fd 3; *read_fd is the
// read end. Returns its pid.
Result<pid_t> SpawnWithPipe(const std::string& binary, const SamplerConfig& config, const std::string& root_dir,
                            int* read_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return MakeError("cannot make a pipe for the measuring process", errno);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  int write_end = fds[1];
  if (write_end == kChildFd) {
    write_end = ::fcntl(fds[1], F_DUPFD_CLOEXEC, kChildFd + 1);
    ::close(fds[1]);
    if (write_end < 0) {
      const int err = errno;
      ::close(fds[0]);
      posix_spawn_file_actions_destroy(&fa);
      return MakeError("cannot make a pipe for the measuring process", err);
    }
  }
  posix_spawn_file_actions_adddup2(&fa, write_end, kChildFd);
  const std::vector<std::string> args = SamplerArgs(binary, config, root_dir, kChildFd, static_cast<int>(::getpid()));
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The child starts with default dispositions and its stop signals blocked: a Ctrl-C that
  // comes before it is ready stays pending and stops the run at once instead of killing it
  // (it takes them synchronously, and its measuring threads inherit the mask).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t stops, all;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGHUP);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &stops);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawn_err = ::posix_spawn(&pid, binary.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(write_end);
  if (spawn_err != 0) {
    ::close(fds[0]);
    return MakeError("cannot start the measuring program " + binary, spawn_err);
  }
  *read_fd = fds[0];
  return pid;
}

}  // namespace

Result<std::string> FindSamplerBinary() { return FindSamplerBinary(SelfDir()); }

Result<std::string> FindSamplerBinary(const std::string& dir) {
  if (const char* env = std::getenv("RTAGENT_SAMPLER"); env != nullptr && *env != '\0') {
    if (IsExecutable(env)) return std::string(env);
    return Error{std::string("RTAGENT_SAMPLER=") + env + " is not an executable program", ENOENT};
  }
  std::vector<std::string> tried;
  if (!dir.empty()) {
    tried.push_back(dir + "/" + kSamplerProgram);
    tried.push_back(dir + "/../libexec/rtagent/" + kSamplerProgram);
  }
#ifdef RTAGENT_LIBEXEC_DIR
  tried.push_back(std::string(RTAGENT_LIBEXEC_DIR) + "/" + kSamplerProgram);
#endif
  for (const std::string& p : tried) {
    if (IsExecutable(p)) return p;
  }
  std::string list;
  for (const std::string& p : tried) list += (list.empty() ? "" : ", ") + p;
  return Error{std::string("cannot find the measuring program ") + kSamplerProgram + " (looked at " + list +
                   "); it is built and installed with rtagent, or set RTAGENT_SAMPLER to its path",
               ENOENT};
}

SamplerProcess::SamplerProcess(SamplerConfig config, const SysRoot& root, std::string binary)
    : config_(std::move(config)), root_(root), binary_(std::move(binary)) {
  for (int cpu : config_.cpus.Cpus()) zero_progress_.push_back(CpuProgress{cpu, 0, std::nullopt});
}

SamplerProcess::~SamplerProcess() {
  if (pid_.load() > 0) (void)Reap(/*kill_first=*/true);
  if (fd_ >= 0) ::close(fd_);
}

Result<void> SamplerProcess::Start() {
  if (pid_.load() > 0 || fd_ >= 0) return MakeError("the measuring process was already started", EBUSY);
  if (auto v = Sampler::Validate(config_); !v) return v;
  if (binary_.empty()) {
    auto found = FindSamplerBinary();
    if (!found) return found.error();
    binary_ = *found;
  }
  int read_fd = -1;
  auto pid = SpawnWithPipe(binary_, config_, root_.Dir(), &read_fd);
  if (!pid) return pid.error();
  pid_.store(*pid);
  fd_ = read_fd;

  // Wait for "ready" (or an error, or the process's end).
  const auto deadline = std::chrono::steady_clock::now() + ready_timeout_;
  while (!reader_.ready() && !reader_.finished() && !stream_error_ && !eof_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    (void)Pump(static_cast<int>(left.count()));
  }
  if (reader_.ready() && !stream_error_ && !reader_.failure()) return Ok();

  // It did not start: take its reason, stop it and reap it.
  Error why;
  if (reader_.failure()) {
    why = *reader_.failure();
  } else if (stream_error_) {
    why = *stream_error_;
  } else if (eof_) {
    why = MakeError("the measuring program " + binary_ + " ended before it was ready");
  } else {
    const auto ms = ready_timeout_.count();
    why = Error{"the measuring program " + binary_ + " was not ready after " +
                    (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms"),
                ETIMEDOUT};
  }
  const int status = Reap(/*kill_first=*/!eof_ && !reader_.failure());
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!reader_.failure() && status >= 0) why.message += " (" + DescribeExit(status) + ")";
  return why;
}

void SamplerProcess::RequestStop() {
  const pid_t pid = pid_.load();
  if (pid > 0) ::kill(pid, SIGTERM);
}

bool SamplerProcess::Pump(int wait_ms) {
  if (eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  int r = ::poll(&p, 1, wait_ms);
  if (r < 0 && errno == EINTR) return true;
  if (r <= 0) return true;
  char buf[65536];
  ssize_t n = ::read(fd_, buf, sizeof buf);
  if (n < 0) {
    if (errno == EINTR || errno == EAGAIN) return true;
    eof_ = true;
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  pending_.append(buf, static_cast<size_t>(n));
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (stream_error_) continue;
    if (auto ok = reader_.Feed(std::string_view(pending_).substr(start, nl - start)); !ok) stream_error_ = ok.error();
  }
  pending_.erase(0, start);
  return true;
}

bool SamplerProcess::Finished() {
  if (fd_ < 0) return true;
  // Drain what is there now without waiting.
  while (!eof_ && !reader_.finished() && !stream_error_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) break;
    (void)Pump(0);
  }
  return eof_ || reader_.finished() || stream_error_.has_value();
}

std::vector<CpuProgress> SamplerProcess::Progress() const {
  return reader_.progress().empty() ? zero_progress_ : reader_.progress();
}

Result<SamplerResult> SamplerProcess::Wait() {
  if (fd_ < 0) return InvalidInput("the measuring process is not running");
  while (!eof_ && !reader_.finished() && !stream_error_) (void)Pump(-1);
  // A stream that stopped making sense is not waited out: the process is stopped.
  const int status = Reap(/*kill_first=*/stream_error_.has_value());
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (stream_error_) return *stream_error_;
  if (reader_.failure()) return *reader_.failure();
  if (!reader_.finished()) {
    return MakeError("the measuring process ended without sending its result (" + DescribeExit(status) + ")",
                     EPROTO);
  }
  return reader_.TakeResult();
}

int SamplerProcess::Reap(bool kill_first) {
  const pid_t pid = pid_.load();
  if (pid <= 0) return exit_status_;
  if (kill_first) {
    // Nobody reads its result any more: close the pipe so its writes fail instead of blocking.
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::kill(pid, SIGTERM);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + kStopGrace;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      status = -1;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      // It did not stop after its result was sent or SIGTERM: no measuring thread may outlive us.
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_.store(0);
  exit_status_ = status;
  return status;
}

std::string SamplerProcess::DescribeExit(int status) const {
  if (status < 0) return "its exit status is unknown";
  if (WIFEXITED(status)) return "it exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = ::sigabbrev_np(WTERMSIG(status));
    return std::string("it was killed by SIG") + (name ? name : std::to_string(WTERMSIG(status)).c_str());
  }
  return "it ended (wait status " + std::to_string(status) + ")";
}

}  // namespace rtagent
