#include "service/self_calls.h"

#include <malloc.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>

#include <cerrno>

#include "base/kernel_paths.h"
#include "base/sysroot.h"

namespace rtagent::service {

namespace {

class LinuxSelfCalls : public SelfCalls {
 public:
  Result<void> SignalMask(int how, const sigset_t& set, sigset_t* old) override {
    if (::sigprocmask(how, &set, old) != 0) return MakeError("sigprocmask", errno);
    return Ok();
  }
  Result<int> SignalFd(const sigset_t& set) override {
    int fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0) return MakeError("signalfd", errno);
    return fd;
  }
  Result<void> SetOtherPolicy() override {
    sched_param sp{};
    sp.sched_priority = 0;
    if (::sched_setscheduler(0, SCHED_OTHER, &sp) != 0) return MakeError("sched_setscheduler(SCHED_OTHER)", errno);
    return Ok();
  }
  Result<void> SetTimerSlack(uint64_t ns) override {
    if (::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(ns), 0, 0, 0) != 0)
      return MakeError("prctl(PR_SET_TIMERSLACK)", errno);
    return Ok();
  }
  Result<void> SetAffinity(const CpuSet& cpus) override {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus.Cpus())
      if (c < CPU_SETSIZE) CPU_SET(c, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0) return MakeError("sched_setaffinity(" + cpus.ToList() + ")", errno);
    return Ok();
  }
  Result<std::string> OwnSmaps() override { return live_.Read(kpath::kSelfSmaps); }
  Result<void> DropPages(uint64_t start, uint64_t length) override {
    if (::madvise(reinterpret_cast<void*>(start), length, MADV_DONTNEED) != 0)
      return MakeError("madvise(MADV_DONTNEED)", errno);
    return Ok();
  }
  void TrimHeap() override { (void)::malloc_trim(0); }

 private:
  FsRoot live_{"/"};
};

}  // namespace

SelfCalls& RealSelfCalls() {
  static LinuxSelfCalls calls;
  return calls;
}

}  // namespace rtagent::service
