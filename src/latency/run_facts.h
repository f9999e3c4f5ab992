// The facts read around an acceptance run that qualify its figures: the host (kernel,
// PREEMPT_RT, clocksource, virtual machine), the PM QoS note in force and the interrupts that
// fired on the measured CPUs. All of it is read through the SysRoot and inspect's parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"
#include "inspect/interrupt_counts.h"
#include "latency/clock_info.h"

namespace rtagent {

/// Facts about the machine that qualify the figures.
struct HostFacts {
  std::string hostname;
  std::string kernel_release;  ///< uname -r
  std::string kernel_version;  ///< uname -v (says PREEMPT_RT on a real-time kernel)
  bool preempt_rt = false;
  std::string clocksource;     ///< current_clocksource
  bool virtual_machine = false;
  std::string hypervisor;      ///< "kvm", "xen", ... ("" when unknown or none)
  bool coarse_clock = false;
  std::vector<std::string> clock_reasons;  ///< JudgeClock's reasons (clock_info.h)
  int64_t clock_resolution_ns = 0;
  int64_t clock_read_cost_ns = 0;
  /// The profile's boot arguments the running kernel lacks (commission wrote them for the next
  /// boot): the measured CPUs are not isolated yet, and a run after the reboot is the one that counts.
  std::vector<std::string> boot_args_pending;
};

/// The host's name (gethostname(2)), kernel and clock facts under `root`. The clock figures
/// and the clock's verdict are left to the caller (MeasureClock, JudgeClock).
HostFacts ReadHostFacts(const SysRoot& root);

/// /dev/cpu_dma_latency's current value (the strictest note of every holder) through `root`;
/// nullopt when it cannot be read or makes no sense. Opening the device adds a request at the
/// default value, which asks for nothing.
std::optional<int32_t> ReadPmQosDevice(const SysRoot& root);

/// How many times one interrupt line (/proc/interrupts name) fired on the measured CPUs.
struct InterruptDelta {
  std::string name;  ///< "24 eth0,eth0-rx", "LOC (Local timer interrupts)"
  uint64_t count = 0;
};

/// /proc/interrupts (and /proc/softirqs) now; nullopt when /proc/interrupts cannot be read,
/// which leaves a run without interrupt figures rather than stopping it.
std::optional<CounterSnapshot> ReadInterruptCounts(const SysRoot& root);

/// The /proc/interrupts lines that fired on `cpus` between two readings, by name (a numbered
/// IRQ with its handlers, a named row with its description), in name order. Softirqs are left
/// out. Empty when either reading is missing.
std::vector<InterruptDelta> InterruptDeltas(const std::optional<CounterSnapshot>& before,
                                            const std::optional<CounterSnapshot>& after, const CpuSet& cpus);

/// One interrupt line or softirq that grew on the measured CPU: a row of the coarse "why"
/// (docs/explain.md), where no tracer can say what ran.
struct CoarseCount {
  std::string source;  ///< "interrupts" or "softirqs"
  std::string name;    ///< as InterruptDelta names a line; "softirq TIMER" for a softirq
  uint64_t delta = 0;

  bool operator==(const CoarseCount&) const = default;
};

/// Every interrupt line and softirq that grew on `cpus` between two readings, largest first
/// (then in name order).
std::vector<CoarseCount> CoarseCounts(const CounterSnapshot& before, const CounterSnapshot& after, const CpuSet& cpus);

}  // namespace rtagent
