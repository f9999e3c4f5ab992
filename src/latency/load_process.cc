#include "latency/load_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>
#include <thread>

#include "base/child_exit.h"
#include "inspect/threads.h"

namespace rtagent::load_internal {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a supervisor keeps reaping after SIGKILL before giving up on a task it cannot see.
constexpr milliseconds kReapTimeout{2000};
// Beyond the grace period, how long the agent waits for a supervisor before killing it.
constexpr milliseconds kSupervisorSlack{3000};

void CopyText(char* dst, const std::string& src) {
  size_t n = std::min(src.size(), SharedState::kTextBytes - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

// Every handler back to its default and nothing blocked: the agent may have installed
// handlers (SIGINT for Ctrl-C) or blocked signals in the thread that forked.
void ResetSignals() {
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int s = 1; s < NSIG; ++s) {
    if (s == SIGKILL || s == SIGSTOP) continue;
    ::sigaction(s, &sa, nullptr);  // glibc's reserved real-time signals refuse: fine
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Closes every inherited descriptor except `keep` (the agent's PM QoS fd, journals, ...
// must not live on in a load).
void CloseAllExcept(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned first = 3;
  for (int fd : keep) {
    if (fd < static_cast<int>(first)) continue;
    if (static_cast<unsigned>(fd) > first) ::close_range(first, static_cast<unsigned>(fd) - 1, 0);
    first = static_cast<unsigned>(fd) + 1;
  }
  ::close_range(first, ~0u, 0);
}

// Dies with the process that forked us (PR_SET_PDEATHSIG), closing the race where it
// died before the prctl.
void DieWithParent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ExitChild(1);
}

bool WaitSignal(const sigset_t& set, milliseconds timeout, int* sig) {
  timespec ts{};
  ts.tv_sec = timeout.count() / 1000;
  ts.tv_nsec = (timeout.count() % 1000) * 1000000;
  int s = ::sigtimedwait(&set, nullptr, &ts);
  if (s < 0) return false;
  *sig = s;
  return true;
}

// The supervisor: one per load, the root of its process tree.
class Supervisor {
 public:
  Supervisor(const std::string& name, LoadBody& body, SharedState& shared, const SysRoot& root,
             milliseconds grace, pid_t agent)
      : name_(name), body_(body), shared_(shared), root_(root), grace_(grace), agent_(agent), self_(::getpid()) {}

  [[noreturn]] void Main(const CpuSet& cpus, int nice, int ready_fd) {
    ResetSignals();
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    DieWithParent(agent_);
    // Orphans of the load (a command's background children) re-parent to us, not to
    // PID 1, so we can reap them: some PID 1s never do (prctl(2), PR_SET_CHILD_SUBREAPER).
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    CloseAllExcept({ready_fd});
    ready_fd_ = ready_fd;

    if (auto placed = PlaceSelf(cpus, nice); !placed) {
      Fail(Wrap("load '" + name_ + "': ", placed.error()));
    }
    int n = body_.Workers(cpus);
    if (auto prepared = body_.Prepare(shared_, n); !prepared) Fail(prepared.error());
    for (int i = 0; i < n; ++i) StartWorker(i);
    body_.AfterStart();
    char ok = 0;
    if (::write(ready_fd_, &ok, 1) != 1) Shutdown();
    ::close(ready_fd_);
    ready_fd_ = -1;

    for (;;) {
      int sig = 0;
      bool got = WaitSignal(set, milliseconds(200), &sig);
      if (got && sig == SIGTERM) break;
      if (::getppid() != agent_) break;
      ReapNoHang();
    }
    Shutdown();
  }

 private:
  void StartWorker(int index) {
    int sp[2];
    if (::pipe2(sp, O_CLOEXEC) != 0) Fail(MakeError("load '" + name_ + "': cannot create a pipe", errno));
    pid_t pid = ::fork();
    if (pid < 0) Fail(MakeError("load '" + name_ + "': cannot fork worker " + std::to_string(index), errno));
    if (pid == 0) WorkerMain(index, sp);
    ::close(sp[1]);
    // Both sides set the group, so neither races the other (setpgid(2), "job control").
    if (group_ == 0) group_ = pid;
    ::setpgid(pid, group_);
    shared_.work_pgid.store(group_);
    workers_.push_back(pid);
    alive_.push_back(true);
    int err = 0;
    ssize_t got;
    do {
      got = ::read(sp[0], &err, sizeof err);
    } while (got < 0 && errno == EINTR);
    ::close(sp[0]);
    if (got > 0) Fail(Error{}, /*recorded=*/true);  // the worker recorded its error
  }

  [[noreturn]] void WorkerMain(int index, int sp[2]) {
    ::close(sp[0]);
    ::close(ready_fd_);
    ResetSignals();
    DieWithParent(self_);
    ::setpgid(0, group_);  // 0 for the first worker: a new group, led by it
    bool started = false;
    auto on_started = [&] {
      if (started) return;
      started = true;
      ::close(sp[1]);
    };
    Result<void> r = MakeError("worker returned");
    try {
      r = body_.Run(index, shared_, on_started);
    } catch (const std::exception& e) {
      r = MakeError(std::string("load '") + name_ + "': " + e.what());
    }
    if (!r.ok()) {
      RecordError(shared_, r.error());
      if (!started) {
        int e = r.error().err != 0 ? r.error().err : EINVAL;
        (void)!::write(sp[1], &e, sizeof e);
      }
    }
    ExitChild(1);
  }

  // Reaps whatever has ended; a worker ending before we were told to stop is a problem.
  void ReapNoHang() {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) NoteExit(pid, status);
  }

  void NoteExit(pid_t pid, int status) {
    auto it = std::find(workers_.begin(), workers_.end(), pid);
    if (it == workers_.end()) return;  // an orphan of the load, re-parented to us
    size_t i = static_cast<size_t>(it - workers_.begin());
    alive_[i] = false;
    if (i == 0 && body_.ReportsExit()) shared_.exit_status.store(status);
    if (shared_.stopping.load()) return;
    shared_.ended_early.store(1);
    std::string who = body_.ReportsExit() && i == 0 ? "'" + name_ + "'" : name_ + " worker " + std::to_string(i);
    RecordError(shared_, Error{who + " ended before the load was stopped: " + DescribeWaitStatus(status), 0});
  }

  bool AnyWorkerAlive() const { return std::find(alive_.begin(), alive_.end(), true) != alive_.end(); }

  // SIGKILLs our direct children: tasks that left the work group (setsid) and were
  // re-parented to us when their parent died.
  void KillChildren() {
    for (const TaskView& p : ListProcesses(root_)) {
      if (p.ppid == self_) ::kill(p.pid, SIGKILL);
    }
  }

  // SIGTERM to the work group, SIGKILL after the grace period, then reap every child,
  // orphans included, and exit.
  [[noreturn]] void Shutdown() {
    shared_.stopping.store(1);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (group_ > 0) {
      // Pids are allocated cyclically (kernel/pid.c), so the group's number is not
      // handed to another process while we stop it.
      ::kill(-group_, SIGTERM);
      auto deadline = Clock::now() + grace_;
      ReapNoHang();
      while (AnyWorkerAlive() && Clock::now() < deadline) {
        int sig = 0;
        WaitSignal(chld, milliseconds(5), &sig);
        ReapNoHang();
      }
      ::kill(-group_, SIGKILL);
    }
    auto deadline = Clock::now() + kReapTimeout;
    auto next_sweep = Clock::now() + milliseconds(20);
    for (;;) {
      int status = 0;
      pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid > 0) {
        NoteExit(pid, status);
        continue;
      }
      if (pid < 0 && errno == ECHILD) break;
      if (Clock::now() > deadline) break;
      if (Clock::now() > next_sweep) {
        KillChildren();
        next_sweep = Clock::now() + milliseconds(20);
      }
      int sig = 0;
      WaitSignal(chld, milliseconds(5), &sig);
    }
    ExitChild(0);
  }

  // Reports a start failure to the agent and exits, taking started workers down.
  [[noreturn]] void Fail(const Error& error, bool recorded = false) {
    if (!recorded) RecordError(shared_, error);
    shared_.stopping.store(1);
    if (group_ > 0) ::kill(-group_, SIGKILL);
    auto deadline = Clock::now() + kReapTimeout;
    while (Clock::now() < deadline) {
      pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
      if (pid < 0 && errno == ECHILD) break;
      if (pid == 0) std::this_thread::sleep_for(milliseconds(2));
    }
    char failed = 1;
    if (ready_fd_ >= 0) (void)!::write(ready_fd_, &failed, 1);
    ExitChild(1);
  }

  const std::string& name_;
  LoadBody& body_;
  SharedState& shared_;
  const SysRoot& root_;
  milliseconds grace_;
  pid_t agent_;
  pid_t self_;
  int ready_fd_ = -1;
  pid_t group_ = 0;
  std::vector<pid_t> workers_;
  std::vector<bool> alive_;
};

}  // namespace

void RecordError(SharedState& shared, const Error& error) {
  uint32_t slot = shared.error_count.fetch_add(1);
  if (slot >= static_cast<uint32_t>(SharedState::kErrorSlots)) return;
  CopyText(shared.errors[slot], error.message);
  shared.error_errno[slot] = error.err;
  shared.error_done[slot].store(1, std::memory_order_release);
}

void SetDetail(SharedState& shared, const std::string& text) {
  if (shared.detail_claimed.exchange(1) != 0) return;
  CopyText(shared.detail, text);
  shared.detail_done.store(1, std::memory_order_release);
}

Result<void> PlaceSelf(const CpuSet& cpus, int nice) {
  sched_param sp{};
  sp.sched_priority = 0;
  // The agent's thread may be SCHED_FIFO; a load must never be (sched(7)).
  if (::sched_setscheduler(0, SCHED_OTHER, &sp) != 0) return MakeError("cannot set SCHED_OTHER", errno);
  int max = cpus.Max();
  if (max < 0) return InvalidInput("no CPU to run on");
  cpu_set_t* set = CPU_ALLOC(max + 1);
  size_t size = CPU_ALLOC_SIZE(max + 1);
  CPU_ZERO_S(size, set);
  for (int cpu : cpus.Cpus()) CPU_SET_S(cpu, size, set);
  int rc = ::sched_setaffinity(0, size, set);
  int err = errno;
  CPU_FREE(set);
  // Returns once we run on an allowed CPU (the kernel migrates the caller before
  // returning), so "processor" in /proc/.../stat is in `cpus` from here on.
  if (rc != 0) return MakeError("cannot pin to CPUs " + cpus.ToList(), err);
  if (::setpriority(PRIO_PROCESS, 0, nice) != 0) return MakeError("cannot set nice " + std::to_string(nice), errno);
  // fork(2) already drops the agent's mlockall() (kernel/fork.c clears VM_LOCKED and the
  // MCL_FUTURE default); say so explicitly, a load's memory must be reclaimable.
  ::munlockall();
  return Ok();
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* abbrev = ::sigabbrev_np(WTERMSIG(status));
    return std::string("killed by ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(WTERMSIG(status)));
  }
  return "status " + std::to_string(status);
}

ProcessLoad::ProcessLoad(std::string name, std::unique_ptr<LoadBody> body, int nice, milliseconds grace,
                         const SysRoot& root)
    : name_(std::move(name)), body_(std::move(body)), nice_(nice), grace_(grace), root_(root) {
  void* p = ::mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  shared_ = new (p) SharedState();
}

ProcessLoad::~ProcessLoad() {
  Stop();
  shared_->~SharedState();
  ::munmap(shared_, sizeof(SharedState));
}

Result<void> ProcessLoad::Start(const CpuSet& cpus) {
  if (supervisor_ > 0) return MakeError("load '" + name_ + "' is already running", EBUSY);
  if (cpus.Empty()) return InvalidInput("load '" + name_ + "': no CPU given to run on");
  // The supervisor signals the processes it finds in the root's /proc: only the live one.
  if (!root_.IsLive()) return InvalidInput("load '" + name_ + "' runs only on the live system, not under " + root_.Dir());
  if (auto configured = body_->Configure(cpus); !configured) return configured.error();
  shared_->~SharedState();
  new (shared_) SharedState();
  agent_errors_.clear();
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return MakeError("load '" + name_ + "': cannot create a pipe", errno);
  pid_t agent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(ready[0]);
    ::close(ready[1]);
    return MakeError("load '" + name_ + "': cannot fork", err);
  }
  if (pid == 0) {
    ::close(ready[0]);
    ::setpgid(0, 0);
    try {
      Supervisor(name_, *body_, *shared_, root_, grace_, agent).Main(cpus, nice_, ready[1]);
    } catch (...) {
    }
    ExitChild(1);
  }
  ::close(ready[1]);
  ::setpgid(pid, pid);
  supervisor_ = pid;
  workers_ = body_->Workers(cpus);
  cpus_ = cpus;

