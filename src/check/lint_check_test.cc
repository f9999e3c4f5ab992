// Each lint rule on the fixtures: a profile and a system that keep it (PASS) and one that
// breaks it, asserting what the user reads: the status, the CPUs or values named, the hint.
#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include <fstream>
#include <sstream>

#include "check/check_test_support.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;

namespace {

// The arm64 board as tuned, written as a profile: every lint rule holds for it.
const std::string kGood =
    "cores:\n"
    "  housekeeping: 0-3\n"
    "  isolated: 4-7\n"
    "  runtime:\n"
    "    timer_migration: false\n"
    "ranks:\n"
    "  rules:\n"
    "    sensor-irq: {threads: \"irq/[0-9]+-spi0.*\", policy: fifo, priority: 85, cpus: 7}\n"
    "    loop: {process: ctrl, policy: fifo, priority: 80, cpus: 7}\n"
    "    planner: {process: planner, policy: deadline, runtime: 2ms, period: 10ms, cpus: 6}\n"
    "  order: [sensor-irq, loop]\n"
    "power:\n"
    "  cpu_dma_latency_us: 20\n"
    "memory:\n"
    "  thp:\n"
    "    defrag: never\n"
    "acceptance:\n"
    "  duration: 2h\n"
    "  max_us: 200\n";

const std::string kOrder = "  order: [sensor-irq, loop]\n";

std::vector<CheckResult> Lint(const std::string& tree, const std::string& yaml) { return LoadBench(tree, yaml).Run("lint"); }
std::vector<CheckResult> Arm(const std::string& yaml) { return Lint(Tree("arm64-rt-8cpu"), yaml); }

// kGood with `from` replaced by `to` (the line must exist).
std::string Good(const std::string& from, const std::string& to) {
  std::string s = kGood;
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

// The rule ids docs/checks.md's lint table lists, in its order.
std::vector<std::string> DocumentedRules() {
  std::ifstream in(std::string(RTAGENT_SOURCE_DIR) + "/docs/checks.md");
  std::vector<std::string> ids;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `lint.", 0) == 0) ids.push_back(line.substr(3, line.find('`', 3) - 3));
  }
  return ids;
}

TEST_CASE("lint: the tuned RT board passes every rule, each one docs/checks.md documents", "[check][lint]") {
  auto rs = Arm(kGood);
  std::vector<std::string> ids;
  for (const auto& r : rs) ids.push_back(r.id);
  CHECK(ids == DocumentedRules());
  for (const auto& r : rs) {
    INFO(r.id << ": " << r.summary);
    CHECK(r.status == Status::kPass);
    CHECK(r.hint.empty());
    CHECK_THAT(r.chapter, Catch::StartsWith("Chapter "));
  }
}

TEST_CASE("lint.isolcpus_alone: isolcpus without irqaffinity or nohz_full", "[check][lint]") {
  auto rs = Arm(Good("  runtime:\n", "  boot:\n    nohz_full: false\n    irqaffinity: false\n  runtime:\n"));
  const auto& r = ById(rs, "lint.isolcpus_alone");
  CHECK(r.status == Status::kFail);
  CHECK_THAT(r.summary, Catch::Contains("seating rule, not a quiet core"));
  CHECK_THAT(r.hint, Catch::Contains("irqaffinity"));
  CHECK(r.chapter == "Chapter 6 (A core of its own)");

  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("proc/cmdline", "root=/dev/mmcblk0p2 isolcpus=4-7\n");
  CHECK_THAT(ById(Lint(t.dir(), kGood), "lint.isolcpus_alone").summary, Catch::Contains("running kernel was booted with isolcpus= alone"));
}

TEST_CASE("lint.tick_on_isolated and lint.rcu_on_isolated: chores left on isolated CPUs", "[check][lint]") {
  auto rs = Arm(Good("  runtime:\n", "  boot:\n    nohz_full: false\n    rcu_nocbs: false\n  runtime:\n"));
  const auto& tick = ById(rs, "lint.tick_on_isolated");
  CHECK(tick.status == Status::kWarn);
  CHECK_THAT(tick.summary, Catch::Contains("isolated CPUs 4-7 keep the scheduler tick"));
  const auto& rcu = ById(rs, "lint.rcu_on_isolated");
  CHECK(rcu.status == Status::kWarn);
  CHECK_THAT(rcu.summary, Catch::Contains("4-7 keep their RCU callbacks"));

  // The running kernel: CPU 7 isolated but out of nohz_full.
  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("sys/devices/system/cpu/nohz_full", "4-6\n");
  CHECK_THAT(ById(Lint(t.dir(), kGood), "lint.tick_on_isolated").summary,
             Catch::Contains("running kernel's isolated CPUs 7 keep the tick"));
}

TEST_CASE("lint.rcu_nocb_poll: offloaded callbacks without polling", "[check][lint]") {
  const auto& r = ById(Arm(Good("  runtime:\n", "  boot:\n    rcu_nocb_poll: false\n  runtime:\n")), "lint.rcu_nocb_poll");
  CHECK(r.status == Status::kWarn);
  CHECK(r.mark.line == 5);
  CHECK_THAT(r.hint, Catch::Contains("rcu_nocb_poll: true"));
}

TEST_CASE("lint.cpu0_nohz_full and lint.no_housekeeping on the running kernel", "[check][lint]") {
  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("sys/devices/system/cpu/nohz_full", "0,4-7\n");
  const auto& cpu0 = ById(Lint(t.dir(), kGood), "lint.cpu0_nohz_full");
  CHECK(cpu0.status == Status::kFail);
  CHECK_THAT(cpu0.summary, Catch::Contains("CPU 0 in nohz_full"));

  TempTree all(Tree("arm64-rt-8cpu"));
  all.Put("sys/devices/system/cpu/isolated", "0-7\n");
  const auto& hk = ById(Lint(all.dir(), kGood), "lint.no_housekeeping");
  CHECK(hk.status == Status::kFail);
  CHECK_THAT(hk.summary, Catch::Contains("every online CPU (0-7) is isolated"));
}

TEST_CASE("lint.workqueue_on_isolated: the profile leaves unbound work on isolated CPUs", "[check][lint]") {
  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("sys/devices/virtual/workqueue/cpumask", "ff\n");
  const auto& r = ById(Lint(t.dir(), Good("    timer_migration: false\n", "    timer_migration: false\n    workqueue_cpumask: keep\n")),
                       "lint.workqueue_on_isolated");
  CHECK(r.status == Status::kWarn);
  CHECK_THAT(r.summary, Catch::Contains("isolated CPUs 4-7"));
  CHECK_THAT(r.hint, Catch::Contains("workqueue_cpumask: housekeeping"));
  // With the profile pointing it at housekeeping, conformance (not lint) reports the drift.
  CHECK(ById(Lint(t.dir(), kGood), "lint.workqueue_on_isolated").status == Status::kPass);
}

TEST_CASE("lint.timer_migration: on in the profile, or left on", "[check][lint]") {
  const auto& on = ById(Arm(Good("timer_migration: false", "timer_migration: true")), "lint.timer_migration");
  CHECK(on.status == Status::kWarn);
  CHECK(on.mark.line == 5);
  TempTree t(Tree("arm64-rt-8cpu"));
  t.Put("proc/sys/kernel/timer_migration", "1\n");
  const auto& left = ById(Lint(t.dir(), Good("  runtime:\n    timer_migration: false\n", "")), "lint.timer_migration");
  CHECK(left.status == Status::kWarn);
  CHECK_THAT(left.summary, Catch::Contains("timer_migration is 1"));
  CHECK(left.measured == "timer_migration 1");
}

TEST_CASE("lint.rank_order: a loop ranked above the IRQ thread that feeds it", "[check][lint]") {
  // (validate already refuses a ranks.order its priorities contradict; without an order the
  // priorities alone say the loop outranks its feeder.)
  auto rs = Arm(Good("priority: 85, cpus: 7", "priority: 70, cpus: 7").replace(kGood.find(kOrder), kOrder.size(), ""));
  const auto& r = ById(rs, "lint.rank_order");
  CHECK(r.status == Status::kFail);
  CHECK_THAT(r.summary, Catch::Contains("the loop loop (fifo 80) ranks at or above the IRQ thread sensor-irq (fifo 70) "
                                        "that feeds it on the same CPUs: the loop waits for its own data"));
  // On other CPUs it feeds another loop: no finding.
  CHECK(ById(Arm(Good("priority: 85, cpus: 7", "priority: 70, cpus: 6").replace(kGood.find(kOrder), kOrder.size(), "")),
             "lint.rank_order")
            .status == Status::kPass);
  CHECK(r.chapter == "Chapter 4 (Inside the real-time kernel)");
  CHECK(r.mark.Known());
}

TEST_CASE("lint.loop_below_irq_threads: a loop at or below FIFO 50", "[check][lint]") {
  auto rs = Arm(Good("priority: 80, cpus: 7", "priority: 40, cpus: 7"));
  const auto& r = ById(rs, "lint.loop_below_irq_threads");
  CHECK(r.status == Status::kWarn);
  CHECK_THAT(r.summary, Catch::Contains("loop (fifo 40) ranks at or below the IRQ threads"));
}

TEST_CASE("lint.rt_throttling_off: the profile or the system removes RT throttling", "[check][lint]") {
  // validate refuses -1 unless kernel.rt_safety_net is any; lint still says what it costs.
  const auto& p = ById(Arm(Good("    defrag: never\n", "    defrag: never\n  sysctl:\n    kernel.sched_rt_runtime_us: -1\n") +
                           "kernel:\n  rt_safety_net: any\n"),
                       "lint.rt_throttling_off");
  CHECK(p.status == Status::kWarn);
  CHECK_THAT(p.summary, Catch::Contains("every CPU, not only the isolated ones"));
  CHECK(p.chapter == "Chapter 2 (Who goes first)");
  TempTree t(Tree("x86-ipc-4cpu"));
  t.Put("proc/sys/kernel/sched_rt_runtime_us", "-1\n");
  const auto& live = ById(Lint(t.dir(), ""), "lint.rt_throttling_off");
  CHECK(live.status == Status::kFail);
  CHECK(live.measured == "sched_rt_runtime_us -1");
  CHECK(ById(Lint(Tree("x86-ipc-4cpu"), ""), "lint.rt_throttling_off").status == Status::kPass);
}

TEST_CASE("lint.deadline_bookings: bookings above 0.90 of a CPU on 6.12", "[check][lint]") {
  const auto& ok = ById(Arm(kGood), "lint.deadline_bookings");
  CHECK(ok.limit == "0.90 of each CPU (0.95 less the fair server's 0.05)");
  CHECK_THAT(ok.measured, Catch::Contains("profile books 0.20 of 0.90 on CPUs 6") &&
                              Catch::Contains("1 running deadline threads book at most 0.20"));
  const auto& r = ById(Arm(Good("runtime: 2ms, period: 10ms", "runtime: 9500us, period: 10ms")), "lint.deadline_bookings");
  CHECK(r.status == Status::kFail);
  CHECK_THAT(r.summary, Catch::Contains("total 0.95 CPUs, above the 0.90") && Catch::Contains("EBUSY"));
}

TEST_CASE("lint.thp_defrag: always in the profile fails, left at always warns", "[check][lint]") {
  const auto& p = ById(Arm(Good("defrag: never", "defrag: always")), "lint.thp_defrag");
  CHECK(p.status == Status::kFail);
  CHECK_THAT(p.summary, Catch::Contains("compaction"));
  TempTree t(Tree("vm-x86-captured"));
  t.Put("sys/kernel/mm/transparent_hugepage/defrag", "[always] defer defer+madvise madvise never\n");
  const auto& live = ById(Lint(t.dir(), "acceptance:\n  duration: 2h\n"), "lint.thp_defrag");
  CHECK(live.status == Status::kWarn);
  CHECK(live.measured == "defrag always");
  CHECK(ById(Lint(Tree("vm-x86-captured"), ""), "lint.thp_defrag").status == Status::kPass);
}

TEST_CASE("lint.deep_cstates: deep naps allowed with a small budget and no note", "[check][lint]") {
  const std::string tree = Tree("x86-ipc-4cpu");
  const auto& r = ById(Lint(tree, "cores:\n  housekeeping: 0\n  isolated: 1-3\nacceptance:\n  max_us: 100\n"), "lint.deep_cstates");
  CHECK(r.status == Status::kWarn);
  CHECK_THAT(r.summary, Catch::Contains("C10 (890 us, CPUs 1-3)"));
  CHECK(r.limit == "exit latency <= 50 us (half of acceptance.max_us 100 us)");
  CHECK_THAT(r.hint, Catch::Contains("cpu_dma_latency_us"));
  const auto& capped = ById(Lint(tree, "cores:\n  housekeeping: 0\n  isolated: 1-3\npower:\n  max_exit_latency_us: 20\n"
                                       "acceptance:\n  max_us: 100\n"),
                            "lint.deep_cstates");
  CHECK(capped.status == Status::kPass);
}

TEST_CASE("lint.test_pm_qos, lint.acceptance_short and lint.budget_small", "[check][lint]") {
  auto rs = Arm(Good("  duration: 2h\n  max_us: 200\n", "  duration: 1m\n  max_us: 50\n  pm_qos_us: 0\n"));
  const auto& q = ById(rs, "lint.test_pm_qos");
  CHECK(q.status == Status::kWarn);
  CHECK_THAT(q.summary, Catch::Contains("PM QoS note of 0 us") && Catch::Contains("(it holds 20 us)"));
  const auto& s = ById(rs, "lint.acceptance_short");
  CHECK(s.status == Status::kWarn);
  CHECK_THAT(s.summary, Catch::Contains("the acceptance test runs 1m:"));
  CHECK(s.chapter == "Chapter 5 (Measuring the worst case)");
  const auto& b = ById(rs, "lint.budget_small");
  CHECK(b.status == Status::kWarn);
  CHECK(b.chapter == "Chapter 10 (When Linux is not enough)");
}

TEST_CASE("lint: checks.lint.ignore silences a rule and names an unknown one", "[check][lint]") {
  auto rs = Arm(Good("  duration: 2h\n", "  duration: 1m\n") +
                "checks:\n  lint:\n    ignore: [lint.acceptance_short, lint.no_such_rule]\n");
  const auto& ignored = ById(rs, "lint.acceptance_short");
  CHECK(ignored.status == Status::kSkip);
  CHECK_THAT(ignored.summary, Catch::Contains("ignored by the profile"));
  const auto& unknown = ById(rs, "lint.ignore");
  CHECK(unknown.status == Status::kWarn);
  CHECK_THAT(unknown.summary, Catch::Contains("\"lint.no_such_rule\", which is no lint rule"));
}
