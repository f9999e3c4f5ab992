#include "inspect/irqs.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("x86 /proc/interrupts: IO-APIC, PCI-MSI and named rows", "[inspect]") {
  const char* text =
      "           CPU0       CPU1       \n"
      "  1:          9          0   IO-APIC   1-edge      i8042\n"
      "  9:          0          4   IO-APIC   9-fasteoi   acpi\n"
      " 28:          0          0 PCI-MSIX-0000:00:05.0   0-edge      virtio4-config\n"
      "122:          0          0  IR-PCI-MSI 458752-edge      PCIe PME, aerdrv\n"
      "NMI:          0          0   Non-maskable interrupts\n"
      "LOC:      16851      28709   Local timer interrupts\n"
      "ERR:          0\n"
      "MIS:          0\n";
  InterruptTable t = ParseInterrupts(text);
  REQUIRE(t.cpus == std::vector<int>{0, 1});
  REQUIRE(t.rows.size() == 8);
  const auto& i8042 = t.rows[0];
  CHECK(i8042.irq == 1);
  CHECK(i8042.counts.Dense() == std::vector<unsigned long long>{9, 0});
  CHECK(i8042.chip == "IO-APIC");
  CHECK(i8042.hwirq == "1");
  CHECK(i8042.handler == "edge");
  CHECK(i8042.actions == std::vector<std::string>{"i8042"});
  CHECK(t.rows[1].handler == "fasteoi");
  CHECK(t.rows[2].chip == "PCI-MSIX-0000:00:05.0");
  CHECK(t.rows[2].hwirq == "0");
  CHECK(t.rows[2].actions == std::vector<std::string>{"virtio4-config"});
  CHECK(t.rows[3].hwirq == "458752");
  CHECK(t.rows[3].actions == std::vector<std::string>{"PCIe PME", "aerdrv"});
  CHECK(t.rows[4].irq == -1);
  CHECK(t.rows[4].chip.empty());  // per-CPU rows have no chip
  CHECK(t.rows[5].id == "LOC");
  CHECK(t.rows[5].counts.Dense() == std::vector<unsigned long long>{16851, 28709});
  CHECK(t.rows[5].description == "Local timer interrupts");
  CHECK(t.rows[6].id == "ERR");
  CHECK(t.rows[6].counts.Dense() == std::vector<unsigned long long>{0});  // one number, no CPU columns
  CHECK(t.rows[7].description.empty());
}

TEST_CASE("arm64 /proc/interrupts: GIC Level/Edge column, ITS MSIs, IPIs", "[inspect]") {
  const char* text =
      "           CPU0       CPU1       CPU2       CPU3\n"
      " 11:       1234       5678         10          0     GICv3  27 Level     arch_timer\n"
      " 96:         45          0          0          0   ITS-MSI 524288 Edge      nvme0q0\n"
      " 40:          0          0          0          0     GICv3 110 Level     \n"
      "IPI0:       52000      52000        310        310   Rescheduling interrupts\n"
      "Err:          0\n";
  InterruptTable t = ParseInterrupts(text);
  REQUIRE(t.rows.size() == 5);
  CHECK(t.rows[0].chip == "GICv3");
  CHECK(t.rows[0].hwirq == "27");
  CHECK(t.rows[0].trigger == "Level");
  CHECK(t.rows[0].actions == std::vector<std::string>{"arch_timer"});
  CHECK(t.rows[1].chip == "ITS-MSI");
  CHECK(t.rows[1].trigger == "Edge");
  CHECK(t.rows[2].actions.empty());  // an IRQ without a handler still counts
  CHECK(t.rows[3].id == "IPI0");
  CHECK(t.rows[3].counts.size() == 4);
  CHECK(t.rows[4].id == "Err");
}

TEST_CASE("only online CPUs have columns", "[inspect]") {
  // CPU1 offline: the header says which CPU each column is.
  InterruptTable t = ParseInterrupts("      CPU0       CPU2\n  5:   1   7   IO-APIC   5-edge   x\n");
  CHECK(t.cpus == std::vector<int>{0, 2});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].counts.Dense() == std::vector<unsigned long long>{1, 7});
}

