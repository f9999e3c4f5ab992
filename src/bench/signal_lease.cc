#include "bench/signal_lease.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace rtagent::bench {

int NotifySignal() { return SIGRTMIN + 1; }
int TimerSignal() { return SIGRTMIN + 2; }
int HandlerSignal() { return SIGRTMIN + 3; }

ScopedBlock::ScopedBlock(int sig) {
  sigemptyset(&set_);
  sigaddset(&set_, sig);
  ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
}

ScopedBlock::~ScopedBlock() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

ScopedHandler::ScopedHandler(int sig, void (*handler)(int)) : sig_(sig) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(sig, &sa, &old_) != 0) err_ = errno;
}

ScopedHandler::~ScopedHandler() {
  if (err_ == 0) ::sigaction(sig_, &old_, nullptr);
}

int SendRtSignal(pid_t pid, pid_t tid, int sig, int value) {
  siginfo_t si{};
  si.si_signo = sig;
  si.si_code = SI_QUEUE;  // as sigqueue(3) sends it: the kernel accepts it from user space
  si.si_pid = ::getpid();
  si.si_uid = ::getuid();
  si.si_value.sival_int = value;
  return ::syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &si) == 0 ? 0 : errno;
}

}  // namespace rtagent::bench
