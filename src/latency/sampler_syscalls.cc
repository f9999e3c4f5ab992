#include "latency/sampler_syscalls.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

namespace rtagent {

Result<void> LinuxSamplerSyscalls::LockMemory() {
  // ENOMEM without privilege means RLIMIT_MEMLOCK is too small; EPERM is a missing CAP_IPC_LOCK.
  if (::mlockall(MCL_CURRENT | MCL_FUTURE) != 0) return MakeError("mlockall(MCL_CURRENT | MCL_FUTURE)", errno);
  return Ok();
}

Result<void> LinuxSamplerSyscalls::UnlockMemory() {
  if (::munlockall() != 0) return MakeError("munlockall()", errno);
  return Ok();
}

Result<CpuSet> LinuxSamplerSyscalls::GetAffinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return MakeError("sched_getaffinity", errno);
  CpuSet out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.Add(cpu);
  }
  return out;
}

Result<void> LinuxSamplerSyscalls::SetAffinity(const CpuSet& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus.Cpus()) {
    if (cpu >= CPU_SETSIZE) return InvalidInput("CPU " + std::to_string(cpu) + " is beyond CPU_SETSIZE");
    CPU_SET(cpu, &set);
  }
  if (::sched_setaffinity(0, sizeof set, &set) != 0) {
    return MakeError("sched_setaffinity to CPUs " + cpus.ToList(), errno);
  }
  return Ok();
}

Result<SchedState> LinuxSamplerSyscalls::GetScheduler() {
  int policy = ::sched_getscheduler(0);
  if (policy < 0) return MakeError("sched_getscheduler", errno);
  sched_param sp{};
  if (::sched_getparam(0, &sp) != 0) return MakeError("sched_getparam", errno);
  // SCHED_RESET_ON_FORK may be or-ed into the policy; keep only the class.
  return SchedState{policy & ~SCHED_RESET_ON_FORK, sp.sched_priority};
}

Result<void> LinuxSamplerSyscalls::SetScheduler(const SchedState& state) {
  sched_param sp{};
  sp.sched_priority = state.priority;
  if (::sched_setscheduler(0, state.policy, &sp) != 0) {
    return MakeError("sched_setscheduler " + SchedPolicyName(state.policy) + " priority " + std::to_string(state.priority),
                     errno);
  }
  return Ok();
}

Result<uint64_t> LinuxSamplerSyscalls::GetTimerSlack() {
  int r = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (r < 0) return MakeError("prctl(PR_GET_TIMERSLACK)", errno);
  return static_cast<uint64_t>(r);
}

Result<void> LinuxSamplerSyscalls::SetTimerSlack(uint64_t ns) {
  if (::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(ns), 0, 0, 0) != 0) {
    return MakeError("prctl(PR_SET_TIMERSLACK, " + std::to_string(ns) + ")", errno);
  }
  return Ok();
}

std::unique_ptr<QosDevice> LinuxSamplerSyscalls::PmQosDevice(const SysRoot& root) {
  return MakeKernelQosDevice(root);
}

SamplerSyscalls& RealSamplerSyscalls() {
  static LinuxSamplerSyscalls real;
  return real;
}

std::string SchedPolicyName(int policy) {
  switch (policy) {
    case SCHED_OTHER: return "SCHED_OTHER";
    case SCHED_FIFO: return "SCHED_FIFO";
    case SCHED_RR: return "SCHED_RR";
    case SCHED_BATCH: return "SCHED_BATCH";
    case SCHED_IDLE: return "SCHED_IDLE";
#ifdef SCHED_DEADLINE
    case SCHED_DEADLINE: return "SCHED_DEADLINE";
#endif
    default: return "policy " + std::to_string(policy);
  }
}

}  // namespace rtagent