  pollfd pfd{ready[0], POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&pfd, 1, static_cast<int>(start_timeout_.count()));
  } while (rc < 0 && errno == EINTR);
  char byte = 1;
  ssize_t got = rc > 0 ? ::read(ready[0], &byte, 1) : -1;
  ::close(ready[0]);
  if (got == 1 && byte == 0) {
    ran_ = true;
    stop_requested_ = false;
    started_at_ = Clock::now();
    stopped_at_ = {};
    return Ok();
  }
  // The supervisor failed and is exiting (it said so, or died), or it hung or we could
  // not hear it: make sure it and its workers are gone, then explain.
  int status = 0;
  if (got == 1 || got == 0) {
    ::waitpid(pid, &status, 0);
  } else {
    KillNow();
  }
  supervisor_ = 0;
  if (shared_->error_count.load() > 0 && shared_->error_done[0].load(std::memory_order_acquire)) {
    return Error{shared_->errors[0], shared_->error_errno[0]};
  }
  if (rc == 0) {
    return Error{"load '" + name_ + "' was not at work " + std::to_string(start_timeout_.count()) +
                     " ms after it was started, so it and its workers were stopped",
                 ETIMEDOUT};
  }
  return MakeError("load '" + name_ + "': its supervisor " + DescribeWaitStatus(status) + " while starting");
}

