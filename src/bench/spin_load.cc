#include "bench/spin_load.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "base/child_exit.h"
#include "bench/peer.h"

namespace rtagent::bench {
namespace {

struct SpinStart {
  std::atomic<int> placed{0};
  std::atomic<int> err{0};
  std::atomic<int> err_cpu{-1};
};

[[noreturn]] void Spin(SpinStart& start, int cpu, const SchedState& sched, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ExitChild(1);
  // Ctrl-C reaches the whole process group: a spinner must die of it, not run rtagent's handler.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::munlockall();  // a load's memory is reclaimable (fork already dropped the lock)
  if (const int err = PlaceCallingThread(cpu, sched); err != 0) {
    int none = 0;
    if (start.err.compare_exchange_strong(none, err)) start.err_cpu.store(cpu);
    start.placed.fetch_add(1);
    ExitChild(1);
  }
  start.placed.fetch_add(1);
  for (;;) std::atomic_signal_fence(std::memory_order_seq_cst);
}

}  // namespace

SpinLoad::~SpinLoad() { Stop(); }

Result<void> SpinLoad::Start(const CpuSet& cpus, const SchedState& sched) {
  if (!pids_.empty()) return MakeError("the spin load is already running", EBUSY);
  SharedBlock<SpinStart> start;
  const pid_t parent = ::getpid();
  for (int cpu : cpus.Cpus()) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int err = errno;
      Stop();
      return MakeError("cannot fork the spinner for CPU " + std::to_string(cpu), err);
    }
    if (pid == 0) Spin(*start, cpu, sched, parent);
    pids_.push_back(pid);
  }
  // Sleep, not spin: a spinner below our rank on our own CPU runs only while we sleep.
  const timespec tick{0, 1000000};
  while (start->placed.load() < static_cast<int>(pids_.size())) ::nanosleep(&tick, nullptr);
  if (const int err = start->err.load(); err != 0) {
    const int cpu = start->err_cpu.load();
    Stop();
    return MakeError("the spinner for CPU " + std::to_string(cpu) + " cannot run at " + SchedPolicyName(sched.policy) +
                         (sched.priority > 0 ? " " + std::to_string(sched.priority) : std::string()),
                     err);
  }
  return Ok();
}

void SpinLoad::Stop() {
  for (pid_t pid : pids_) ::kill(pid, SIGKILL);
  for (pid_t pid : pids_) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pids_.clear();
}

}  // namespace rtagent::bench
