// The interrupts check on a scratch copy of the x86 IPC board: the wait between the two
// readings swaps in a second /proc/interrupts (and /proc/softirqs), so nothing sleeps.
#include <catch2/catch.hpp>

#include <cerrno>
#include <sstream>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "check/check_test_support.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;

namespace {

const std::string kIsolate23 =
    "cores:\n"
    "  housekeeping: 0-1\n"
    "  isolated: 2-3\n"
    "checks:\n"
    "  interrupts:\n"
    "    window: 10s\n";

const std::string kSoftirqs =
    "                    CPU0       CPU1       CPU2       CPU3\n"
    "          HI:          0          0          0          0\n"
    "       TIMER:     219374     272872       1000       1000\n"
    "      NET_RX:    2377669       4647          0          0\n"
    "       SCHED:     274091     267444        500        500\n";

// `text` with `delta` added to row `id`'s count in column `col` (the columns are CPU0..3 here).
std::string Bump(const std::string& text, const std::string& id, int col, unsigned long long delta) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == id + ":") {
      std::string rebuilt = first;
      std::string w;
      int i = 0;
      while (words >> w) {
        if (i++ == col) w = std::to_string(std::stoull(w) + delta);
        rebuilt += " " + w;
      }
      line = rebuilt;
    }
    out += line + "\n";
  }
  return out;
}

// A scratch copy of the board with softirqs, the profile, and a wait that applies `change`.
struct IrqBench {
  TempTree tree{Tree("x86-ipc-4cpu")};
  Bench bench;
  explicit IrqBench(const std::string& profile = kIsolate23, bool softirqs = true) {
    if (softirqs) tree.Put(kpath::kSoftirqs, kSoftirqs);
    bench = LoadBench(tree.dir(), profile);
    bench.root = std::make_unique<FaultRoot>(tree.dir());
  }
  std::string Interrupts() const { return tree.Get(kpath::kInterrupts); }
  std::vector<CheckResult> Run(std::function<void()> change, bool completes = true) {
    auto c = FindCheck("interrupts");
    REQUIRE(c);
    std::vector<Duration> waited;
    CheckEnv env{bench.profile, *bench.root, bench.state, bench.suite, [&](Duration d) {
                   waited.push_back(d);
                   change();
                   return completes;
                 },
                 nullptr, /*live_time=*/true};  // the wait changes the tree: it stands for a live window
    auto rs = c->Run(env);
    REQUIRE(waited.size() == 1);
    CHECK(waited[0] == std::chrono::seconds(10));
    return rs;
  }
};

bool AnyStatus(const std::vector<CheckResult>& rs, Status s) {
  for (const auto& r : rs) {
    if (r.status == s) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("interrupts: a NIC queue firing on an isolated CPU fails, naming the IRQ, device, CPU and rate", "[check]") {
  IrqBench ib;
  std::string after = Bump(ib.Interrupts(), "129", 2, 25000);
  auto rs = ib.Run([&] { ib.tree.Put(kpath::kInterrupts, after); });
  const auto& r = ById(rs, "interrupts.irq.129");
  CHECK(r.status == Status::kFail);
  CHECK_THAT(r.summary, Catch::Contains("IRQ 129 (enp2s0-TxRx-2, IR-PCI-MSI)"));
  CHECK_THAT(r.summary, Catch::Contains("2500.0/s on isolated CPU 2"));
  CHECK_THAT(r.summary, Catch::Contains("irqs.allowed does not allow it"));
  CHECK(r.measured == "CPU 2 2500.0/s");
  CHECK_THAT(r.hint, Catch::Contains("housekeeping"));
  CHECK(r.chapter == "Chapter 6 (A core of its own)");
  // The same queue's counts on housekeeping CPUs are not looked at.
  for (const auto& x : rs) CHECK(x.id != "interrupts.irq.127");
}

TEST_CASE("interrupts: allowed per-CPU rows pass with their figure, and fail above their limit", "[check]") {
  IrqBench ib;
  std::string after = Bump(Bump(ib.Interrupts(), "LOC", 2, 10), "RES", 3, 500);
  auto rs = ib.Run([&] { ib.tree.Put(kpath::kInterrupts, after); });
  const auto& loc = ById(rs, "interrupts.LOC");
  CHECK(loc.status == Status::kPass);
  CHECK(loc.measured == "CPU 2 1.0/s");
  CHECK_THAT(loc.summary, Catch::Contains("within 1000/s"));
  CHECK_THAT(loc.limit, Catch::Contains("irqs.allowed \"LOC\""));
  const auto& res = ById(rs, "interrupts.RES");
  CHECK(res.status == Status::kFail);
  CHECK_THAT(res.summary, Catch::Contains("RES (Rescheduling interrupts) fired 50.0/s on isolated CPU 3"));
  CHECK_THAT(res.summary, Catch::Contains("above the 10/s irqs.allowed allows"));
}

TEST_CASE("interrupts: the profile's own allow-list lets a chosen IRQ through by device name", "[check]") {
  IrqBench ib(kIsolate23 +
              "irqs:\n"
              "  allowed:\n"
              "    \"enp2s0-TxRx-.*\": 3000\n"
              "    LOC: any\n");
  std::string after = Bump(Bump(ib.Interrupts(), "129", 2, 25000), "LOC", 3, 20000);
  auto rs = ib.Run([&] { ib.tree.Put(kpath::kInterrupts, after); });
  CHECK(ById(rs, "interrupts.irq.129").status == Status::kPass);
  const auto& loc = ById(rs, "interrupts.LOC");
  CHECK(loc.status == Status::kPass);
  CHECK_THAT(loc.limit, Catch::Contains("any rate"));
}

TEST_CASE("interrupts: softirqs are judged against irqs.allowed_softirqs", "[check]") {
  IrqBench ib;
  auto rs = ib.Run([&] { ib.tree.Put(kpath::kSoftirqs, Bump(Bump(kSoftirqs, "NET_RX", 3, 700), "TIMER", 2, 30)); });
  const auto& net = ById(rs, "interrupts.softirq.NET_RX");
  CHECK(net.status == Status::kFail);
  CHECK_THAT(net.summary, Catch::Contains("softirq NET_RX fired 70.0/s on isolated CPU 3"));
  CHECK_THAT(net.summary, Catch::Contains("irqs.allowed_softirqs does not allow it"));
  CHECK(ById(rs, "interrupts.softirq.TIMER").status == Status::kPass);
}

TEST_CASE("interrupts: the tick on a nohz_full CPU is judged by the allow-list, with the lesson's expectation", "[check]") {
  IrqBench ib;
  ib.tree.Put(kpath::kCpuNohzFull, "2-3\n");
  ib.bench.state = CollectSystemState(*ib.bench.root);
  std::string after = Bump(ib.Interrupts(), "LOC", 3, 2500);
  auto rs = ib.Run([&] { ib.tree.Put(kpath::kInterrupts, after); });
  const auto& loc = ById(rs, "interrupts.LOC");
  CHECK(loc.status == Status::kPass);  // 250/s is under the default 1000/s
  CHECK_THAT(loc.summary, Catch::Contains("tick stops \"whenever possible\""));
  CHECK_THAT(loc.summary, Catch::Contains("once a second"));
}

TEST_CASE("interrupts: a quiet window passes and says so", "[check]") {
  IrqBench ib;
  auto rs = ib.Run([] {});
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kPass);
  CHECK(rs[0].summary == "no interrupt or softirq moved on isolated CPUs 2-3 in 10s");
}

TEST_CASE("interrupts: no isolated CPU is a SKIP with the reason", "[check]") {
  IrqBench ib("cores:\n  housekeeping: 0-3\n  isolated: none\n");
  auto c = FindCheck("interrupts");
  bool waited = false;
  CheckEnv env{ib.bench.profile, *ib.bench.root, ib.bench.state, ib.bench.suite, [&](Duration) { return waited = true; },
               nullptr, true};
  auto rs = c->Run(env);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("isolates no CPU"));
  CHECK_FALSE(waited);
}

