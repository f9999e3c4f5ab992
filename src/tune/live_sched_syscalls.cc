#include "tune/live_sched_syscalls.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "base/kernel_paths.h"
#include "inspect/threads.h"

namespace rtagent {
namespace {

// struct sched_attr of include/uapi/linux/sched/types.h, SCHED_ATTR_SIZE_VER0 (48 bytes). The
// kernel accepts any size from VER0 up and fills or reads only what both sides know. Our own
// name keeps it apart from the one newer glibc headers declare.
struct RawSchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};
static_assert(sizeof(RawSchedAttr) == 48, "SCHED_ATTR_SIZE_VER0");

constexpr uint64_t kSchedFlagResetOnFork = 0x01;  // SCHED_FLAG_RESET_ON_FORK
// Enough for any machine Linux runs on today (NR_CPUS tops out at 8192).
constexpr int kMaxCpus = 8192;

class LiveSchedSyscalls : public SchedSyscalls {
 public:
  explicit LiveSchedSyscalls(const SysRoot& root) : root_(root) {}

  Result<SchedAttr> GetAttr(const TaskId& t) const override {
    if (auto r = Check(t); !r) return r.error();
    RawSchedAttr raw{};
    if (::syscall(SYS_sched_getattr, t.tid, &raw, sizeof raw, 0) != 0) {
      return MakeError("sched_getattr(" + std::to_string(t.tid) + ")", errno);
    }
    SchedAttr a;
    a.policy = static_cast<int>(raw.sched_policy);
    a.priority = static_cast<int>(raw.sched_priority);
    a.nice = raw.sched_nice;
    a.flags = raw.sched_flags;
    if (a.policy == kSchedDeadline) {
      a.runtime_ns = static_cast<long long>(raw.sched_runtime);
      a.deadline_ns = static_cast<long long>(raw.sched_deadline);
      a.period_ns = static_cast<long long>(raw.sched_period);
    }
    return a;
  }

  Result<void> SetAttr(const TaskId& t, const SchedAttr& a) override {
    if (auto r = Check(t); !r) return r;
    if (a.policy == kSchedDeadline && (a.runtime_ns < 0 || a.deadline_ns < 0 || a.period_ns < 0)) {
      return InvalidInput("deadline parameters of thread " + TaskKey(t) + " are not all known");
    }
    RawSchedAttr raw{};
    raw.size = sizeof raw;
    raw.sched_policy = static_cast<uint32_t>(a.policy);
    // Keep the thread's reset-on-fork choice: it belongs to the application, not to us.
    RawSchedAttr now{};
    if (::syscall(SYS_sched_getattr, t.tid, &now, sizeof now, 0) == 0) raw.sched_flags = now.sched_flags & kSchedFlagResetOnFork;
    bool rt = a.policy == kSchedFifo || a.policy == kSchedRr;
    raw.sched_priority = rt ? static_cast<uint32_t>(a.priority) : 0;
    raw.sched_nice = rt || a.policy == kSchedDeadline ? 0 : a.nice;
    if (a.policy == kSchedDeadline) {
      raw.sched_runtime = static_cast<uint64_t>(a.runtime_ns);
      raw.sched_deadline = static_cast<uint64_t>(a.deadline_ns);
      raw.sched_period = static_cast<uint64_t>(a.period_ns);
    }
    if (::syscall(SYS_sched_setattr, t.tid, &raw, 0) != 0) {
      int e = errno;
      std::string msg = "sched_setattr(" + std::to_string(t.tid) + ", " + FormatSched(a) + ")";
      // kernel/sched/syscalls.c: a deadline task must be allowed on every CPU of its root
      // domain (EPERM), and admission control refuses a booking over the limit (EBUSY).
      if (e == EPERM && a.policy == kSchedDeadline) {
        msg += " (a deadline thread must be allowed on every CPU of its root domain; run as root)";
      }
      return MakeError(msg, e);
    }
    return Ok();
  }

  Result<CpuSet> GetAffinity(const TaskId& t) const override {
    if (auto r = Check(t); !r) return r.error();
    cpu_set_t* set = CPU_ALLOC(kMaxCpus);
    if (set == nullptr) return MakeError("cannot allocate a CPU set", ENOMEM);
    size_t size = CPU_ALLOC_SIZE(kMaxCpus);
    CPU_ZERO_S(size, set);
    if (::sched_getaffinity(t.tid, size, set) != 0) {
      int e = errno;
      CPU_FREE(set);
      return MakeError("sched_getaffinity(" + std::to_string(t.tid) + ")", e);
    }
    CpuSet out;
    for (int cpu = 0; cpu < kMaxCpus; ++cpu) {
      if (CPU_ISSET_S(cpu, size, set)) out.Add(cpu);
    }
    CPU_FREE(set);
    return out;
  }

  Result<void> SetAffinity(const TaskId& t, const CpuSet& cpus) override {
    if (auto r = Check(t); !r) return r;
    if (cpus.Empty() || cpus.Max() >= kMaxCpus) return InvalidInput("no usable CPU in \"" + cpus.ToList() + "\"");
    cpu_set_t* set = CPU_ALLOC(kMaxCpus);
    if (set == nullptr) return MakeError("cannot allocate a CPU set", ENOMEM);
    size_t size = CPU_ALLOC_SIZE(kMaxCpus);
    CPU_ZERO_S(size, set);
    for (int cpu : cpus.Cpus()) CPU_SET_S(cpu, size, set);
    int rc = ::sched_setaffinity(t.tid, size, set);
    int e = errno;
    CPU_FREE(set);
    if (rc != 0) return MakeError("sched_setaffinity(" + std::to_string(t.tid) + ", " + cpus.ToList() + ")", e);
    return Ok();
  }

 private:
  // A thread id is reused once its thread exits; proc/PID/task/TID exists only while TID is a
  // thread of PID, so a recycled id in another process is never touched.
  Result<void> Check(const TaskId& t) const {
    if (!root_.IsDir(kpath::Task(t.pid, t.tid))) {
      return MakeError("thread " + TaskKey(t) + " does not exist (it exited)", ESRCH);
    }
    return Ok();
  }
  const SysRoot& root_;
};

}  // namespace

std::unique_ptr<SchedSyscalls> MakeLiveSchedSyscalls(const SysRoot& root) {
  return std::make_unique<LiveSchedSyscalls>(root);
}

}  // namespace rtagent
