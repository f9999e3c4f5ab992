#include "inspect/inspect_text.h"

#include <catch2/catch.hpp>
#include <cstdio>

#include "base/kernel_text.h"

using namespace rtagent;

TEST_CASE("a 256-CPU, 4096-IRQ system stays narrow and grouped", "[inspect]") {
  SystemState s;
  s.show_cpus = true;
  s.cpu_sets.online = CpuSet::Range(0, 255);
  s.cpu_sets.isolated = CpuSet::Range(32, 255);
  s.cpu_sets.isolated_all = *s.cpu_sets.isolated;
  s.cpu_sets.housekeeping = CpuSet::Range(0, 31);
  IrqState irqs;
  irqs.readable = true;
  for (int c = 0; c < 256; ++c) irqs.cpu_columns.push_back(c);
  for (int i = 0; i < 4096; ++i) {
    IrqInfo q;
    q.irq = 24 + i;
    char pci[16];
    std::snprintf(pci, sizeof pci, "0000:%02x:00.0", i / 64);
    q.chip = std::string("PCI-MSIX-") + pci;
    q.actions = {"mlx5_comp" + std::to_string(i % 64) + "@pci:" + pci};
    std::vector<unsigned long long> counts(256, 0);
    counts[i % 256] = 10;
    q.counts = ColumnCounts(counts);
    q.total = 10;
    q.on_isolated = i % 256 >= 32 ? 10 : 0;
    q.affinity = CpuSet::Of({i % 256});
    irqs.irqs.push_back(q);
  }
  irqs.per_cpu_rows.push_back({"LOC", "Local timer interrupts", ColumnCounts(std::vector<unsigned long long>(256, 1000)), 256000, 224000});
  s.irqs = irqs;
  ThreadState threads;
  for (int c = 0; c < 256; ++c) {
    ThreadInfo t;
    t.pid = t.tid = 10 + c;
    t.comm = "ktimers/" + std::to_string(c);
    t.policy = kSchedFifo;
    t.priority = 1;
    t.affinity = CpuSet::Of({c});
    threads.realtime.push_back(t);
  }
  s.threads = threads;

  std::string text = InspectText(s);
  size_t widest = 0;
  size_t lines = 0;
  for (auto l : SplitLines(text)) {
    widest = std::max(widest, l.size());
    ++lines;
  }
  CHECK(widest < 160);
  CHECK(lines < 200);
  CHECK(text.find("4,096 IRQs in 1 group") != std::string::npos);  // one driver on 64 devices
  CHECK(text.find("mlxN_compN@pci:*") != std::string::npos);
  CHECK(text.find("PCI-MSIX-*") != std::string::npos);
  CHECK(text.find("busiest IRQs on isolated CPUs") != std::string::npos);
  CHECK(text.find("ktimers/N") != std::string::npos);
  CHECK(text.find("256 real-time threads in 1 group") != std::string::npos);
}
