#include "inspect/interrupt_counts.h"

#include <cerrno>
#include <sstream>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "inspect/irqs.h"

namespace rtagent {
namespace {

std::string JoinActions(const std::vector<std::string>& actions) {
  std::string out;
  for (const auto& a : actions) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// Rows of a parsed table as per-CPU counters. The ERR/MIS rows of x86 hold one total, not a
// count per CPU, so they cannot be placed on a CPU and are left out.
std::vector<CounterRow> ToRows(InterruptTable table, CounterSource source) {
  std::vector<CounterRow> out;
  for (auto& r : table.rows) {
    if (r.counts.size() != table.cpus.size() || table.cpus.empty()) continue;
    CounterRow row;
    row.source = source;
    row.id = r.id;
    row.irq = r.irq;
    row.chip = r.chip;
    row.actions = r.actions;
    row.name = r.irq >= 0 ? JoinActions(r.actions) : r.description;
    const std::vector<unsigned long long> dense = r.counts.Dense();  // every CPU, 0 included
    for (size_t c = 0; c < table.cpus.size(); ++c) row.per_cpu[table.cpus[c]] = dense[c];
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

std::map<int, CpuSchedstat> ParseSchedstat(std::string_view text) {
  std::map<int, CpuSchedstat> out;
  for (std::string_view piece : SplitLines(text)) {
    const std::string line(piece);
    if (line.rfind("cpu", 0) != 0) continue;
    std::istringstream in(line.substr(3));
    long long cpu = -1;
    if (!(in >> cpu) || cpu < 0 || cpu > 1 << 20) continue;
    unsigned long long f[9];
    bool whole = true;
    for (auto& v : f) whole = whole && static_cast<bool>(in >> v);
    if (!whole) continue;
    out[static_cast<int>(cpu)] = CpuSchedstat{f[2], f[4], f[6], f[7], f[8]};
  }
  return out;
}

std::vector<CounterRow> ParseSoftirqs(std::string_view text) {
  // kernel/softirq.c show_softirqs() prints the same "CPUn" header and "LABEL: counts" rows
  // as /proc/interrupts' named rows, without a description: inspect's parser reads both.
  return ToRows(ParseInterrupts(text), CounterSource::kSoftirqs);
}

Result<CounterSnapshot> ReadCounters(const SysRoot& root) {
  auto irqs = root.Read(kpath::kInterrupts);
  if (!irqs) return irqs.error();
  CounterSnapshot snap;
  snap.rows = ToRows(ParseInterrupts(*irqs), CounterSource::kInterrupts);
  if (snap.rows.empty()) {
    return InvalidInput(root.Dir() + " " + kpath::kInterrupts + ": no per-CPU counts could be read");
  }
  if (auto soft = root.Read(kpath::kSoftirqs)) {
    auto rows = ParseSoftirqs(*soft);
    snap.rows.insert(snap.rows.end(), rows.begin(), rows.end());
  } else {
    snap.softirqs_error = soft.error().message;
  }
  if (auto sched = root.Read(kpath::kSchedstat)) snap.schedstat = ParseSchedstat(*sched);
  return snap;
}

std::vector<CounterMove> Moves(const CounterSnapshot& before, const CounterSnapshot& after, const CpuSet& cpus,
                               std::chrono::nanoseconds window) {
  std::vector<CounterMove> out;
  double seconds = std::chrono::duration<double>(window).count();
  for (const CounterRow& row : after.rows) {
    const CounterRow* old = nullptr;
    for (const CounterRow& b : before.rows) {
      if (b.source == row.source && b.id == row.id) {
        old = &b;
        break;
      }
    }
    for (const auto& [cpu, count] : row.per_cpu) {
      if (!cpus.Has(cpu)) continue;
      unsigned long long was = 0;
      if (old) {
        auto it = old->per_cpu.find(cpu);
        if (it != old->per_cpu.end()) was = it->second;
      }
      if (count <= was) continue;
      CounterMove m;
      m.row = &row;
      m.cpu = cpu;
      m.delta = count - was;
      m.per_second = seconds > 0 ? static_cast<double>(m.delta) / seconds : 0;
      out.push_back(m);
    }
  }
  return out;
}

std::vector<RowGrowth> Growth(const CounterSnapshot& before, const CounterSnapshot& after, const CpuSet& cpus) {
  std::vector<RowGrowth> out;
  for (const CounterMove& m : Moves(before, after, cpus, std::chrono::nanoseconds(0))) {
    // Moves come row by row, so a row's CPUs are next to each other.
    if (out.empty() || out.back().row != m.row) out.push_back({m.row, 0});
    out.back().delta += m.delta;
  }
  return out;
}

}  // namespace rtagent
