// The ranks check on the fixture boards: the declared order against the threads' live
// ranks (stat fields 40/41), the kernel log's RT throttling line, and the window
// (checks.ranks.window, one second by default) over schedstat that finds a spinning real-time thread or a starving kernel thread. The
// window's second reading is written by the wait seam; nothing sleeps.
#include <catch2/catch.hpp>

#include <sys/klog.h>

#include <cerrno>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/skip_test_support.h"
#include "check/check_test_support.h"
#include "check/kernel_log.h"
#include "inspect/threads.h"
#include "tune/fixture_sched_syscalls.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;

namespace {

// The arm64 board's own map: the EtherCAT receive thread feeds the loop, so it is above it.
const std::string kArmRanks =
    "cores:\n"
    "  housekeeping: 0-3\n"
    "  isolated: 4-7\n"
    "ranks:\n"
    "  rules:\n"
    "    ecat-rx:\n"
    "      threads: ecat_rx\n"
    "      policy: fifo\n"
    "      priority: 85\n"
    "    ctrl-loop:\n"
    "      threads: \"ctrl.*\"\n"
    "      policy: fifo\n"
    "      priority: 80\n"
    "    other-irqs:\n"
    "      threads: \"irq/.*\"\n"
    "      policy: fifo\n"
    "      priority: 50\n"
    "  order: [ecat-rx, ctrl-loop, other-irqs]\n";

const std::string kIpcRanks =
    "cores:\n"
    "  housekeeping: 0-1\n"
    "  isolated: 2-3\n"
    "ranks:\n"
    "  rules:\n"
    "    plc:\n"
    "      threads: plc_task\n"
    "      policy: fifo\n"
    "      priority: 70\n"
    "    comms:\n"
    "      threads: plc_comm\n"
    "      policy: rr\n"
    "      priority: 20\n"
    "  order: [plc, comms]\n";

struct RankBench {
  TempTree tree;
  Bench bench;
  FaultRoot* root = nullptr;
  Duration window = std::chrono::seconds(1);  ///< what the check must wait for
  RankBench(const std::string& fixture, const std::string& profile) : tree(Tree(fixture)) {
    bench = LoadBench(tree.dir(), profile);
    Reopen();
  }
  void Reopen() {
    auto fr = std::make_unique<FaultRoot>(tree.dir());
    root = fr.get();
    bench.root = std::move(fr);
  }
  // The thread's rt_priority (field 40) and policy (field 41), and its kernel priority
  // (field 18) to match, as the kernel would show them after chrt.
  void SetRank(int pid, int tid, int prio, int policy) {
    std::string path = kpath::TaskStat(pid, tid);
    bool rt = policy == kSchedFifo || policy == kSchedRr;
    auto stat = RewriteStatFields(tree.Get(path), {{18, std::to_string(rt ? -1 - prio : 20)},
                                                   {40, std::to_string(prio)},
                                                   {41, std::to_string(policy)}});
    REQUIRE(stat.ok());
    tree.Put(path, *stat);
  }
  std::vector<CheckResult> Run(std::function<void()> change = [] {}, bool completes = true) {
    auto c = FindCheck("ranks");
    REQUIRE(c);
    CheckEnv env{bench.profile, *bench.root, bench.state, bench.suite, [&](Duration d) {
                   CHECK(d == window);
                   change();
                   return completes;
                 },
                 nullptr, /*live_time=*/true};  // the wait changes the tree: it stands for a live window
    return c->Run(env);
  }
};

std::vector<CheckResult> WithId(const std::vector<CheckResult>& rs, const std::string& id) {
  std::vector<CheckResult> out;
  for (const auto& r : rs) {
    if (r.id == id) out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("ranks: the arm64 board's declared order holds on its live threads", "[check][ranks]") {
  RankBench rb("arm64-rt-8cpu", kArmRanks);
  auto rs = rb.Run();
  auto order = WithId(rs, "ranks.order");
  REQUIRE(order.size() == 1);
  CHECK(order[0].status == Status::kPass);
  CHECK_THAT(order[0].measured, Catch::Contains("ecat-rx (fifo 85) > ctrl-loop (fifo 80)"));
  CHECK_THAT(order[0].measured, Catch::Contains("ctrl-loop (fifo 80) > other-irqs (fifo 50)"));
  CHECK(order[0].chapter == "Chapter 4 (Inside the real-time kernel)");
}

TEST_CASE("ranks: a loop ranked above the IRQ thread that feeds it fails, naming both threads", "[check][ranks]") {
  RankBench rb("arm64-rt-8cpu", kArmRanks);
  rb.SetRank(1200, 1204, 75, 1);  // ecat_rx dropped to FIFO 75 behind the tuner's back
  auto rs = rb.Run();
  auto order = WithId(rs, "ranks.order");
  REQUIRE(order.size() == 1);
  CHECK(order[0].status == Status::kFail);
  CHECK_THAT(order[0].summary, Catch::Contains("ranks.order puts \"ecat-rx\" above \"ctrl-loop\""));
  CHECK_THAT(order[0].summary, Catch::Contains("ecat_rx (tid 1204 of robot_ctrl, fifo 75) does not outrank ctrl (loop) 1 "
                                               "(tid 1203 of robot_ctrl, fifo 80)"));
  CHECK(order[0].measured == "fifo 75 vs fifo 80");
  CHECK(order[0].mark.line == 18);
}

TEST_CASE("ranks: an IRQ thread not declared above the loop but outranking it fails", "[check][ranks]") {
  RankBench rb("arm64-rt-8cpu",
               "cores:\n  housekeeping: 0-3\n  isolated: 4-7\n"
               "ranks:\n  rules:\n    ecat-rx:\n      threads: ecat_rx\n      policy: fifo\n      priority: 85\n"
               "    ctrl-loop:\n      threads: \"ctrl.*\"\n      policy: fifo\n      priority: 80\n"
               "  order: [ecat-rx, ctrl-loop]\n");
  rb.SetRank(186, 186, 90, 1);  // irq/85-eth0 raised to FIFO 90
  auto rs = rb.Run();
  auto order = WithId(rs, "ranks.order");
  REQUIRE(order.size() == 1);
  CHECK(order[0].status == Status::kFail);
  CHECK_THAT(order[0].summary, Catch::Contains("does not outrank 1 IRQ thread not declared above it: irq/85-eth0 (fifo 90)"));
}

TEST_CASE("ranks: a lower user rank below the IRQ threads is fine, a rank matching nothing warns", "[check][ranks]") {
  RankBench rb2("x86-ipc-4cpu",
                "cores:\n  housekeeping: 0-1\n  isolated: 2-3\n"
                "ranks:\n  rules:\n    plc:\n      threads: plc_task\n      policy: fifo\n      priority: 70\n"
                "    comms:\n      threads: plc_comm\n      policy: rr\n      priority: 20\n"
                "    hmi:\n      process: hmi_server\n      policy: fifo\n      priority: 10\n"
                "  order: [plc, comms, hmi]\n");
  auto rs = rb2.Run();
  auto order = WithId(rs, "ranks.order");
  REQUIRE(order.size() == 2);
  CHECK(order[0].status == Status::kPass);
  CHECK_THAT(order[0].measured, Catch::Contains("plc (fifo 70) > comms (rr 20)"));
  CHECK(order[1].status == Status::kWarn);
  CHECK_THAT(order[1].summary, Catch::Contains("rank \"hmi\" matches no running thread"));
}

TEST_CASE("ranks: a normal thread does not outrank an idle one: both run in the fair class", "[check][ranks]") {
  // The check once put SCHED_IDLE below SCHED_OTHER and passed this; the lint and the profile
  // validator held them equal. The kernel runs all three normal policies in its fair class, by
  // weight, so neither goes first whenever both are ready.
  RankBench rb("x86-ipc-4cpu",
               "cores:\n  housekeeping: 0-1\n  isolated: 2-3\n"
               "ranks:\n  rules:\n    plc:\n      threads: plc_task\n      policy: fifo\n      priority: 70\n"
               "    comms:\n      threads: plc_comm\n      policy: idle\n"
               "  order: [plc, comms]\n");
  rb.SetRank(640, 642, 0, kSchedOther);  // the loop was reset to normal behind the tuner's back
  rb.SetRank(640, 643, 0, kSchedIdle);
  auto order = WithId(rb.Run(), "ranks.order");
  REQUIRE(order.size() == 1);
  CHECK(order[0].status == Status::kFail);
  CHECK(order[0].measured == "other vs idle");
}

TEST_CASE("ranks: no declared order is a SKIP with the reason", "[check][ranks]") {
  RankBench rb("vm-x86-captured", "");
  auto rs = rb.Run();
  const auto& r = ById(rs, "ranks.order");
  CHECK(r.status == Status::kSkip);
  CHECK_THAT(r.summary, Catch::Contains("ranks.order is empty"));
}

TEST_CASE("ranks: RT throttling in the kernel log is a WARN quoting the line", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks);
  rb.tree.Put(kpath::kKmsg, "6,1,0,-;Linux version 6.1.0\n4,512,91234567,-;sched: RT throttling activated\n");
  auto rs = rb.Run();
  const auto& r = ById(rs, "ranks.throttling");
  CHECK(r.status == Status::kWarn);
  CHECK(r.measured == "4,512,91234567,-;sched: RT throttling activated");
  CHECK_THAT(r.summary, Catch::Contains("once per boot"));
  CHECK(r.chapter == "Chapter 2 (Who goes first)");
}

TEST_CASE("ranks: a silent kernel log passes, and on a fair-server kernel says silence proves little", "[check][ranks]") {
  RankBench rb("arm64-rt-8cpu", kArmRanks);
  rb.tree.Put(kpath::kKmsg, "6,1,0,-;Linux version 6.12.43-rt12\n");
  auto rs = rb.Run();
  const auto& r = ById(rs, "ranks.throttling");
  CHECK(r.status == Status::kPass);
  if (rb.bench.state.kernel && rb.bench.state.kernel->safety_net.active == "fair_server") {
    CHECK_THAT(r.summary, Catch::Contains("fair server"));
  }
}

TEST_CASE("ranks: an unreadable kernel log skips that part with the reason", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks);
  SECTION("absent") {
    auto rs = rb.Run();
    const auto& r = ById(rs, "ranks.throttling");
    CHECK(r.status == Status::kSkip);
    CHECK_THAT(r.summary, Catch::Contains("dev/kmsg"));
  }
  SECTION("refused") {
    rb.tree.Put(kpath::kKmsg, "");
    rb.root->FailReads(kpath::kKmsg, EPERM);
    auto rs = rb.Run();
    const auto& r = ById(rs, "ranks.throttling");
    CHECK(r.status == Status::kSkip);
    CHECK_THAT(r.summary, Catch::Contains("Operation not permitted"));
  }
}

TEST_CASE("ranks: without schedstat the window is skipped with the reason", "[check][ranks]") {
  RankBench rb("vm-x86-captured", "");
  auto rs = rb.Run();
  for (const std::string id : {"ranks.spinning", "ranks.starvation"}) {
    const auto& r = ById(rs, id);
    CHECK(r.status == Status::kSkip);
    CHECK_THAT(r.summary, Catch::Contains("CONFIG_SCHED_INFO"));
  }
}

TEST_CASE("ranks: a real-time thread that ran the whole window without sleeping, and a starved ksoftirqd, fail", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks);
  const std::string plc = kpath::TaskSchedstat(640, 642);
  const std::string comm = kpath::TaskSchedstat(640, 643);
  const std::string soft = kpath::TaskSchedstat(18, 18);
  rb.tree.Put(plc, "5000000 1000 20\n");
  rb.tree.Put(comm, "5000000 1000 20\n");
  rb.tree.Put(soft, "200000 3000 9\n");
  rb.tree.Put(kpath::TaskStatus(640, 643), "Name:\tplc_comm\nvoluntary_ctxt_switches:\t10\n");
  auto rs = rb.Run([&] {
    rb.tree.Put(plc, "905000000 1000 21\n");   // +0.9 s on the CPU
    rb.tree.Put(comm, "905000000 1000 900\n");  // as busy, but it slept (below)
    rb.tree.Put(kpath::TaskStatus(640, 643), "Name:\tplc_comm\nvoluntary_ctxt_switches:\t900\n");
    rb.tree.Put(soft, "200000 800003000 9\n");  // +0.8 s runnable, never ran
  });
  const auto& spin = ById(rs, "ranks.spinning");
  CHECK(spin.status == Status::kFail);
  CHECK_THAT(spin.summary, Catch::Contains("plc_task (tid 642 of plc_runtime, fifo 70) ran 90% of 1s without sleeping"));
  CHECK_THAT(spin.summary, !Catch::Contains("plc_comm"));
  CHECK_THAT(spin.hint, Catch::Contains("TIMER_ABSTIME"));
  const auto& starve = ById(rs, "ranks.starvation");
  CHECK(starve.status == Status::kFail);
  CHECK_THAT(starve.summary, Catch::Contains("ksoftirqd/2 (pid 18, other) waited runnable 80% of 1s"));
}

