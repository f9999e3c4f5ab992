// The facts around an acceptance run, read from fixture trees: no live machine, no latency figure.
#include "latency/run_facts.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/pm_qos.h"

using namespace rtagent;

namespace {

std::string Fixture(const std::string& board) { return std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/" + board; }

// `text` with `from` replaced by `to` (once).
std::string Bumped(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("host facts: kernel, PREEMPT_RT, clocksource and the virtual machine, from the tree", "[latency]") {
  FaultRoot ipc(Fixture("x86-ipc-4cpu"));
  const HostFacts h = ReadHostFacts(ipc);
  CHECK_FALSE(h.hostname.empty());  // this machine's name: the tree has none
  CHECK(h.kernel_release == "6.1.0-37-amd64");
  CHECK_FALSE(h.preempt_rt);
  CHECK(h.clocksource == "tsc");
  CHECK_FALSE(h.virtual_machine);

  FaultRoot vm(Fixture("vm-x86-captured"));
  const HostFacts v = ReadHostFacts(vm);
  CHECK(v.kernel_release == "6.18.44-fc-v595");
  CHECK(v.virtual_machine);  // the CPUID hypervisor flag in cpuinfo
}

TEST_CASE("the PM QoS device is read through the root, as binary s32 or text", "[latency][pm_qos]") {
  TempTree t(Fixture("arm64-rt-8cpu"));
  FaultRoot root(t.dir());
  t.Put(kpath::kCpuDmaLatency, std::string("\x14\0\0\0", 4));
  CHECK(ReadPmQosDevice(root) == 20);
  t.Put(kpath::kCpuDmaLatency, "2000000000\n");
  CHECK(ReadPmQosDevice(root) == kPmQosNoLimitUs);
  t.Put(kpath::kCpuDmaLatency, "");
  CHECK_FALSE(ReadPmQosDevice(root).has_value());
  root.FailReads(kpath::kCpuDmaLatency, EACCES);
  CHECK_FALSE(ReadPmQosDevice(root).has_value());
}

TEST_CASE("interrupt deltas: the lines that fired on the measured CPUs, by name, in name order", "[latency]") {
  TempTree t(Fixture("x86-ipc-4cpu"));
  FaultRoot root(t.dir());
  const auto before = ReadInterruptCounts(root);
  REQUIRE(before);
  const std::string irqs = t.Get(kpath::kInterrupts);
  std::string later = Bumped(irqs, "129:          0          0     122000", "129:          0          0     122300");
  later = Bumped(later, "LOC:    2104533    1052266     701511", "LOC:    2104533    1052266     701611");
  t.Put(kpath::kInterrupts, later);
  const auto after = ReadInterruptCounts(root);

  auto deltas = InterruptDeltas(before, after, CpuSet::Of({2, 3}));
  REQUIRE(deltas.size() == 2);
  CHECK(deltas[0].name == "129 enp2s0-TxRx-2");
  CHECK(deltas[0].count == 300);
  CHECK(deltas[1].name == "LOC (Local timer interrupts)");
  CHECK(deltas[1].count == 100);
  // Other CPUs' counts are not the run's; a missing reading gives no figures, not an error.
  CHECK(InterruptDeltas(before, after, CpuSet::Of({0, 1})).empty());
  CHECK(InterruptDeltas(std::nullopt, after, CpuSet::Of({2})).empty());
  root.FailReads(kpath::kInterrupts, EIO);
  CHECK_FALSE(ReadInterruptCounts(root).has_value());
}

TEST_CASE("coarse counts: interrupts and softirqs largest first, then the scheduler's counters on the CPU",
          "[latency]") {
  CounterSnapshot before;
  CounterSnapshot after;
  CounterRow timer;
  timer.source = CounterSource::kSoftirqs;
  timer.id = "TIMER";
  timer.per_cpu = {{1, 10}, {2, 100}};
  before.rows.push_back(timer);
  timer.per_cpu = {{1, 20}, {2, 104}};
  after.rows.push_back(timer);
  before.schedstat[2] = CpuSchedstat{70, 40, 500000000, 2500000, 71};
  before.schedstat[1] = CpuSchedstat{1, 1, 1, 1, 1};
  after.schedstat[2] = CpuSchedstat{95, 52, 510000000, 7900000, 96};
  after.schedstat[1] = CpuSchedstat{900, 900, 900000000, 900000000, 900};
  auto c = CoarseCounts(before, after, CpuSet::Of({2}));
  REQUIRE(c.size() == 4);
  CHECK(c[0] == CoarseCount{"softirqs", "softirq TIMER", 4});
  CHECK(c[1] == CoarseCount{"schedstat", "µs tasks waited runnable for the CPU (schedstat run_delay)", 5400});
  CHECK(c[2] == CoarseCount{"schedstat", "schedule() calls on the CPU (schedstat)", 25});
  CHECK(c[3] == CoarseCount{"schedstat", "wake-ups asked on the CPU (schedstat try_to_wake_up)", 12});
  // Without /proc/schedstat in either reading, no scheduler row at all.
  after.schedstat.clear();
  CHECK(CoarseCounts(before, after, CpuSet::Of({2})).size() == 1);
}