void ProcessLoad::KillNow() {
  int group = shared_->work_pgid.load();
  ::kill(supervisor_, SIGKILL);
  if (group > 0) ::kill(-group, SIGKILL);
  ::waitpid(supervisor_, nullptr, 0);
}

void ProcessLoad::RequestStop() {
  if (supervisor_ <= 0 || stop_requested_) return;
  stop_requested_ = true;
  stopped_at_ = Clock::now();
  if (::kill(supervisor_, SIGTERM) != 0 && errno != ESRCH) {
    agent_errors_.push_back(MakeError("load '" + name_ + "': cannot signal its supervisor", errno).message);
  }
}

void ProcessLoad::Stop() {
  if (supervisor_ <= 0) return;
  RequestStop();
  auto deadline = stopped_at_ + grace_ + kSupervisorSlack;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(supervisor_, &status, WNOHANG);
    if (r == supervisor_) {
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        agent_errors_.push_back("load '" + name_ + "': its supervisor " + DescribeWaitStatus(status));
      }
      break;
    }
    if (r < 0 && errno != EINTR) {
      agent_errors_.push_back(MakeError("load '" + name_ + "': cannot wait for its supervisor", errno).message);
      break;
    }
    if (Clock::now() > deadline) {
      agent_errors_.push_back("load '" + name_ + "': its supervisor did not stop in time and was killed");
      KillNow();
      break;
    }
    std::this_thread::sleep_for(milliseconds(2));
  }
  supervisor_ = 0;
}

