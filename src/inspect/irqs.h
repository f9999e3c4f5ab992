// Interrupts: /proc/interrupts parsed, each IRQ's affinity and its sysfs description.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// A row's counts, one per column, of which only the non-zero ones are kept: an IRQ fires on
/// the CPUs its affinity sends it to, so on a 256-CPU server nearly every column of its row is
/// 0, and 4,096 dense rows took 8 MiB that inspect and verify wrote and page-faulted in.
class ColumnCounts {
 public:
  struct Entry {
    unsigned column = 0;
    unsigned long long count = 0;
    bool operator==(const Entry&) const = default;
  };
  ColumnCounts() = default;
  /// From every column's count, in order.
  ColumnCounts(std::initializer_list<unsigned long long> dense);
  explicit ColumnCounts(const std::vector<unsigned long long>& dense);
  /// Adds the next column.
  void Append(unsigned long long count) {
    if (count != 0) nonzero_.push_back({static_cast<unsigned>(columns_), count});
    ++columns_;
  }
  size_t size() const { return columns_; }
  bool empty() const { return columns_ == 0; }
  /// The count of column `column` (0 past the end).
  unsigned long long operator[](size_t column) const;
  /// The non-zero counts, by column.
  const std::vector<Entry>& NonZero() const { return nonzero_; }
  /// Every column's count, in order.
  std::vector<unsigned long long> Dense() const;
  bool operator==(const ColumnCounts&) const = default;

 private:
  size_t columns_ = 0;
  std::vector<Entry> nonzero_;
};

/// One row of /proc/interrupts (kernel/irq/proc.c show_interrupts(), plus the architecture's
/// own rows from arch_show_interrupts()).
struct InterruptRow {
  std::string id;  ///< "24", "LOC", "IPI0", "ERR"
  int irq = -1;    ///< the IRQ number for numbered rows, -1 for the named per-CPU rows
  /// Counts per column (InterruptTable::cpus); a single total for ERR/MIS/Err rows.
  ColumnCounts counts;
  std::string chip;     ///< numbered rows: "IO-APIC", "GICv3", "PCI-MSIX-0000:00:05.0"
  std::string hwirq;    ///< numbered rows: the hardware IRQ number, "" when the IRQ has no domain
  std::string trigger;  ///< "Level" or "Edge" (architectures with GENERIC_IRQ_SHOW_LEVEL: arm64)
  std::string handler;  ///< the flow handler name after '-': "edge", "fasteoi" (x86)
  std::vector<std::string> actions;  ///< the handlers' names: "eth0", "virtio0-config"
  std::string description;           ///< named rows: "Local timer interrupts"
};

/// The parsed file. Only online CPUs have a column; `cpus` maps columns to CPU numbers.
struct InterruptTable {
  std::vector<int> cpus;
  std::vector<InterruptRow> rows;
};

/// Parses /proc/interrupts a line at a time (the lines without their '\n', in order), so that
/// a large server's file need not be held whole. Rows it cannot read are skipped.
class InterruptTableBuilder {
 public:
  void Line(std::string_view line);
  /// The table of the lines given so far; the builder is left empty.
  InterruptTable Take() { return std::move(table_); }

 private:
  InterruptTable table_;
  bool header_done_ = false;
};

/// Parses /proc/interrupts text (InterruptTableBuilder over its lines). Pure.
InterruptTable ParseInterrupts(std::string_view text);

/// One IRQ as inspect reports it.
struct IrqInfo {
  int irq = 0;
  std::string chip;
  std::string hwirq;
  std::string type;     ///< "edge", "level" or "" when unknown
  std::string handler;  ///< flow handler name ("edge", "fasteoi"), often ""
  std::vector<std::string> actions;
  ColumnCounts counts;  ///< per column of IrqState::cpu_columns
  unsigned long long total = 0;
  unsigned long long on_isolated = 0;  ///< sum over CpuState::isolated_all
  std::optional<CpuSet> affinity;            ///< proc/irq/N/smp_affinity_list
  std::optional<CpuSet> effective_affinity;  ///< proc/irq/N/effective_affinity_list
  /// The IRQ is per-CPU (an arm GIC SGI/PPI such as arch_timer, or a percpu flow handler):
  /// its affinity cannot be changed.
  bool per_cpu = false;
  /// Looks like a managed IRQ (a block-device queue vector spread over CPUs by the kernel:
  /// nvmeNqM, virtioN-req.M). Writing its affinity gives EIO. A hint, not a certainty.
  bool managed_hint = false;

  /// The actions joined with ", " (what /proc/interrupts shows as the device name).
  std::string Name() const;
};

/// A named per-CPU row (LOC, RES, CAL, TLB, IPIn, ...): moves on isolated CPUs are what the
/// interrupts check of the verify command looks at.
struct PerCpuInterrupt {
  std::string id;
  std::string description;
  ColumnCounts counts;
  unsigned long long total = 0;
  unsigned long long on_isolated = 0;
};

/// What inspect's "irqs" section shows.
struct IrqState {
  bool readable = false;         ///< proc/interrupts could be read
  std::vector<int> cpu_columns;  ///< CPU of each count column
  std::optional<CpuSet> default_affinity;  ///< proc/irq/default_smp_affinity
  std::vector<IrqInfo> irqs;
  std::vector<PerCpuInterrupt> per_cpu_rows;
};

/// Whether an action name looks like a managed (kernel-spread) queue vector.
bool ActionLooksManaged(std::string_view action);

/// Reads proc/interrupts once, then each IRQ's proc/irq/N affinity files and, when the
/// kernel has them, sys/kernel/irq/N/type (and chip_name, hwirq, actions when the
/// /proc/interrupts line left them out).
IrqState CollectIrqs(const SysRoot& root, const CpuSet& isolated_all);

}  // namespace rtagent
