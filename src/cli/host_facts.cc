#include "cli/host_facts.h"

#include <unistd.h>

#include "inspect/system_state.h"

namespace rtagent {

HostFacts CollectHostFacts(const SysRoot& root) {
  HostFacts h;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) h.hostname = host;
  const SystemState state = CollectSystemState(root, {Section::kKernel, Section::kClock});
  if (state.kernel) {
    h.kernel_release = state.kernel->release.value_or("");
    h.kernel_version = state.kernel->version.value_or("");
    h.preempt_rt = state.kernel->preempt_rt;
  }
  if (state.clock) {
    h.clocksource = state.clock->clocksource.value_or("");
    const HypervisorInfo& hv = state.clock->hypervisor;
    h.virtual_machine = hv.present;
    if (hv.type) h.hypervisor = *hv.type;
    else if (hv.present && hv.dmi_sys_vendor) h.hypervisor = *hv.dmi_sys_vendor;
  }
  return h;
}

}  // namespace rtagent