TEST_CASE("garbage lines are skipped, never fatal", "[inspect]") {
  InterruptTable t = ParseInterrupts("CPU0\nnot a row\n  7: x y\n  8:  3  IO-APIC 8-edge rtc0\n");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].irq == 8);
  CHECK(ParseInterrupts("").rows.empty());
}

TEST_CASE("managed-looking queue vectors", "[inspect]") {
  CHECK(ActionLooksManaged("nvme0q1"));
  CHECK(ActionLooksManaged("nvme12q31"));
  CHECK_FALSE(ActionLooksManaged("nvme0q0"));  // the admin queue is not spread
  CHECK(ActionLooksManaged("virtio1-req.0"));
  CHECK_FALSE(ActionLooksManaged("virtio2-input.0"));
  CHECK_FALSE(ActionLooksManaged("eth0"));
}

TEST_CASE("fuzz interrupts: a header word shorter than CPUn is no column, not an exception", "[inspect]") {
  // fuzz/interrupts_fuzz.cc: "CPU1 -" in the header made substr(3) throw std::out_of_range
  // out of the parser (and rtagent end on it); "CPU 1" in /proc/softirqs the same.
  auto t = ParseInterrupts("           CPU0       CPU1 -     \n 24:          1          0  IO-APIC   5-edge  eth0\n");
  CHECK(t.cpus == std::vector<int>{0, 1});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].counts.Dense() == std::vector<unsigned long long>{1, 0});
  auto s = ParseInterrupts("      CPU0       CPU 1      CPU2\n      HI:          1          0          0\n");
  CHECK(s.cpus == std::vector<int>{0, 2});
}

TEST_CASE("fuzz interrupts: an IRQ number too long for an integer is a named row", "[inspect]") {
  // Found reading ParseInterrupts for the fuzzer's crash above: the IRQ number was read with
  // *ParseInt() of a string of digits, an empty optional past LLONG_MAX.
  auto t = ParseInterrupts("      CPU0\n99999999999999999999:   3   Odd\n 7:   1   IO-APIC 7-edge x\n");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].irq == -1);
  CHECK(t.rows[1].irq == 7);
}

TEST_CASE("a row of a 256-CPU table keeps only its non-zero counts, and reads back whole", "[inspect]") {
  std::string text = "     ";
  for (int c = 0; c < 256; ++c) text += " CPU" + std::to_string(c);
  text += "\n 40:";
  for (int c = 0; c < 256; ++c) text += c == 3 ? " 981234" : c == 200 ? " 7" : " 0";
  text += "  PCI-MSIX-0000:00:05.0   0-edge      eth0-rx-0\nLOC:";
  for (int c = 0; c < 256; ++c) text += " " + std::to_string(c + 1);
  text += "   Local timer interrupts\n";
  const InterruptTable t = ParseInterrupts(text);
  REQUIRE(t.rows.size() == 2);
  const ColumnCounts& eth = t.rows[0].counts;
  CHECK(eth.size() == 256);
  CHECK(eth.NonZero() == std::vector<ColumnCounts::Entry>{{3, 981234}, {200, 7}});
  CHECK(eth[3] == 981234);
  CHECK(eth[200] == 7);
  CHECK(eth[0] == 0);
  CHECK(eth[255] == 0);
  CHECK(eth[256] == 0);  // past the last column
  std::vector<unsigned long long> dense(256, 0);
  dense[3] = 981234;
  dense[200] = 7;
  CHECK(eth.Dense() == dense);
  CHECK(t.rows[0].chip == "PCI-MSIX-0000:00:05.0");
  // A row that moves everywhere keeps every column, in order.
  const ColumnCounts& loc = t.rows[1].counts;
  REQUIRE(loc.NonZero().size() == 256);
  CHECK(loc[0] == 1);
  CHECK(loc[255] == 256);
  CHECK(t.rows[1].description == "Local timer interrupts");
  CHECK(ColumnCounts({0, 5, 0}) == ColumnCounts(std::vector<unsigned long long>{0, 5, 0}));
  CHECK_FALSE(ColumnCounts({0, 5, 0}) == ColumnCounts({0, 5}));
}