TEST_CASE("ranks: a window where every thread sleeps and runs passes with the count measured", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks);
  const std::string plc = kpath::TaskSchedstat(640, 642);
  const std::string soft = kpath::TaskSchedstat(18, 18);
  rb.tree.Put(plc, "5000000 1000 20\n");
  rb.tree.Put(soft, "200000 3000 9\n");
  auto rs = rb.Run([&] {
    rb.tree.Put(plc, "6000000 1000 1020\n");
    rb.tree.Put(soft, "300000 4000 10\n");
  });
  const auto& spin = ById(rs, "ranks.spinning");
  CHECK(spin.status == Status::kPass);
  CHECK(spin.measured == "1 real-time threads measured");
  const auto& starve = ById(rs, "ranks.starvation");
  CHECK(starve.status == Status::kPass);
  CHECK(starve.measured == "1 threads measured");
}

// Issue 17: two readings of a fixture tree that never changes "proved" that nothing spun.
TEST_CASE("ranks: under --root the window is a SKIP saying nothing was measured, the order is still judged", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks);
  rb.tree.Put(kpath::TaskSchedstat(640, 642), "5000000 1000 20\n");
  auto rs = rb.bench.Run("ranks");  // as the runner runs it on a fixture root: no live time
  for (const char* id : {"ranks.spinning", "ranks.starvation"}) {
    const auto& r = ById(rs, id);
    CHECK(r.status == Status::kSkip);
    CHECK_THAT(r.summary, Catch::StartsWith("not measured over 1s: --root " + rb.tree.dir() + " is a fixture tree"));
  }
  CHECK(ById(rs, "ranks.order").status != Status::kSkip);
}

