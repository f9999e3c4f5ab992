// Interrupt counters read twice: /proc/interrupts (through inspect's parser) and
// /proc/softirqs as per-CPU counts, and what moved between two readings on chosen CPUs.
// The interrupts check (Real-Time Linux, Chapter 6: "/proc/interrupts read twice") judges
// the moves per CPU; the acceptance run counts each line's growth on the measured CPUs.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// Which file a counter row comes from.
enum class CounterSource { kInterrupts, kSoftirqs };

/// One row of either file, as per-CPU counts.
struct CounterRow {
  CounterSource source = CounterSource::kInterrupts;
  std::string id;    ///< the label before ':': "24", "LOC", "IPI0", "TIMER"
  int irq = -1;      ///< the IRQ number of a numbered row, -1 otherwise
  /// What a person recognises it by: the handlers of a numbered row ("eth0, eth0-rx"), the
  /// description of a named row ("Local timer interrupts"), "" for softirqs.
  std::string name;
  std::vector<std::string> actions;  ///< numbered rows: each handler's name
  std::string chip;                  ///< numbered rows: "IO-APIC", "GICv3"
  std::map<int, unsigned long long> per_cpu;  ///< CPU number -> count
};

/// One CPU's line of /proc/schedstat (Documentation/scheduler/sched-stats.rst, versions 15 and
/// later: "cpuN" then nine counters): what the scheduler did on that CPU since boot.
struct CpuSchedstat {
  unsigned long long schedules = 0;   ///< field 3: schedule() was called
  unsigned long long wakeups = 0;     ///< field 5: try_to_wake_up() was called
  unsigned long long run_ns = 0;      ///< field 7: time tasks spent running on the CPU
  unsigned long long wait_ns = 0;     ///< field 8: time tasks spent runnable, waiting for it
  unsigned long long timeslices = 0;  ///< field 9
};

/// Both files at one moment. `softirqs_error` is "" when /proc/softirqs was read. The
/// scheduler's per-CPU counters ride along where the kernel has /proc/schedstat
/// (CONFIG_SCHEDSTATS); they are never counter rows, so the interrupts check does not see them.
struct CounterSnapshot {
  std::vector<CounterRow> rows;
  std::string softirqs_error;
  std::map<int, CpuSchedstat> schedstat;  ///< CPU -> its counters; empty without /proc/schedstat
};

/// Parses /proc/schedstat's "cpuN" lines (versions 15 and later); other lines (version,
/// timestamp, domainN) and short or unreadable ones are skipped. Pure.
std::map<int, CpuSchedstat> ParseSchedstat(std::string_view text);

/// Parses /proc/softirqs (kernel/softirq.c show_softirqs(): a "CPU0 CPU1 ..." header, then
/// one "NAME: count count ..." line per softirq). Pure; unreadable lines are skipped.
std::vector<CounterRow> ParseSoftirqs(std::string_view text);

/// Reads proc/interrupts (an error when it cannot) and proc/softirqs (its absence is noted in
/// softirqs_error, not an error: some kernels and fixtures lack it).
Result<CounterSnapshot> ReadCounters(const SysRoot& root);

/// A row whose count grew on one CPU between two readings.
struct CounterMove {
  const CounterRow* row = nullptr;  ///< into the later snapshot
  int cpu = -1;
  unsigned long long delta = 0;
  double per_second = 0;
};

/// Every (row, CPU in `cpus`) whose count grew from `before` to `after`, over `window`, in
/// the later snapshot's row order then CPU order. Rows are paired by (source, id); a row
/// that appears only later (a new IRQ) counts from 0. A count that went down (a counter
/// reset by a CPU going offline and back) is not a move.
std::vector<CounterMove> Moves(const CounterSnapshot& before, const CounterSnapshot& after, const CpuSet& cpus,
                               std::chrono::nanoseconds window);

/// A row whose count grew on the chosen CPUs, summed over them.
struct RowGrowth {
  const CounterRow* row = nullptr;  ///< into the later snapshot
  unsigned long long delta = 0;
};

/// Every row's growth on `cpus` from `before` to `after`: the sum of its Moves, in the later
/// snapshot's row order; rows that did not grow are left out.
std::vector<RowGrowth> Growth(const CounterSnapshot& before, const CounterSnapshot& after, const CpuSet& cpus);

}  // namespace rtagent
