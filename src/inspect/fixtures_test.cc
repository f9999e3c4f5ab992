// The hand-made and captured trees of tests/sysroots/, read through the library and through
// the rtagent binary (`inspect --json --root ...`), with the values each tree was built with.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "inspect/inspect_json.h"
#include "inspect/inspect_test_support.h"
#include "inspect/system_state.h"
#include "report/test_verdict.h"

using namespace rtagent;
using rtagent::testing::Fixture;
using rtagent::testing::RunRtagent;
using nlohmann::json;

namespace {

SystemState Collect(const std::string& name) {
  auto root = OpenRoot(Fixture(name));
  REQUIRE(root.ok());
  return CollectSystemState(**root);
}

json InspectBinary(const std::string& name, const std::string& extra = "") {
  auto r = RunRtagent("inspect --json --root " + Fixture(name) + " " + extra);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

const IrqInfo* FindIrq(const SystemState& s, int irq) {
  for (const auto& i : s.irqs->irqs) {
    if (i.irq == irq) return &i;
  }
  return nullptr;
}

int CountFifo50Irq(const ThreadState& t) {
  return static_cast<int>(std::count_if(t.realtime.begin(), t.realtime.end(), [](const ThreadInfo& th) {
    return th.comm.rfind("irq/", 0) == 0 && th.policy == kSchedFifo && th.priority == 50;
  }));
}

}  // namespace

TEST_CASE("arm64 RT board: kernel, isolation, IRQs, threads", "[inspect]") {
  SystemState s = Collect("arm64-rt-8cpu");
  REQUIRE(s.kernel);
  CHECK(s.kernel->preempt_rt);
  CHECK(s.kernel->preempt_model == "PREEMPT_RT");
  CHECK(s.kernel->realtime_sysfs == 1);
  CHECK(s.kernel->arch == "aarch64");
  CHECK(s.kernel->safety_net.active == "fair_server");
  CHECK(s.kernel->safety_net.fair_server_state == "visible");
  REQUIRE(s.kernel->safety_net.fair_server.size() == 8);
  CHECK(s.kernel->safety_net.fair_server[0].runtime_ns == 50000000);
  CHECK(s.kernel->safety_net.fair_server[5].runtime_ns == 0);  // switched off on the isolated CPUs

  CHECK(s.cpu_sets.online->ToList() == "0-7");
  CHECK(s.cpu_sets.isolated->ToList() == "4-7");
  CHECK(s.cpu_sets.nohz_full->ToList() == "4-7");
  CHECK(s.cpu_sets.partition_isolated->ToList() == "4-7");
  CHECK(s.cpu_sets.housekeeping.ToList() == "0-3");
  CHECK(s.cpu_sets.workqueue_cpumask->ToList() == "0-3");
  CHECK(s.cpu_sets.timer_migration == 0);

  REQUIRE(s.cmdline);
  REQUIRE(s.cmdline->isolation.isolcpus);
  CHECK(s.cmdline->isolation.isolcpus->flags == std::vector<std::string>{"nohz", "domain", "managed_irq"});
  CHECK(s.cmdline->isolation.isolcpus->cpus->ToList() == "4-7");
  CHECK(s.cmdline->isolation.irqaffinity->cpus->ToList() == "0-3");
  CHECK(s.cmdline->isolation.rcu_nocb_poll);

  REQUIRE(s.irqs);
  CHECK(s.irqs->irqs.size() == 16);
  const IrqInfo* timer = FindIrq(s, 11);
  REQUIRE(timer);
  CHECK(timer->chip == "GICv3");
  CHECK(timer->hwirq == "27");
  CHECK(timer->Name() == "arch_timer");
  CHECK(timer->per_cpu);
  CHECK(timer->on_isolated == 3120 + 3117 + 3342 + 3119);
  const IrqInfo* eth = FindIrq(s, 85);
  REQUIRE(eth);
  CHECK(eth->affinity->ToList() == "0-3");
  CHECK(eth->effective_affinity->ToList() == "2");
  CHECK(eth->on_isolated == 1520);
  CHECK_FALSE(eth->per_cpu);
  const IrqInfo* pme = FindIrq(s, 95);
  REQUIRE(pme);
  CHECK(pme->actions == std::vector<std::string>{"PCIe PME", "aerdrv"});
  CHECK(pme->chip == "ITS-MSI");
  CHECK(FindIrq(s, 99)->managed_hint);
  CHECK(s.irqs->per_cpu_rows.size() == 8);  // IPI0..IPI6 and Err
  CHECK(s.irqs->per_cpu_rows[0].id == "IPI0");

  REQUIRE(s.threads);
  CHECK(CountFifo50Irq(*s.threads) == 15);
  auto ktimers = std::find_if(s.threads->per_cpu_kthreads.begin(), s.threads->per_cpu_kthreads.end(),
                              [](const KthreadGroup& g) { return g.pattern == "ktimers/N"; });
  REQUIRE(ktimers != s.threads->per_cpu_kthreads.end());
  CHECK(ktimers->count == 8);
  CHECK(ktimers->by_policy.at("fifo") == 8);
  auto loop = std::find_if(s.threads->realtime.begin(), s.threads->realtime.end(),
                           [](const ThreadInfo& t) { return t.tid == 1203; });
  REQUIRE(loop != s.threads->realtime.end());
  CHECK(loop->comm == "ctrl (loop) 1");
  CHECK(loop->process_comm == "robot_ctrl");
  CHECK(loop->priority == 80);
  CHECK(loop->affinity->ToList() == "6");
  CHECK_FALSE(loop->kthread);
  auto planner = std::find_if(s.threads->realtime.begin(), s.threads->realtime.end(),
                              [](const ThreadInfo& t) { return t.comm == "planner"; });
  REQUIRE(planner != s.threads->realtime.end());
  CHECK(planner->policy == kSchedDeadline);
  CHECK(planner->deadline->runtime_ns == 2000000);
}

TEST_CASE("arm64 RT board: power, memory, cgroups, clock", "[inspect]") {
  SystemState s = Collect("arm64-rt-8cpu");
  REQUIRE(s.power);
  CHECK(s.power->cpu_dma_latency_us == 0);  // 4 binary bytes
  CHECK(s.power->idle_driver == "psci_idle");
  REQUIRE(s.power->cpus.size() == 8);
  const auto& idle = s.power->cpus[6].idle_states;
  REQUIRE(idle.size() == 3);
  CHECK(idle[0].name == "WFI");
  CHECK(idle[2].name == "cluster-sleep");
  CHECK(idle[2].latency_us == 1000);
  CHECK(idle[2].disabled == true);
  CHECK(s.power->cpus[1].idle_states[2].disabled == false);
  CHECK(s.power->cpus[0].cpufreq->governor == "schedutil");
  CHECK(s.power->cpus[7].cpufreq->governor == "performance");
  CHECK(s.power->cpus[7].resume_latency_us == "0");

  REQUIRE(s.memory);
  CHECK(s.memory->thp_enabled.selected == "never");
  CHECK(s.memory->thp_defrag.selected == "never");

  REQUIRE(s.cgroups);
  CHECK(s.cgroups->layout == "v2");
  auto rt = std::find_if(s.cgroups->v2_cpusets.begin(), s.cgroups->v2_cpusets.end(),
                         [](const CgroupV2Cpuset& c) { return c.path == "/rt"; });
  REQUIRE(rt != s.cgroups->v2_cpusets.end());
  CHECK(rt->parsed.type == "isolated");
  CHECK(rt->parsed.valid);
  CHECK(rt->cpus->ToList() == "4-7");
  CHECK(s.cgroups->v2_cpusets.size() == 5);  // the root, /rt and three members

  REQUIRE(s.clock);
  CHECK(s.clock->clocksource == "arch_sys_counter");
  CHECK_FALSE(s.clock->hypervisor.present);
  CHECK(s.clock->hypervisor.device_tree_model == "Radxa ROCK 5 Model B");
}

TEST_CASE("x86 industrial PC: stock kernel, cgroup v1, intel_idle, no hypervisor", "[inspect]") {
  SystemState s = Collect("x86-ipc-4cpu");
  CHECK_FALSE(s.kernel->preempt_rt);
  CHECK(s.kernel->preempt_model == "PREEMPT_DYNAMIC");
  CHECK(s.kernel->preempt_dynamic_mode == "voluntary");
  CHECK(s.kernel->safety_net.active == "rt_throttling");
  CHECK(s.kernel->safety_net.fair_server_state == "absent");
  CHECK(s.cpu_sets.online->Count() == 4);
  CHECK(s.cpu_sets.isolated->Empty());
  CHECK(s.cpu_sets.nohz_full->Empty());  // "(null)" is an empty set
  CHECK(s.cpu_sets.isolated_all.Empty());
  CHECK_FALSE(s.cmdline->isolation.isolcpus.has_value());

  CHECK(s.cgroups->layout == "v1");
  CHECK(s.cgroups->v1_cpuset_mount == "/sys/fs/cgroup/cpuset");
  REQUIRE(s.cgroups->v1_cpusets.size() == 1);
  CHECK(s.cgroups->v1_cpusets[0].cpu_exclusive == true);
  CHECK(s.cgroups->v1_cpusets[0].sched_load_balance == true);

  CHECK(s.power->idle_driver == "intel_idle");
  const auto& idle = s.power->cpus[0].idle_states;
  REQUIRE(idle.size() == 9);
  CHECK(idle[1].name == "C1");
  CHECK(idle[1].latency_us == 2);
  CHECK(idle[2].name == "C1E");
  CHECK(idle[2].latency_us == 10);
  CHECK(idle[4].name == "C6");
  CHECK(idle[4].latency_us == 85);
  CHECK(s.power->cpus[3].cpufreq->driver == "intel_pstate");
  CHECK(s.power->cpus[3].cpufreq->governor == "powersave");
  CHECK(s.power->cpu_dma_latency_us == 2000000000);  // decimal text in this tree

  const IrqInfo* ahci = FindIrq(s, 123);
  REQUIRE(ahci);
  CHECK(ahci->chip == "IR-PCI-MSI");
  CHECK(ahci->type == "edge");
  CHECK(ahci->total == 20341 + 18812 + 16020 + 21455);
  CHECK(FindIrq(s, 9)->type == "level");
  CHECK(FindIrq(s, 9)->handler == "fasteoi");
  CHECK(FindIrq(s, 122)->Name() == "PCIe PME, aerdrv, pciehp");

  CHECK(s.clock->clocksource == "tsc");
  CHECK_FALSE(s.clock->hypervisor.present);
  CHECK(s.clock->hypervisor.dmi_sys_vendor == "Advantech");
  CHECK(s.memory->thp_enabled.selected == "madvise");
}

TEST_CASE("captured VM: hypervisor, two CPUs, hybrid cgroups", "[inspect]") {
  SystemState s = Collect("vm-x86-captured");
  CHECK(s.clock->hypervisor.present);
  CHECK(s.clock->hypervisor.cpuinfo_flag);
  CHECK(s.cpu_sets.online->ToList() == "0-1");
  CHECK(s.cgroups->layout == "hybrid");
  CHECK(s.cgroups->v1_cpuset_mount == "/sys/fs/cgroup/cpuset");
  CHECK(s.kernel->release->rfind("6.18", 0) == 0);
  CHECK_FALSE(s.kernel->preempt_rt);
  CHECK(s.kernel->safety_net.active == "fair_server");  // 6.12+, debugfs not mounted
  CHECK(s.kernel->safety_net.fair_server_state == "not_visible");
  CHECK(s.power->cpu_dma_latency_us == 2000000000);  // binary, as captured
  CHECK(s.power->idle_driver == "haltpoll");
  CHECK(s.irqs->irqs.size() > 10);
  CHECK(!s.threads->realtime.empty());
}

TEST_CASE("rtagent inspect --json on each fixture", "[inspect]") {
  json arm = InspectBinary("arm64-rt-8cpu");
  CHECK(arm["schema"] == kInspectSchema);
  CHECK(arm["kernel"]["preempt_rt"] == true);
  CHECK(arm["cpus"]["isolated"] == "4-7");
  CHECK(arm["cmdline"]["isolation"]["isolcpus"]["cpus"] == "4-7");
  int fifo50 = 0;
  for (const auto& t : arm["threads"]["realtime"]) {
    std::string comm = t["comm"];
    fifo50 += comm.rfind("irq/", 0) == 0 && t["policy"] == "fifo" && t["priority"] == 50;
  }
  CHECK(fifo50 == 15);
  json timer;
  for (const auto& i : arm["irqs"]["irqs"]) {
    if (i["irq"] == 11) timer = i;
  }
  CHECK(timer["chip"] == "GICv3");
  CHECK(timer["name"] == "arch_timer");
  CHECK(timer["counts"].size() == 8);
  CHECK(timer["counts"]["6"] == 3342);
  json eth;
  for (const auto& i : arm["irqs"]["irqs"]) {
    if (i["irq"] == 85) eth = i;
  }
  CHECK(eth["counts"] == json{{"2", 981234}, {"4", 1520}});  // sparse: only CPUs that moved
  CHECK(eth["on_isolated"] == 1520);
  CHECK(arm["power"]["cpus"][4]["idle_states"][1]["latency_us"] == 120);
  CHECK(arm["power"]["cpus"][4]["idle_states"][1]["disabled"] == true);
  CHECK(arm["cgroups"]["v2"]["cpus_isolated"] == "4-7");

  json x86 = InspectBinary("x86-ipc-4cpu");
  CHECK(x86["cgroups"]["layout"] == "v1");
  CHECK(x86["clock"]["hypervisor"]["present"] == false);
  CHECK(x86["power"]["cpuidle"]["driver"] == "intel_idle");
  CHECK(x86["power"]["cpus"][0]["idle_states"][2]["name"] == "C1E");
  CHECK(x86["cpus"]["nohz_full"] == "");
  CHECK(x86["cmdline"]["isolation"]["isolcpus"].is_null());

  json vm = InspectBinary("vm-x86-captured");
  CHECK(vm["clock"]["hypervisor"]["present"] == true);
  CHECK(vm["cpus"]["online_count"] == 2);
}

TEST_CASE("inspect --section limits the document to one section", "[inspect]") {
  json j = InspectBinary("arm64-rt-8cpu", "--section irqs");
  CHECK(j.size() == 2);  // schema and irqs
  CHECK(j.contains("irqs"));
  CHECK(j["irqs"]["irqs"][0]["on_isolated"] == 3120 + 3117 + 3342 + 3119);  // isolation still known
  auto bad = RunRtagent("inspect --section nope --root " + Fixture("arm64-rt-8cpu"), true);
  CHECK(bad.code == 2);
  CHECK(bad.out.find("kernel, cmdline, cpus") != std::string::npos);
}

TEST_CASE("inspect tables on a fixture", "[inspect]") {
  auto r = RunRtagent("inspect --root " + Fixture("arm64-rt-8cpu"));
  REQUIRE(r.code == 0);
  for (const char* s : {"KERNEL", "CMDLINE", "CPUS", "IRQS", "THREADS", "MEMORY", "POWER", "CGROUPS", "CLOCK",
                        "arch_timer", "cluster-sleep", "ctrl (loop) 1", "isolated"}) {
    CHECK(r.out.find(s) != std::string::npos);
  }
}

TEST_CASE("an empty tree is all absent, never an error", "[inspect]") {
  rtagent::testing::TempDir empty;
  auto r = RunRtagent("inspect --json --root " + empty.str());
  REQUIRE(r.code == 0);
  json j = json::parse(r.out);
  CHECK(j["kernel"]["release"].is_null());
  CHECK(j["kernel"]["safety_net"]["active"] == "unknown");
  CHECK(j["cpus"]["online"].is_null());
  CHECK(j["irqs"]["readable"] == false);
  CHECK(j["threads"]["threads"] == 0);
  CHECK(j["power"]["cpu_dma_latency_state"] == "absent");
  CHECK(j["cgroups"]["layout"] == "none");
  CHECK(j["clock"]["hypervisor"]["present"] == false);
  CHECK(RunRtagent("inspect --root " + empty.str()).code == 0);
}

// tests/sysroots/debian12-rt-arm64-qemu: `rtagent capture` in the arm64 QEMU guest of
// tests/qemu/scenarios/rt-arm64.sh (Debian's 6.1 PREEMPT_RT arm64 kernel on the virt machine,
// GICv3, four Cortex-A57, housekeeping 0, isolated 1-3). Its inspect output, table and JSON.
TEST_CASE("arm64 QEMU guest captured: inspect matches the expected file", "[inspect]") {
  auto r = RunRtagent("inspect --root " + Fixture("debian12-rt-arm64-qemu"));
  REQUIRE(r.code == 0);
  rtagent::testing::CheckExpected("inspect/debian12-rt-arm64-qemu.txt", r.out);

  json j = InspectBinary("debian12-rt-arm64-qemu");
  CHECK(j["kernel"]["preempt_rt"] == true);
  CHECK(j["kernel"]["arch"] == "aarch64");
  CHECK(j["clock"]["clocksource"] == "arch_sys_counter");
  CHECK(j["cpus"]["isolated"] == "1-3");
  bool gic = false, arch_timer = false;
  for (const auto& irq : j["irqs"]["irqs"]) {
    if (irq.value("chip", "") == "GICv3") gic = true;
    if (irq.dump().find("arch_timer") != std::string::npos) arch_timer = true;
  }
  CHECK(gic);
  CHECK(arch_timer);
}