TEST_CASE("ranks: the window is the profile's checks.ranks.window, waited for and measured against", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks + "checks:\n  ranks:\n    window: 250ms\n");
  rb.window = std::chrono::milliseconds(250);
  const std::string plc = kpath::TaskSchedstat(640, 642);
  const std::string soft = kpath::TaskSchedstat(18, 18);
  rb.tree.Put(plc, "5000000 1000 20\n");
  rb.tree.Put(soft, "200000 3000 9\n");
  auto rs = rb.Run([&] {
    rb.tree.Put(plc, "205000000 1000 21\n");    // +0.2 s on the CPU: 80% of 250ms (20% of a second)
    rb.tree.Put(soft, "200000 100003000 9\n");  // +0.1 s runnable: 40% of 250ms, under half
  });
  const auto& spin = ById(rs, "ranks.spinning");
  CHECK(spin.status == Status::kFail);
  CHECK_THAT(spin.summary, Catch::Contains("plc_task (tid 642 of plc_runtime, fifo 70) ran 80% of 250ms without sleeping"));
  CHECK(spin.limit == "sleeps at least once per 250ms (runs under 50% otherwise)");
  const auto& starve = ById(rs, "ranks.starvation");
  CHECK(starve.status == Status::kPass);
  CHECK(starve.summary == "every watched kernel thread got the CPU: none waited runnable half of 250ms or more");
}

