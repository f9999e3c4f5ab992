#include "latency/run_facts.h"

#include <unistd.h>

#include <algorithm>
#include <map>

#include "base/kernel_paths.h"
#include "base/pm_qos.h"
#include "inspect/power.h"
#include "inspect/system_state.h"

namespace rtagent {

HostFacts ReadHostFacts(const SysRoot& root) {
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

std::optional<int32_t> ReadPmQosDevice(const SysRoot& root) {
  auto bytes = root.Read(kpath::kCpuDmaLatency);
  if (!bytes) return std::nullopt;
  auto v = ParseCpuDmaLatency(*bytes);
  if (!v || *v < 0 || *v > kPmQosNoLimitUs) return std::nullopt;
  return static_cast<int32_t>(*v);
}

std::optional<CounterSnapshot> ReadInterruptCounts(const SysRoot& root) {
  auto snap = ReadCounters(root);
  if (!snap) return std::nullopt;
  return std::move(*snap);
}

namespace {

// The name a reader knows a line by: "24 eth0,eth0-rx" (the IRQ and its handlers) or
// "LOC (Local timer interrupts)" (a named row and its description).
std::string LineName(const CounterRow& row) {
  std::string name = row.id;
  if (row.irq >= 0) {
    std::string actions;
    for (const std::string& a : row.actions) actions += (actions.empty() ? "" : ",") + a;
    if (!actions.empty()) name += " " + actions;
  } else if (!row.name.empty()) {
    name += " (" + row.name + ")";
  }
  return name;
}

}  // namespace

std::vector<InterruptDelta> InterruptDeltas(const std::optional<CounterSnapshot>& before,
                                            const std::optional<CounterSnapshot>& after, const CpuSet& cpus) {
  if (!before || !after) return {};
  std::map<std::string, uint64_t> by_name;  // two rows of one name count together
  for (const RowGrowth& g : Growth(*before, *after, cpus)) {
    if (g.row->source == CounterSource::kInterrupts) by_name[LineName(*g.row)] += g.delta;
  }
  std::vector<InterruptDelta> out;
  for (const auto& [name, count] : by_name) out.push_back({name, count});
  return out;
}

std::vector<CoarseCount> CoarseCounts(const CounterSnapshot& before, const CounterSnapshot& after, const CpuSet& cpus) {
  std::map<std::pair<std::string, std::string>, uint64_t> by_name;  // (source, name)
  for (const RowGrowth& g : Growth(before, after, cpus)) {
    if (g.row->source == CounterSource::kInterrupts) {
      by_name[{"interrupts", LineName(*g.row)}] += g.delta;
    } else {
      by_name[{"softirqs", "softirq " + g.row->id}] += g.delta;
    }
  }
  std::vector<CoarseCount> out;
  for (const auto& [key, delta] : by_name) out.push_back({key.first, key.second, delta});
  std::stable_sort(out.begin(), out.end(), [](const CoarseCount& a, const CoarseCount& b) { return a.delta > b.delta; });
  // The scheduler's counters come last, in a fixed order (they are not counts of one kind).
  CpuSchedstat grew;
  bool any = false;
  for (const int cpu : cpus.Cpus()) {
    auto b = before.schedstat.find(cpu);
    auto a = after.schedstat.find(cpu);
    if (b == before.schedstat.end() || a == after.schedstat.end()) continue;
    auto up = [](unsigned long long x, unsigned long long y) { return y > x ? y - x : 0ULL; };
    grew.wait_ns += up(b->second.wait_ns, a->second.wait_ns);
    grew.schedules += up(b->second.schedules, a->second.schedules);
    grew.wakeups += up(b->second.wakeups, a->second.wakeups);
    any = true;
  }
  if (any) {
    out.push_back({"schedstat", "µs tasks waited runnable for the CPU (schedstat run_delay)", grew.wait_ns / 1000});
    out.push_back({"schedstat", "schedule() calls on the CPU (schedstat)", grew.schedules});
    out.push_back({"schedstat", "wake-ups asked on the CPU (schedstat try_to_wake_up)", grew.wakeups});
  }
  return out;
}

}  // namespace rtagent