bool ProcessLoad::EndedEarly() const { return shared_->ended_early.load() != 0; }

int ProcessLoad::WorkGroup() const { return supervisor_ > 0 ? shared_->work_pgid.load() : 0; }

LoadReport ProcessLoad::Report() const {
  LoadReport r;
  r.name = name_;
  r.kind = body_->Kind();
  r.pattern = body_->Pattern();
  r.ops_unit = body_->OpsUnit();
  r.nice = nice_;
  r.cpus_asked = cpus_;
  r.workers = workers_;
  if (ran_) {
    auto end = supervisor_ > 0 ? Clock::now() : stopped_at_;
    r.seconds = std::chrono::duration<double>(end - started_at_).count();
  }
  r.ops = shared_->ops.load();
  r.bytes = shared_->bytes.load();
  std::string detail = body_->StaticDetail();
  if (shared_->detail_done.load(std::memory_order_acquire)) {
    detail += (detail.empty() ? "" : "; ") + std::string(shared_->detail);
  }
  r.detail = detail;
  uint32_t count = shared_->error_count.load();
  for (int i = 0; i < SharedState::kErrorSlots && i < static_cast<int>(count); ++i) {
    if (shared_->error_done[i].load(std::memory_order_acquire)) r.errors.emplace_back(shared_->errors[i]);
  }
  if (count > static_cast<uint32_t>(SharedState::kErrorSlots)) {
    r.errors.push_back(std::to_string(count - SharedState::kErrorSlots) + " more errors not kept");
  }
  r.errors.insert(r.errors.end(), agent_errors_.begin(), agent_errors_.end());
  r.ended_early = shared_->ended_early.load() != 0;
  int status = shared_->exit_status.load();
  if (body_->ReportsExit() && status >= 0) r.exit = DescribeWaitStatus(status);
  body_->Describe(r);
  return r;
}

}  // namespace rtagent::load_internal