TEST_CASE("ranks: Ctrl-C during a profile's window names that window", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks + "checks:\n  ranks:\n    window: 3s\n");
  rb.window = std::chrono::seconds(3);
  rb.tree.Put(kpath::TaskSchedstat(640, 642), "5000000 1000 20\n");
  auto rs = rb.Run([] {}, false);
  CHECK(ById(rs, "ranks.spinning").summary == "interrupted before the 3s window ended");
}

TEST_CASE("ranks: Ctrl-C during the window skips the measure", "[check][ranks]") {
  RankBench rb("x86-ipc-4cpu", kIpcRanks);
  rb.tree.Put(kpath::TaskSchedstat(640, 642), "5000000 1000 20\n");
  auto rs = rb.Run([] {}, false);
  CHECK(ById(rs, "ranks.spinning").status == Status::kSkip);
  CHECK_THAT(ById(rs, "ranks.starvation").summary, Catch::Contains("interrupted"));
}

TEST_CASE("kernel log on this machine: read whole, without blocking", "[check][host]") {
  // Needs: the live system and CAP_SYSLOG (root) unless kernel.dmesg_restrict is 0. Reads only.
  FsRoot live("/");
  auto log = ReadKernelLog(live);
  if (!log) {
    REQUIRE(log.error().err == EPERM);  // only the permission may keep the log from us
    RTAGENT_SKIP("the kernel log is not readable here: " << log.error().message);
  }
  // The boot's first line, unless a long-running machine has logged so much since that the
  // ring buffer wrapped: then it was read whole if it comes back full.
  const int buffer_bytes = ::klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, nullptr, 0);
  INFO("read " << log->size() << " bytes of a " << buffer_bytes << "-byte buffer");
  const bool wrapped = buffer_bytes > 0 && log->size() + 1024 >= static_cast<size_t>(buffer_bytes);
  CHECK((wrapped || log->find("Linux version") != std::string::npos));
}

