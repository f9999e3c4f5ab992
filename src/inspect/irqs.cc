#include "inspect/irqs.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/sysroot_pieces.h"

namespace rtagent {
namespace {

struct Token {
  std::string_view text;
  size_t end = 0;  // offset just past the token in its line
};

// Next whitespace-separated token of `line` from `pos`; empty text at the end.
Token NextToken(std::string_view line, size_t pos) {
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  size_t b = pos;
  while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
  return {line.substr(b, pos - b), pos};
}

std::vector<std::string> SplitActions(std::string_view text, std::string_view sep) {
  std::vector<std::string> out;
  text = TrimView(text);
  while (!text.empty()) {
    size_t p = text.find(sep);
    std::string_view a = TrimView(text.substr(0, p));
    if (!a.empty()) out.emplace_back(a);
    if (p == std::string_view::npos) break;
    text.remove_prefix(p + sep.size());
  }
  return out;
}

// The tail of a numbered row after its counts:
//   chip [hwirq][-handler] [Level|Edge] [-handler]  action[, action...]
// e.g. "IO-APIC   1-edge      i8042", "GICv3  27 Level     arch_timer",
//      "PCI-MSIX-0000:00:05.0   0-edge      virtio4-config".
void ParseNumberedTail(std::string_view line, size_t pos, InterruptRow* row) {
  Token chip = NextToken(line, pos);
  row->chip = std::string(chip.text);
  pos = chip.end;
  Token t = NextToken(line, pos);
  std::string_view hw = t.text;
  if (!hw.empty() && (std::isdigit(static_cast<unsigned char>(hw.front())) || hw.front() == '-')) {
    size_t dash = hw.find('-');
    std::string_view num = hw.substr(0, dash);
    if (num.empty() || AllDigits(num)) {
      row->hwirq = std::string(num);
      if (dash != std::string_view::npos) row->handler = std::string(hw.substr(dash + 1));
      pos = t.end;
      t = NextToken(line, pos);
    }
  }
  if (t.text == "Level" || t.text == "Edge") {
    row->trigger = std::string(t.text);
    pos = t.end;
    t = NextToken(line, pos);
    if (!t.text.empty() && t.text.front() == '-') {
      row->handler = std::string(t.text.substr(1));
      pos = t.end;
    }
  }
  row->actions = SplitActions(line.substr(std::min(pos, line.size())), ", ");
}

bool IsGic(const std::string& chip) { return chip.rfind("GIC", 0) == 0; }

}  // namespace

ColumnCounts::ColumnCounts(std::initializer_list<unsigned long long> dense) {
  for (unsigned long long v : dense) Append(v);
}

ColumnCounts::ColumnCounts(const std::vector<unsigned long long>& dense) {
  for (unsigned long long v : dense) Append(v);
}

unsigned long long ColumnCounts::operator[](size_t column) const {
  auto it = std::lower_bound(nonzero_.begin(), nonzero_.end(), column,
                             [](const Entry& e, size_t c) { return e.column < c; });
  return it != nonzero_.end() && it->column == column ? it->count : 0;
}

std::vector<unsigned long long> ColumnCounts::Dense() const {
  std::vector<unsigned long long> out(columns_, 0);
  for (const Entry& e : nonzero_) out[e.column] = e.count;
  return out;
}

std::string IrqInfo::Name() const {
  std::string out;
  for (const auto& a : actions) {
    if (!out.empty()) out += ", ";
    out += a;
  }
  return out;
}

void InterruptTableBuilder::Line(std::string_view line) {
  if (!header_done_) {
    // Blank lines before the header are skipped. The header names the online CPUs:
    // "           CPU0       CPU1 ..." (offline CPUs have no column).
    if (TrimView(line).empty()) return;
    header_done_ = true;
    if (TrimView(line).substr(0, 3) == "CPU") {
      // Every word is "CPUn"; a shorter one (a damaged file) is no column (fuzz/interrupts_fuzz.cc:
      // substr(3) of it threw std::out_of_range out of the parser).
      for (auto w : SplitWs(line)) {
        if (w.size() <= 3 || w.substr(0, 3) != "CPU") continue;
        if (auto n = ParseInt(w.substr(3)); n && *n >= 0 && *n <= INT_MAX) table_.cpus.push_back(static_cast<int>(*n));
      }
      return;
    }
  }
  const size_t ncols = table_.cpus.size();
  Token id = NextToken(line, 0);
  if (id.text.size() < 2 || id.text.back() != ':') return;
  InterruptRow row;
  row.id = std::string(id.text.substr(0, id.text.size() - 1));
  if (AllDigits(row.id)) {
    // An IRQ number too long for a long long is no IRQ number (it dereferenced an empty optional).
    if (auto n = ParseInt(row.id); n && *n <= INT_MAX) row.irq = static_cast<int>(*n);
  }
  size_t pos = id.end;
  // The counts, by hand: on a 256-CPU board this loop sees a million numbers.
  while (row.counts.size() < std::max<size_t>(ncols, 1)) {
    size_t p = pos;
    while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
    size_t b = p;
    unsigned long long v = 0;
    while (p < line.size() && line[p] >= '0' && line[p] <= '9') v = v * 10 + static_cast<unsigned>(line[p++] - '0');
    if (p == b || (p < line.size() && line[p] != ' ' && line[p] != '\t')) break;  // "5-edge" is no count
    row.counts.Append(v);
    pos = p;
  }
  if (row.counts.empty()) return;
  if (row.irq >= 0) {
    ParseNumberedTail(line, pos, &row);
  } else {
    row.description = Trim(line.substr(std::min(pos, line.size())));
  }
  table_.rows.push_back(std::move(row));
}

InterruptTable ParseInterrupts(std::string_view text) {
  InterruptTableBuilder b;
  for (auto line : SplitLines(text)) b.Line(line);
  return b.Take();
}

bool ActionLooksManaged(std::string_view a) {
  // nvme I/O queues "nvme0q1".. (q0 is the admin queue and is not managed).
  if (a.substr(0, 4) == "nvme") {
    size_t q = a.find('q');
    if (q != std::string_view::npos && q + 1 < a.size() && AllDigits(a.substr(q + 1)) && a.substr(q + 1) != "0" &&
        AllDigits(a.substr(4, q - 4))) {
      return true;
    }
  }
  // virtio-blk request queues "virtio1-req.0" (drivers/block/virtio_blk.c asks for
  // PCI_IRQ_AFFINITY) and virtio-scsi "virtio2-request".
  if (a.substr(0, 6) == "virtio") {
    if (a.find("-req.") != std::string_view::npos || a.find("-request") != std::string_view::npos) return true;
  }
  return false;
}

namespace {

// Which IRQs have a sys/kernel/irq/N directory (CONFIG_SPARSE_IRQ), sorted: listed once, so a
// kernel without them costs one failed List, not thousands of failed reads.
std::vector<int> SysIrqs(const SysRoot& root) {
  std::vector<int> sys_irqs;
  if (auto names = root.List(kpath::kSysIrqDir)) {
    for (const auto& n : *names) {
      if (auto v = ParseInt(n)) sys_irqs.push_back(static_cast<int>(*v));
    }
    std::sort(sys_irqs.begin(), sys_irqs.end());
  }
  return sys_irqs;
}

// What /proc/interrupts' line does not say about one IRQ: its sysfs files (when `has_sys`), its
// affinity files under /proc/irq/N, whether it is per-CPU and whether it looks managed.
void ReadIrqFiles(const SysRoot& root, bool has_sys, IrqInfo& irq) {
  if (has_sys) {
    // kernel/irq/irqdesc.c: "type" (edge or level) is the one fact x86's /proc/interrupts
    // line lacks; the others are read only when the line did not show them.
    if (auto r = root.ReadTrimmed(kpath::SysIrqFile(irq.irq, kpath::kSysIrqType)); r && !r->empty()) irq.type = *r;
    if (irq.chip.empty()) {
      if (auto r = root.ReadTrimmed(kpath::SysIrqFile(irq.irq, kpath::kSysIrqChipName))) irq.chip = *r;
    }
    if (irq.hwirq.empty()) {
      if (auto r = root.ReadTrimmed(kpath::SysIrqFile(irq.irq, kpath::kSysIrqHwirq))) irq.hwirq = *r;
    }
    if (irq.actions.empty()) {
      if (auto r = root.Read(kpath::SysIrqFile(irq.irq, kpath::kSysIrqActions))) irq.actions = SplitActions(*r, ",");
    }
  }
  if (irq.type.empty() && (irq.handler == "edge" || irq.handler == "level")) irq.type = irq.handler;

  if (auto r = root.Read(kpath::ProcIrqFile(irq.irq, kpath::kIrqSmpAffinityList))) {
    if (auto s = CpuSet::ParseList(*r)) irq.affinity = *s;
  }
  // Needs CONFIG_GENERIC_IRQ_EFFECTIVE_AFF_MASK; an IO-APIC line's effective affinity only
  // follows a change at its next interrupt (Documentation/core-api/irq/irq-affinity.rst).
  if (auto r = root.Read(kpath::ProcIrqFile(irq.irq, kpath::kIrqEffectiveAffinityList))) {
    if (auto s = CpuSet::ParseList(*r)) irq.effective_affinity = *s;
  }

  // GIC hwirqs 0-15 are SGIs and 16-31 PPIs (1056-1119 the extended PPIs): banked per CPU.
  if (IsGic(irq.chip)) {
    if (auto hw = ParseInt(irq.hwirq); hw && (*hw < 32 || (*hw >= 1056 && *hw < 1120))) irq.per_cpu = true;
  }
  if (irq.handler.find("percpu") != std::string::npos) irq.per_cpu = true;
  for (const auto& a : irq.actions) irq.managed_hint |= ActionLooksManaged(a);
}

}  // namespace

IrqState CollectIrqs(const SysRoot& root, const CpuSet& isolated_all) {
  IrqState st;
  if (auto r = root.Read(kpath::kDefaultSmpAffinity)) {
    if (auto s = CpuSet::ParseMask(*r)) st.default_affinity = *s;
  }
  // Parsed a line at a time as it is read: on a large server the file is megabytes (11.8 MB
  // for 4,096 IRQs on 256 CPUs), and its text was the largest thing inspect held.
  InterruptTableBuilder builder;
  if (!ReadLinesFrom(root, kpath::kInterrupts, [&builder](std::string_view line) { builder.Line(line); })) return st;
  st.readable = true;
  InterruptTable table = builder.Take();
  st.cpu_columns = table.cpus;
  std::vector<bool> col_isolated(table.cpus.size());
  for (size_t c = 0; c < table.cpus.size(); ++c) col_isolated[c] = isolated_all.Has(table.cpus[c]);
  auto sum = [&](const ColumnCounts& counts, unsigned long long* total, unsigned long long* on_iso) {
    for (const ColumnCounts::Entry& e : counts.NonZero()) {
      *total += e.count;
      if (e.column < col_isolated.size() && col_isolated[e.column]) *on_iso += e.count;
    }
  };

  const std::vector<int> sys_irqs = SysIrqs(root);

  // Room for every row at once: grown by doubling, the list of a large server's IRQs held its
  // old and new copies together at inspect's peak (heaptrack: 1.72 MB for 4,096 IRQs).
  st.irqs.reserve(table.rows.size());
  for (auto& row : table.rows) {
    if (row.irq < 0) {
      PerCpuInterrupt p{row.id, row.description, std::move(row.counts), 0, 0};
      sum(p.counts, &p.total, &p.on_isolated);
      st.per_cpu_rows.push_back(std::move(p));
      continue;
    }
    IrqInfo irq;
    irq.irq = row.irq;
    irq.chip = std::move(row.chip);
    irq.hwirq = std::move(row.hwirq);
    irq.handler = std::move(row.handler);
    irq.actions = std::move(row.actions);
    irq.counts = std::move(row.counts);
    if (!row.trigger.empty()) irq.type = row.trigger == "Level" ? "level" : "edge";
    sum(irq.counts, &irq.total, &irq.on_isolated);

    ReadIrqFiles(root, std::binary_search(sys_irqs.begin(), sys_irqs.end(), irq.irq), irq);
    st.irqs.push_back(std::move(irq));
  }
  return st;
}

}  // namespace rtagent
