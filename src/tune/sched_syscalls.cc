#include "tune/sched_syscalls.h"

#include "tune/fixture_sched_syscalls.h"
#include "tune/live_sched_syscalls.h"

namespace rtagent {

SchedFactory DefaultSchedFactory() {
  return [](const SysRoot& reads, SysRoot* writes) -> std::unique_ptr<SchedSyscalls> {
    // Only the running system gets real syscalls; any other root gets the twin, so a
    // fixture thread whose number is a live PID never reaches that process.
    if (reads.IsLive() && (writes == nullptr || writes->IsLive())) return MakeLiveSchedSyscalls(reads);
    return std::make_unique<FixtureSchedSyscalls>(reads, writes);
  };
}

}  // namespace rtagent
