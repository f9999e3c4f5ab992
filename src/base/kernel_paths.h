// Every kernel interface path rtagent uses, relative to the system root (see sysroot.h).
// This file is the only place that spells them; tests/no_literal_paths.sh keeps it so.
#pragma once

#include <string>

namespace rtagent::kpath {

// --- kernel identity and safety nets (Documentation/scheduler/sched-rt-group.rst) ---
inline const std::string kOsRelease = "proc/sys/kernel/osrelease";
inline const std::string kVersion = "proc/sys/kernel/version";  // what `uname -v` prints
inline const std::string kArch = "proc/sys/kernel/arch";
inline const std::string kRealtime = "sys/kernel/realtime";     // "1" on PREEMPT_RT (since 6.12 mainline)
inline const std::string kCmdline = "proc/cmdline";
inline const std::string kSchedRtRuntime = "proc/sys/kernel/sched_rt_runtime_us";
inline const std::string kSchedRtPeriod = "proc/sys/kernel/sched_rt_period_us";
inline const std::string kTimerMigration = "proc/sys/kernel/timer_migration";
inline const std::string kDebugFs = "sys/kernel/debug";
inline const std::string kFairServerDir = "sys/kernel/debug/sched/fair_server";  // 6.12+ deadline server
inline std::string FairServerRuntime(int cpu) { return kFairServerDir + "/cpu" + std::to_string(cpu) + "/runtime"; }
inline std::string Sysctl(const std::string& dotted) {
  std::string p = "proc/sys/";
  for (char c : dotted) p += (c == '.') ? '/' : c;
  return p;
}

// --- CPUs (Documentation/ABI/testing/sysfs-devices-system-cpu) ---
inline const std::string kCpuDir = "sys/devices/system/cpu";
inline const std::string kCpuOnline = "sys/devices/system/cpu/online";
inline const std::string kCpuPossible = "sys/devices/system/cpu/possible";
inline const std::string kCpuPresent = "sys/devices/system/cpu/present";
inline const std::string kCpuIsolated = "sys/devices/system/cpu/isolated";
inline const std::string kCpuNohzFull = "sys/devices/system/cpu/nohz_full";
inline std::string Cpu(int cpu) { return kCpuDir + "/cpu" + std::to_string(cpu); }
inline std::string CpuIdleDir(int cpu) { return Cpu(cpu) + "/cpuidle"; }
inline std::string CpuIdleState(int cpu, int state) { return CpuIdleDir(cpu) + "/state" + std::to_string(state); }
inline std::string CpuFreqDir(int cpu) { return Cpu(cpu) + "/cpufreq"; }
inline std::string CpuResumeLatency(int cpu) { return Cpu(cpu) + "/power/pm_qos_resume_latency_us"; }
inline const std::string kCpuIdleDriver = "sys/devices/system/cpu/cpuidle/current_driver";
inline const std::string kCpuInfo = "proc/cpuinfo";

// --- interrupts (Documentation/core-api/irq/irq-affinity.rst, ABI sysfs-kernel-irq) ---
inline const std::string kInterrupts = "proc/interrupts";
inline const std::string kSoftirqs = "proc/softirqs";
inline const std::string kProcIrqDir = "proc/irq";
inline const std::string kDefaultSmpAffinity = "proc/irq/default_smp_affinity";
inline std::string ProcIrq(int irq) { return kProcIrqDir + "/" + std::to_string(irq); }
inline const std::string kSysIrqDir = "sys/kernel/irq";
inline std::string SysIrq(int irq) { return kSysIrqDir + "/" + std::to_string(irq); }

// --- processes and threads (Documentation/filesystems/proc.rst) ---
inline const std::string kProc = "proc";
inline std::string Pid(int pid) { return "proc/" + std::to_string(pid); }
inline std::string Task(int pid, int tid) { return Pid(pid) + "/task/" + std::to_string(tid); }
inline const std::string kMounts = "proc/mounts";
inline const std::string kSelfCgroup = "proc/self/cgroup";
inline const std::string kProcCgroups = "proc/cgroups";

// --- workqueues, memory ---
inline const std::string kWorkqueueCpumask = "sys/devices/virtual/workqueue/cpumask";
inline const std::string kThpDir = "sys/kernel/mm/transparent_hugepage";
inline const std::string kThpEnabled = "sys/kernel/mm/transparent_hugepage/enabled";
inline const std::string kThpDefrag = "sys/kernel/mm/transparent_hugepage/defrag";

// --- cgroups (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/cpusets.rst) ---
inline const std::string kCgroupRoot = "sys/fs/cgroup";

// --- clocks and hypervisors ---
inline const std::string kClocksourceDir = "sys/devices/system/clocksource/clocksource0";
inline const std::string kCurrentClocksource = "sys/devices/system/clocksource/clocksource0/current_clocksource";
inline const std::string kAvailableClocksource = "sys/devices/system/clocksource/clocksource0/available_clocksource";
inline const std::string kHypervisorType = "sys/hypervisor/type";
inline const std::string kDmiDir = "sys/class/dmi/id";
inline const std::string kDmiSysVendor = "sys/class/dmi/id/sys_vendor";
inline const std::string kDmiProductName = "sys/class/dmi/id/product_name";
inline const std::string kDeviceTreeModel = "proc/device-tree/model";

// --- power (Documentation/power/pm_qos_interface.rst) ---
inline const std::string kCpuDmaLatency = "dev/cpu_dma_latency";

// --- tracing (Documentation/trace/ftrace.rst, hwlat_detector.rst) ---
inline const std::string kTracefs = "sys/kernel/tracing";
inline const std::string kTracefsLegacy = "sys/kernel/debug/tracing";

// --- rtagent's own runtime state ---
inline const std::string kRunDir = "run/rtagent";

}  // namespace rtagent::kpath
