#include "profile/schema.h"

#include <climits>
#include <cstdlib>
#include <iostream>

namespace rtagent::profile {

// Order of these lists is the order of BootloaderType, IsolcpusFlag, ... in model.h.
const std::vector<std::string> kBootloaderNames = {"auto", "grub", "extlinux", "rpi", "bls", "kernel-install", "print"};
const std::vector<std::string> kIsolcpusFlagNames = {"nohz", "domain", "managed_irq"};
const std::vector<std::string> kPolicyNames = {"fifo", "rr", "other", "batch", "idle", "deadline"};
const std::vector<std::string> kPartitionTypeNames = {"isolated", "root"};
const std::vector<std::string> kPreemptRtNames = {"required", "preferred", "any"};
const std::vector<std::string> kSafetyNetNames = {"keep", "isolated_only", "any"};
const std::vector<std::string> kBuiltinLoadNames = {"cache", "messaging", "disk", "network", "memory"};
const std::vector<std::string> kOnStopNames = {"keep", "revert"};
// Documentation/admin-guide/mm/transhuge.rst
const std::vector<std::string> kThpEnabledNames = {"always", "madvise", "never"};
const std::vector<std::string> kThpDefragNames = {"always", "defer", "defer+madvise", "madvise", "never"};
// Documentation/admin-guide/pm/cpufreq.rst, "Generic Scaling Governors"
const std::vector<std::string> kGovernorNames = {"performance", "powersave", "schedutil",
                                                 "ondemand",    "conservative", "userspace"};
// The suites of checks/ (issue 4): what each run of verify checks.
const std::vector<std::string> kSuiteNames = {"commission", "boot", "ci"};

const std::vector<SchemaSection>& Schema() {
  static const std::vector<SchemaSection> kSchema = {
      {"",
       {"version", "include", "name", "description", "cores", "irqs", "ranks", "partitions", "power", "memory",
        "kernel", "checks", "acceptance", "service"}},
      {"cores", {"housekeeping", "isolated", "boot", "bootloader", "runtime"}},
      {"cores.boot",
       {"isolcpus", "nohz_full", "rcu_nocbs", "rcu_nocb_poll", "irqaffinity", "skew_tick", "kthread_cpus", "extra"}},
      {"cores.bootloader", {"type", "path", "entry"}},
      {"cores.runtime", {"workqueue_cpumask", "default_smp_affinity", "timer_migration"}},
      {"irqs", {"default", "rules", "allowed", "allowed_softirqs"}},
      {"irqs.rules.<name>", {"action", "chip", "irq", "cpus"}},
      {"ranks", {"rules", "order"}},
      {"ranks.rules.<name>",
       {"threads", "process", "cmdline", "policy", "priority", "nice", "runtime", "deadline", "period", "cpus"}},
      {"partitions.<name>", {"cpus", "type", "processes"}},
      {"power", {"cpu_dma_latency_us", "cpus", "resume_latency_us", "max_exit_latency_us", "governor"}},
      {"memory", {"thp", "sysctl"}},
      {"memory.thp", {"enabled", "defrag"}},
      {"kernel", {"preempt_rt", "min_version", "rt_safety_net"}},
      {"checks", {"suite", "kernel", "cmdline", "interrupts", "hwlat", "clock", "ranks", "lint"}},
      {"checks.kernel", {"enabled"}},
      {"checks.cmdline", {"enabled"}},
      {"checks.interrupts", {"enabled", "window"}},
      {"checks.hwlat", {"enabled", "width", "window", "duration", "threshold_us", "mode"}},
      {"checks.clock", {"enabled"}},
      {"checks.ranks", {"enabled", "window"}},
      {"checks.lint", {"enabled", "ignore"}},
      {"acceptance",
       {"duration", "interval_us", "priority", "cpus", "histogram_limit_us", "max_us", "p50_us", "p90_us", "p99_us",
        "p99_9_us", "p99_99_us", "min_samples", "pm_qos_us", "loads"}},
      {"acceptance.loads", {"cpus", "builtin", "external"}},
      {"acceptance.loads.builtin[]", {"name", "cpus", "workers"}},
      {"acceptance.loads.external[]", {"name", "argv", "cpus"}},
      {"service", {"on_stop", "watch_interval", "cpus", "prometheus_textfile"}},
  };
  return kSchema;
}

const std::vector<std::string>& KeysOf(std::string_view path) {
  for (const SchemaSection& s : Schema()) {
    if (s.path == path) return s.keys;
  }
  std::cerr << "rtagent: internal error: no schema section '" << path << "'\n";
  std::abort();
}

const std::vector<SysctlSpec>& AllowedSysctls() {
  // Documentation/admin-guide/sysctl/{vm,kernel}.rst. Ranges are what the kernel accepts.
  static const std::vector<SysctlSpec> kSysctls = {
      {"vm.stat_interval", 1, 3600, false},               // seconds between per-CPU vmstat updates
      {"vm.compaction_proactiveness", 0, 100, false},     // background compaction (Chapter 8)
      {"kernel.sched_rt_runtime_us", -1, INT_MAX, false}, // RT throttling budget; -1 removes the net
      {"kernel.sched_rt_period_us", 1, INT_MAX, false},
      {"kernel.timer_migration", 0, 1, false},
      {"kernel.watchdog", 0, 1, false},
      {"kernel.nmi_watchdog", 0, 1, false},
      {"kernel.soft_watchdog", 0, 1, false},
      {"kernel.watchdog_thresh", 0, 60, false},
      {"kernel.watchdog_cpumask", 0, 0, true},
      {"kernel.numa_balancing", 0, 3, false},
  };
  return kSysctls;
}

}  // namespace rtagent::profile
