#include "bench/peer.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/child_exit.h"
#include "latency/load_process.h"

namespace rtagent::bench {

// Ready: the peer placed itself (err 0) or could not (err set). Done: body returned `result`.
struct Peer::Control {
  std::atomic<uint32_t> state{0};  // 0 starting, 1 placed or failed
  std::atomic<int> err{0};
  std::atomic<int> tid{0};
  std::atomic<int> result{0};
};

namespace {

// A thread peer's stack: small, since under mlockall(MCL_FUTURE) every byte of it is locked
// (glibc's default would be 8 MiB each).
constexpr size_t kThreadStack = 256 * 1024;

}  // namespace

std::string PeerKindName(PeerKind k) { return k == PeerKind::kThread ? "thread" : "process"; }

SchedState Shifted(const SchedState& s, int delta) {
  if (s.policy != SCHED_FIFO && s.policy != SCHED_RR) return s;
  return {s.policy, std::clamp(s.priority + delta, 1, 99)};
}

int PlaceCallingThread(int cpu, const SchedState& s) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) return errno;
  sched_param sp{};
  sp.sched_priority = s.priority;
  // pthread_setschedparam, not sched_setscheduler: glibc keeps each thread's class and rank
  // and puts that rank back when the thread unlocks a PTHREAD_PRIO_PROTECT mutex
  // (nptl/tpp.c); a rank set behind its back would be undone there.
  if (const int e = ::pthread_setschedparam(::pthread_self(), s.policy, &sp)) return e;
  if (s.policy == SCHED_OTHER && ::setpriority(PRIO_PROCESS, 0, 0) != 0) return errno;
  return 0;
}

void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, nullptr, nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

Peer::Peer(PeerKind kind, std::function<int()> body) : kind_(kind), body_(std::move(body)) {}

int Peer::Run(Control& c, int cpu, const SchedState& sched, bool lock_memory, const std::function<int()>& body) {
  c.tid.store(static_cast<int>(::gettid()));
  int err = 0;
  if (lock_memory && ::mlockall(MCL_CURRENT | MCL_FUTURE) != 0) err = errno;
  if (err == 0) err = PlaceCallingThread(cpu, sched);
  c.err.store(err);
  c.state.store(1);
  FutexWake(&c.state);
  if (err != 0) return err;
  return body();
}

void* Peer::ThreadMain(void* self) {
  Peer& p = *static_cast<Peer*>(self);
  Control& c = **p.control_;
  c.result.store(Run(c, p.cpu_, p.sched_, false, p.body_));
  return nullptr;
}

Result<std::unique_ptr<Peer>> Peer::Start(PeerKind kind, int cpu, const SchedState& sched, bool lock_memory,
                                          std::function<int()> body) {
  std::unique_ptr<Peer> p(new Peer(kind, std::move(body)));
  p->control_ = new SharedBlock<Control>();
  p->cpu_ = cpu;
  p->sched_ = sched;
  p->lock_memory_ = lock_memory;
  Control& c = **p->control_;
  if (kind == PeerKind::kThread) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kThreadStack);
    pthread_t t;
    const int rc = ::pthread_create(&t, &attr, &Peer::ThreadMain, p.get());
    pthread_attr_destroy(&attr);
    if (rc != 0) return MakeError("cannot start a peer thread", rc);
    p->thread_ = t;
    p->pid_ = ::getpid();
  } else {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return MakeError("cannot fork a peer process", errno);
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ExitChild(1);
      ExitChild(Run(c, cpu, sched, lock_memory, p->body_) & 0xff);
    }
    p->pid_ = pid;
  }
  p->joined_ = false;
  while (c.state.load() == 0) FutexWait(&c.state, 0);
  if (const int err = c.err.load(); err != 0) {
    auto joined = p->Join();
    (void)joined;
    return MakeError("the peer " + PeerKindName(kind) + " cannot run on CPU " + std::to_string(cpu) + " at " +
                         SchedPolicyName(sched.policy) + " " + std::to_string(sched.priority),
                     err);
  }
  return p;
}

pid_t Peer::Tid() const { return static_cast<pid_t>((**control_).tid.load()); }
pid_t Peer::Pid() const { return pid_; }

Result<void> Peer::Join() {
  if (joined_) return Ok();
  joined_ = true;
  if (kind_ == PeerKind::kThread) {
    ::pthread_join(thread_, nullptr);
    if (const int r = (**control_).result.load(); r != 0) return MakeError("the peer thread failed", r);
    return Ok();
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return MakeError("cannot reap the peer process " + std::to_string(pid_), errno);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Ok();
  if (WIFEXITED(status)) return MakeError("the peer process failed", WEXITSTATUS(status));
  return MakeError("the peer process " + load_internal::DescribeWaitStatus(status));
}

Peer::~Peer() {
  if (!joined_ && kind_ == PeerKind::kProcess) ::kill(pid_, SIGKILL);
  (void)Join();
  delete control_;
}

}  // namespace rtagent::bench
