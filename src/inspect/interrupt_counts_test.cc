// Interrupt counters read twice: the pieces the interrupts check and the acceptance run share.
#include "inspect/interrupt_counts.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/kernel_paths.h"

using namespace rtagent;

namespace {

const std::string kInterrupts =
    "           CPU0       CPU1       CPU2       CPU3\n"
    "  0:         40          0          0          0   IO-APIC    2-edge      timer\n"
    " 24:        100        200          5          7   PCI-MSI 524288-edge      eth0, eth0-rx\n"
    "LOC:       1000       1000       1000       1000   Local timer interrupts\n"
    "ERR:          0\n";

const std::string kSoftirqs =
    "                    CPU0       CPU1       CPU2       CPU3\n"
    "          HI:          0          0          0          0\n"
    "       TIMER:     219374     272872       1000       1000\n"
    "      NET_RX:         10         20          0          0\n";

}  // namespace

TEST_CASE("interrupt counts: both files parse per CPU, ERR's single total left out", "[inspect][interrupts]") {
  TempTree t;
  t.Put(kpath::kInterrupts, kInterrupts);
  t.Put(kpath::kSoftirqs, kSoftirqs);
  FaultRoot root(t.dir());
  auto snap = ReadCounters(root);
  REQUIRE(snap);
  REQUIRE(snap->rows.size() == 6);  // 0, 24, LOC, then HI, TIMER, NET_RX
  CHECK(snap->rows[1].irq == 24);
  CHECK(snap->rows[1].name == "eth0, eth0-rx");
  CHECK(snap->rows[1].per_cpu.at(1) == 200);
  CHECK(snap->rows[2].name == "Local timer interrupts");
  CHECK(snap->rows[4].source == CounterSource::kSoftirqs);
  CHECK(snap->rows[4].per_cpu.at(3) == 1000);
  CHECK(snap->softirqs_error.empty());
}

TEST_CASE("interrupt counts: a missing softirqs file is noted, a missing interrupts file is an error",
          "[inspect][interrupts]") {
  TempTree t;
  t.Put(kpath::kInterrupts, kInterrupts);
  FaultRoot root(t.dir());
  auto snap = ReadCounters(root);
  REQUIRE(snap);
  CHECK_FALSE(snap->softirqs_error.empty());
  TempTree empty;
  FaultRoot bare(empty.dir());
  auto none = ReadCounters(bare);
  REQUIRE_FALSE(none);
  CHECK(none.error().err == ENOENT);
}

TEST_CASE("interrupt counts: moves are per CPU and per second, growth is summed over the chosen CPUs",
          "[inspect][interrupts]") {
  CounterSnapshot a, b;
  a.rows = ParseSoftirqs(kSoftirqs);
  std::string later = kSoftirqs;
  auto bump = [&](const std::string& from, const std::string& to) { later.replace(later.find(from), from.size(), to); };
  bump("1000       1000", "1000       1050");  // TIMER +50 on CPU 3
  bump("10         20", "10         25");      // NET_RX +5 on CPU 1
  b.rows = ParseSoftirqs(later);
  auto moves = Moves(a, b, CpuSet::Of({2, 3}), std::chrono::seconds(10));
  REQUIRE(moves.size() == 1);
  CHECK(moves[0].row->id == "TIMER");
  CHECK(moves[0].cpu == 3);
  CHECK(moves[0].delta == 50);
  CHECK(moves[0].per_second == Approx(5.0));

  auto growth = Growth(a, b, CpuSet::Of({1, 2, 3}));
  REQUIRE(growth.size() == 2);
  CHECK(growth[0].row->id == "TIMER");
  CHECK(growth[0].delta == 50);
  CHECK(growth[1].row->id == "NET_RX");
  CHECK(growth[1].delta == 5);
  // A counter that went down on one CPU (reset by a CPU going offline) is no growth there.
  CounterSnapshot reset = b;
  reset.rows[1].per_cpu[2] = 0;
  auto after_reset = Growth(b, reset, CpuSet::Of({2, 3}));
  CHECK(after_reset.empty());
  // A row that appears only later counts from 0.
  CounterSnapshot fewer = a;
  fewer.rows.pop_back();
  auto fresh = Growth(fewer, b, CpuSet::Of({1}));
  REQUIRE(fresh.size() == 1);
  CHECK(fresh[0].row->id == "NET_RX");
  CHECK(fresh[0].delta == 25);
}

TEST_CASE("interrupt counts: /proc/schedstat's cpu lines ride along, other lines and short ones skipped",
          "[inspect][interrupts]") {
  // Documentation/scheduler/sched-stats.rst, version 15: cpuN then nine counters.
  const std::string text =
      "version 15\n"
      "timestamp 4295060870\n"
      "cpu0 0 0 5000 2000 3000 1000 9000000000 12000000 5100\n"
      "domain0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
      "cpu2 0 0 70 30 40 20 500000000 2500000 71\n"
      "cpu3 0 0 7\n";
  auto s = ParseSchedstat(text);
  REQUIRE(s.size() == 2);
  CHECK(s.at(0).schedules == 5000);
  CHECK(s.at(0).wakeups == 3000);
  CHECK(s.at(2).run_ns == 500000000);
  CHECK(s.at(2).wait_ns == 2500000);
  CHECK(s.at(2).timeslices == 71);
  CHECK(s.count(3) == 0);  // a short line
  TempTree t;
  t.Put(kpath::kInterrupts, kInterrupts);
  t.Put(kpath::kSchedstat, text);
  FaultRoot root(t.dir());
  auto snap = ReadCounters(root);
  REQUIRE(snap);
  CHECK(snap->schedstat.size() == 2);
  CHECK(snap->rows.size() == 3);  // never counter rows: the interrupts check does not see them
  TempTree bare;
  bare.Put(kpath::kInterrupts, kInterrupts);
  FaultRoot no_schedstat(bare.dir());
  auto none = ReadCounters(no_schedstat);
  REQUIRE(none);
  CHECK(none->schedstat.empty());  // CONFIG_SCHEDSTATS off: the coarse answer goes without
}