TEST_CASE("interrupts: unreadable /proc/interrupts is a SKIP naming the file and errno", "[check]") {
  IrqBench ib;
  static_cast<FaultRoot&>(*ib.bench.root).FailReads(kpath::kInterrupts, EACCES);
  auto c = FindCheck("interrupts");
  CheckEnv env{ib.bench.profile, *ib.bench.root, ib.bench.state, ib.bench.suite, [](Duration) { return true; }, nullptr, true};
  auto rs = c->Run(env);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("proc/interrupts"));
  CHECK_THAT(rs[0].summary, Catch::Contains("Permission denied"));
}

TEST_CASE("interrupts: the second reading failing is a SKIP too", "[check]") {
  IrqBench ib;
  auto rs = ib.Run([&] { static_cast<FaultRoot&>(*ib.bench.root).FailReads(kpath::kInterrupts, EIO); });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("cannot read the counters again"));
}

TEST_CASE("interrupts: Ctrl-C during the window is a SKIP, not a verdict", "[check]") {
  IrqBench ib;
  std::string after = Bump(ib.Interrupts(), "129", 2, 25000);
  auto rs = ib.Run([&] { ib.tree.Put(kpath::kInterrupts, after); }, false);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("interrupted before the 10s window ended"));
  CHECK_FALSE(AnyStatus(rs, Status::kFail));
}

TEST_CASE("interrupts: a kernel without /proc/softirqs still judges interrupts and says what it left out", "[check]") {
  IrqBench ib(kIsolate23, false);
  auto rs = ib.Run([] {});
  CHECK(ById(rs, "interrupts").status == Status::kPass);
  const auto& s = ById(rs, "interrupts.softirqs");
  CHECK(s.status == Status::kSkip);
  CHECK_THAT(s.summary, Catch::Contains("proc/softirqs"));
}

// Issue 17: under --root it PASSed "no interrupt moved ... in 10s" after 0.02 s.
TEST_CASE("interrupts: a fixture tree under --root is a SKIP saying no window was measured, not a PASS", "[check]") {
  IrqBench ib;
  auto c = FindCheck("interrupts");
  bool waited = false;
  CheckEnv env{ib.bench.profile, *ib.bench.root, ib.bench.state, ib.bench.suite, [&](Duration) { return waited = true; }};
  auto rs = c->Run(env);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK(rs[0].summary == "not measured over 10s: --root " + ib.tree.dir() +
                             " is a fixture tree, not a running system: no time passes in it, so nothing timed can be "
                             "measured there");
  CHECK_FALSE(waited);
}

TEST_CASE("interrupts: a /proc/interrupts without per-CPU counts is a SKIP, not a silent PASS", "[check]") {
  IrqBench ib;
  ib.tree.Put(kpath::kInterrupts, "garbage\n");
  auto c = FindCheck("interrupts");
  CheckEnv env{ib.bench.profile, *ib.bench.root, ib.bench.state, ib.bench.suite, [](Duration) { return true; }, nullptr, true};
  auto rs = c->Run(env);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("no per-CPU counts could be read"));
}