TEST_CASE("ranks on this machine: every part answers, measuring live threads or saying why not", "[check][host]") {
  // Needs: the live system. Reads /proc and the kernel log; waits one second; changes nothing.
  Bench b = LoadBench("/", "");
  auto rs = b.Run("ranks");
  CHECK(ById(rs, "ranks.order").status == Status::kSkip);  // the default profile declares no order
  ById(rs, "ranks.throttling");
  for (const std::string id : {"ranks.spinning", "ranks.starvation"}) {
    const auto& r = ById(rs, id);
    if (r.status == Status::kSkip) {
      CHECK_FALSE(r.summary.empty());
    } else {
      CHECK_THAT(r.measured, Catch::Contains("measured"));
    }
  }
}

TEST_CASE("ranks: a tree without threads, or with no real-time or watched thread, skips with the reason", "[check][ranks]") {
  TempTree tree;
  tree.Put(kpath::kCpuPossible, "0-1\n");
  tree.Put(kpath::kCpuOnline, "0-1\n");
  SECTION("no thread at all") {
    Bench b = LoadBench(tree.dir(), "");
    auto rs = b.Run("ranks");
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK_THAT(rs[0].summary, Catch::StartsWith("no thread can be read under"));
  }
  SECTION("only a normal process") {
    tree.Put(kpath::TaskStat(1, 1),
             "1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 1 1 0 0 20 0 1 0 5 1000 100 1 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
    Bench b = LoadBench(tree.dir(), "");
    auto rs = b.Run("ranks");
    CHECK(ById(rs, "ranks.spinning").status == Status::kSkip);
    CHECK_THAT(ById(rs, "ranks.spinning").summary, Catch::Contains("no real-time thread runs"));
    CHECK_THAT(ById(rs, "ranks.starvation").summary, Catch::Contains("no watched kernel thread"));
  }
}
