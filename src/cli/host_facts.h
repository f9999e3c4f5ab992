// The facts about the measured machine that every report states before its figures (accept's
// verdict, bench's run): host name, kernel, PREEMPT_RT, clocksource, a hypervisor underneath.
#pragma once

#include "base/sysroot.h"
#include "report/verdict.h"

namespace rtagent {

/// Host name, kernel release and version, PREEMPT_RT, clocksource and the hypervisor (from
/// inspect's kernel and clock sections). The clock's resolution and read cost are left to the
/// caller, who measures them on the CPU that measures (latency/clock_info.h).
HostFacts CollectHostFacts(const SysRoot& root);

}  // namespace rtagent
