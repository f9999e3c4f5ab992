// Every kernel interface path rtagent uses, relative to the system root (see sysroot.h).
// This file is the only place that spells them; tests/no_literal_paths.sh keeps it so.
#pragma once

#include <string>

namespace rtagent::kpath {

// --- kernel identity and safety nets (Documentation/scheduler/sched-rt-group.rst) ---
inline const std::string kOsRelease = "proc/sys/kernel/osrelease";
inline const std::string kVersion = "proc/sys/kernel/version";  // what `uname -v` prints
inline const std::string kArch = "proc/sys/kernel/arch";
inline const std::string kHostname = "proc/sys/kernel/hostname";  // what `uname -n` prints (the UTS namespace's)
inline const std::string kRealtime = "sys/kernel/realtime";     // "1" on PREEMPT_RT (since 6.12 mainline)
inline const std::string kCmdline = "proc/cmdline";
inline const std::string kSchedRtRuntime = "proc/sys/kernel/sched_rt_runtime_us";
inline const std::string kSchedRtPeriod = "proc/sys/kernel/sched_rt_period_us";
inline const std::string kTimerMigration = "proc/sys/kernel/timer_migration";
inline const std::string kDebugFs = "sys/kernel/debug";
inline const std::string kFairServerDir = "sys/kernel/debug/sched/fair_server";  // 6.12+ deadline server
inline std::string FairServerRuntime(int cpu) { return kFairServerDir + "/cpu" + std::to_string(cpu) + "/runtime"; }
inline std::string FairServerPeriod(int cpu) { return kFairServerDir + "/cpu" + std::to_string(cpu) + "/period"; }
inline const std::string kSchedPreempt = "sys/kernel/debug/sched/preempt";  // PREEMPT_DYNAMIC: "none voluntary (full)"
inline const std::string kProcSys = "proc/sys";
/// The file of a sysctl named as sysctl(8) does: dots are directories, and a '/' inside a
/// component (a VLAN "eth0.100" is written "eth0/100") is a dot of the file name.
inline std::string Sysctl(const std::string& dotted) {
  std::string p = "proc/sys/";
  for (char c : dotted) p += (c == '.') ? '/' : (c == '/') ? '.' : c;
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
/// 1 online, 0 offline (Documentation/core-api/cpu_hotplug.rst); absent for a CPU that cannot go offline.
inline std::string CpuOnline(int cpu) { return Cpu(cpu) + "/online"; }
/// The socket a CPU sits in (Documentation/ABI/stable/sysfs-devices-system-cpu, topology).
inline std::string CpuPackageId(int cpu) { return Cpu(cpu) + "/topology/physical_package_id"; }
inline const std::string kCpuIdleDriver = "sys/devices/system/cpu/cpuidle/current_driver";
inline const std::string kCpuIdleGovernor = "sys/devices/system/cpu/cpuidle/current_governor";
inline const std::string kCpuIdleGovernorRo = "sys/devices/system/cpu/cpuidle/current_governor_ro";
inline const std::string kCpuIdleAvailableGovernors = "sys/devices/system/cpu/cpuidle/available_governors";
/// One attribute of a cpuidle state: name, desc, latency, residency, disable, ...
inline std::string CpuIdleStateFile(int cpu, int state, const std::string& file) { return CpuIdleState(cpu, state) + "/" + file; }
/// One cpufreq attribute of a CPU: scaling_governor, scaling_driver, scaling_available_governors, ...
inline std::string CpuFreqFile(int cpu, const std::string& file) { return CpuFreqDir(cpu) + "/" + file; }
// cpufreq attributes (Documentation/admin-guide/pm/cpufreq.rst), for CpuFreqFile().
inline const std::string kScalingGovernor = "scaling_governor";
inline const std::string kScalingDriver = "scaling_driver";
inline const std::string kScalingAvailableGovernors = "scaling_available_governors";
inline const std::string kScalingCurFreq = "scaling_cur_freq";  // kHz
inline const std::string kScalingMinFreq = "scaling_min_freq";  // kHz
inline const std::string kScalingMaxFreq = "scaling_max_freq";  // kHz
// cpuidle state attributes (Documentation/admin-guide/pm/cpuidle.rst), for CpuIdleStateFile().
inline const std::string kIdleStateName = "name";
inline const std::string kIdleStateDesc = "desc";
inline const std::string kIdleStateLatency = "latency";      // exit latency, us
inline const std::string kIdleStateResidency = "residency";  // target residency, us
inline const std::string kIdleStateDisable = "disable";      // 1 = not entered
/// A CPU's caches (Documentation/ABI/testing/sysfs-devices-system-cpu, "cache/index*").
inline std::string CpuCacheDir(int cpu) { return Cpu(cpu) + "/cache"; }
/// One attribute of a cache index: level, type (Data, Instruction, Unified), size ("2048K").
inline std::string CpuCacheFile(int cpu, const std::string& index, const std::string& file) {
  return CpuCacheDir(cpu) + "/" + index + "/" + file;
}
inline const std::string kCpuInfo = "proc/cpuinfo";

// --- interrupts (Documentation/core-api/irq/irq-affinity.rst, ABI sysfs-kernel-irq) ---
inline const std::string kInterrupts = "proc/interrupts";
inline const std::string kSoftirqs = "proc/softirqs";
inline const std::string kSchedstat = "proc/schedstat";  // per-CPU run-queue counters (Documentation/scheduler/sched-stats.rst)
inline const std::string kProcIrqDir = "proc/irq";
inline const std::string kDefaultSmpAffinity = "proc/irq/default_smp_affinity";
inline std::string ProcIrq(int irq) { return kProcIrqDir + "/" + std::to_string(irq); }
inline const std::string kSysIrqDir = "sys/kernel/irq";
inline std::string SysIrq(int irq) { return kSysIrqDir + "/" + std::to_string(irq); }
/// /proc/irq/N/<file>: smp_affinity_list, effective_affinity_list, node, ...
inline std::string ProcIrqFile(int irq, const std::string& file) { return ProcIrq(irq) + "/" + file; }
/// /sys/kernel/irq/N/<file>: actions, chip_name, hwirq, type, name, per_cpu_count (CONFIG_SPARSE_IRQ).
inline std::string SysIrqFile(int irq, const std::string& file) { return SysIrq(irq) + "/" + file; }
// Files of /proc/irq/N (ProcIrqFile) and /sys/kernel/irq/N (SysIrqFile).
inline const std::string kIrqSmpAffinityList = "smp_affinity_list";
inline const std::string kIrqEffectiveAffinityList = "effective_affinity_list";  // GENERIC_IRQ_EFFECTIVE_AFF_MASK
inline const std::string kSysIrqActions = "actions";     // handler names, comma-separated
inline const std::string kSysIrqChipName = "chip_name";
inline const std::string kSysIrqHwirq = "hwirq";
inline const std::string kSysIrqType = "type";           // edge | level

// --- processes and threads (Documentation/filesystems/proc.rst) ---
inline const std::string kProc = "proc";
/// Three load averages, "running/total" and the PID the kernel allocated last.
inline const std::string kLoadavg = "proc/loadavg";
inline std::string Pid(int pid) { return "proc/" + std::to_string(pid); }
inline std::string Task(int pid, int tid) { return Pid(pid) + "/task/" + std::to_string(tid); }
inline std::string TaskDir(int pid) { return Pid(pid) + "/task"; }
inline std::string TaskStat(int pid, int tid) { return Task(pid, tid) + "/stat"; }
inline std::string TaskStatus(int pid, int tid) { return Task(pid, tid) + "/status"; }
inline std::string TaskSched(int pid, int tid) { return Task(pid, tid) + "/sched"; }
/// "on-CPU ns, run-queue wait ns, timeslices" (Documentation/scheduler/sched-stats.rst; CONFIG_SCHED_INFO).
inline std::string TaskSchedstat(int pid, int tid) { return Task(pid, tid) + "/schedstat"; }
/// /proc/PID/stat of a process (its main thread): pid, comm, state, ppid, pgrp, ... processor.
inline std::string ProcStat(int pid) { return Pid(pid) + "/stat"; }
/// /proc/PID/cmdline: the arguments, each ended by a NUL (empty for kernel threads).
inline std::string ProcCmdline(int pid) { return Pid(pid) + "/cmdline"; }
/// /proc/PID/environ: the environment it was started with, each NAME=value ended by a NUL
/// (irqbalance reads IRQBALANCE_BANNED_CPULIST from it once, at start).
inline std::string ProcEnviron(int pid) { return Pid(pid) + "/environ"; }
/// /proc/PID/cgroup: one "hierarchy-id:controllers:path" line per mounted hierarchy.
inline std::string ProcCgroup(int pid) { return Pid(pid) + "/cgroup"; }
inline const std::string kMounts = "proc/mounts";
inline const std::string kSelfCgroup = "proc/self/cgroup";
/// The running program (a symbolic link): rtagent finds rtagent-sampler beside it. Read on the
/// host ("/" + this) even under --root: it names rtagent's own binary, not the tuned system.
inline const std::string kSelfExe = "proc/self/exe";
/// The calling process's own mappings, one block per mapping with Rss, Anonymous, Locked, VmFlags
/// (Documentation/filesystems/proc.rst, "/proc/PID/smaps"); smaps_rollup sums them.
inline const std::string kSelfSmaps = "proc/self/smaps";
inline const std::string kSelfSmapsRollup = "proc/self/smaps_rollup";
inline const std::string kProcCgroups = "proc/cgroups";

// --- x86 machine checks (Documentation/ABI/testing/sysfs-mce) ---
/// One device per online CPU, machinecheck<N>; absent on other architectures and on kernels
/// without CONFIG_X86_MCE (or booted with mce=off).
inline const std::string kMachinecheckDir = "sys/devices/system/machinecheck";
/// 1: corrected errors are neither polled (the per-CPU check_interval timer) nor signalled
/// (CMCI). One value in the kernel (mca_cfg.ignore_ce): every device's file reads it.
inline std::string MachinecheckIgnoreCe(const std::string& device) { return kMachinecheckDir + "/" + device + "/ignore_ce"; }

// --- workqueues, memory ---
inline const std::string kWorkqueueCpumask = "sys/devices/virtual/workqueue/cpumask";
/// The workqueues made with WQ_SYSFS (writeback, blkcg_punt_bio, ...), one directory each
/// (Documentation/core-api/workqueue.rst; kernel/workqueue.c, wq_sysfs_register).
inline const std::string kWorkqueueDevices = "sys/bus/workqueue/devices";
/// An unbound WQ_SYSFS workqueue's own CPU mask (hex); per-CPU workqueues have none.
inline std::string WorkqueueCpumask(const std::string& name) { return kWorkqueueDevices + "/" + name + "/cpumask"; }
inline const std::string kThpDir = "sys/kernel/mm/transparent_hugepage";
inline const std::string kThpEnabled = "sys/kernel/mm/transparent_hugepage/enabled";
inline const std::string kThpDefrag = "sys/kernel/mm/transparent_hugepage/defrag";
inline const std::string kThpPmdSize = "sys/kernel/mm/transparent_hugepage/hpage_pmd_size";  // bytes of one huge page

/// Persistent huge pages of one size (Documentation/admin-guide/mm/hugetlbpage.rst): the
/// directory "hugepages-2048kB" holds nr_hugepages, free_hugepages, ...
inline const std::string kHugepagesDir = "sys/kernel/mm/hugepages";
inline std::string HugepagesNr(long long size_kb) {
  return kHugepagesDir + "/hugepages-" + std::to_string(size_kb) + "kB/nr_hugepages";
}
/// The same pool on one NUMA node.
inline const std::string kNodeDir = "sys/devices/system/node";
inline std::string NodeHugepagesNr(int node, long long size_kb) {
  return kNodeDir + "/node" + std::to_string(node) + "/hugepages/hugepages-" + std::to_string(size_kb) + "kB/nr_hugepages";
}
/// "Hugepagesize:  2048 kB": the default huge page size.
inline const std::string kMeminfo = "proc/meminfo";

// --- network queues (Documentation/networking/scaling.rst) ---
inline const std::string kNetClassDir = "sys/class/net";
inline std::string NetQueuesDir(const std::string& iface) { return kNetClassDir + "/" + iface + "/queues"; }
/// rx-N/rps_cpus or tx-N/xps_cpus (hex masks).
inline std::string NetQueueFile(const std::string& iface, const std::string& queue, const std::string& file) {
  return NetQueuesDir(iface) + "/" + queue + "/" + file;
}
inline const std::string kRpsCpus = "rps_cpus";
inline const std::string kXpsCpus = "xps_cpus";

// --- services rtagent acts on (not kernel files, but under the same root) ---
/// irqbalance's environment file: Debian's, then Red Hat's (irqbalance(1): IRQBALANCE_BANNED_CPULIST
/// since 1.8, IRQBALANCE_BANNED_CPUS, a hex mask, before).
inline const std::string kIrqbalanceDefault = "etc/default/irqbalance";
inline const std::string kIrqbalanceSysconfig = "etc/sysconfig/irqbalance";
/// A unit systemd runs now has an invocation id here (systemd's docs: /run/systemd/units).
inline std::string SystemdUnitInvocation(const std::string& unit) { return "run/systemd/units/invocation:" + unit; }
/// A unit masked by `systemctl mask`: a link to /dev/null.
inline std::string SystemdUnitMask(const std::string& unit) { return "etc/systemd/system/" + unit; }
/// Where a masked unit's link points (the link's text, compared as read, not a path to open).
inline const std::string kSystemdMaskTarget = "/dev/null";

// --- cgroups (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/cpusets.rst) ---
inline const std::string kCgroupRoot = "sys/fs/cgroup";
/// A root-relative path from an absolute one printed by the kernel (a mount point in
/// /proc/mounts): "/sys/fs/cgroup/cpuset" -> "sys/fs/cgroup/cpuset".
inline std::string FromAbsolute(const std::string& abs) {
  size_t i = 0;
  while (i < abs.size() && abs[i] == '/') ++i;
  return abs.substr(i);
}
/// A cgroup directory inside a hierarchy: CgroupDir("sys/fs/cgroup", "/rt") -> "sys/fs/cgroup/rt".
inline std::string CgroupDir(const std::string& hierarchy, const std::string& cgroup) {
  return cgroup.empty() || cgroup == "/" ? hierarchy : hierarchy + (cgroup.front() == '/' ? "" : "/") + cgroup;
}
// Files of a cgroup directory, relative to it. The cpuset ones are written without their
// "cpuset." prefix, which a v1 hierarchy mounted with -o noprefix drops.
inline const std::string kCgroupProcs = "cgroup.procs";                    // both: process ids
inline const std::string kCgroupTasks = "tasks";                           // v1: thread ids
inline const std::string kCgroupControllers = "cgroup.controllers";        // v2
inline const std::string kCgroupSubtreeControl = "cgroup.subtree_control"; // v2: "+cpuset" enables it below
inline const std::string kCpusetPrefix = "cpuset.";
inline const std::string kCpusetCpus = "cpus";
inline const std::string kCpusetMems = "mems";
inline const std::string kCpusetCpusEffective = "cpus.effective";          // v2
inline const std::string kCpusetMemsEffective = "mems.effective";          // v2
inline const std::string kCpusetPartition = "cpus.partition";              // v2: member | root | isolated
inline const std::string kCpusetCpusIsolated = "cpus.isolated";           // v2 root, 6.7+: CPUs of isolated partitions
inline const std::string kCpusetEffectiveCpus = "effective_cpus";          // v1
inline const std::string kCpusetEffectiveMems = "effective_mems";          // v1
inline const std::string kCpusetCpuExclusive = "cpu_exclusive";            // v1
inline const std::string kCpusetSchedLoadBalance = "sched_load_balance";   // v1

// --- clocks and hypervisors ---
inline const std::string kClocksourceDir = "sys/devices/system/clocksource/clocksource0";
inline const std::string kCurrentClocksource = "sys/devices/system/clocksource/clocksource0/current_clocksource";
inline const std::string kAvailableClocksource = "sys/devices/system/clocksource/clocksource0/available_clocksource";
inline const std::string kHypervisorType = "sys/hypervisor/type";
inline const std::string kDmiDir = "sys/class/dmi/id";
inline const std::string kDmiSysVendor = "sys/class/dmi/id/sys_vendor";
inline const std::string kDmiProductName = "sys/class/dmi/id/product_name";
inline const std::string kDeviceTreeModel = "proc/device-tree/model";
inline const std::string kDeviceTreeCompatible = "proc/device-tree/compatible";

// --- EFI variables (Documentation/filesystems/efivarfs.rst): 4 bytes of attributes, then data ---
inline const std::string kEfiVars = "sys/firmware/efi/efivars";
/// A variable of systemd-boot's vendor GUID (systemd's docs/BOOT_LOADER_INTERFACE.md):
/// "LoaderEntryDefault" (bootctl set-default), "LoaderEntryLastBooted" (default @saved).
inline std::string SystemdBootEfiVar(const std::string& name) {
  return kEfiVars + "/" + name + "-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";
}

// --- power (Documentation/power/pm_qos_interface.rst) ---
inline const std::string kCpuDmaLatency = "dev/cpu_dma_latency";

// --- tracing (Documentation/trace/ftrace.rst, hwlat_detector.rst) ---
inline const std::string kTracefs = "sys/kernel/tracing";
inline const std::string kTracefsLegacy = "sys/kernel/debug/tracing";
/// A file of a tracefs mount found at `tracefs` (kTracefs or kTracefsLegacy).
inline std::string TracefsFile(const std::string& tracefs, const std::string& file) { return tracefs + "/" + file; }
// Files of tracefs, for TracefsFile().
inline const std::string kAvailableTracers = "available_tracers";
inline const std::string kCurrentTracer = "current_tracer";
inline const std::string kTracingCpumask = "tracing_cpumask";
inline const std::string kTracingThresh = "tracing_thresh";          // us; 0 = off
inline const std::string kTracingOn = "tracing_on";
inline const std::string kTracingMaxLatency = "tracing_max_latency";  // us, the worst the tracer saw
inline const std::string kTrace = "trace";                            // reading does not consume it
inline const std::string kTraceClock = "trace_clock";                 // "local [global] ... mono ...": the buffer's clock
inline const std::string kHwlatWidth = "hwlat_detector/width";        // us spun per window
inline const std::string kHwlatWindow = "hwlat_detector/window";      // us
inline const std::string kHwlatMode = "hwlat_detector/mode";          // 5.14+: none [round-robin] per-cpu
// The osnoise and timerlat tracers (Documentation/trace/osnoise-tracer.rst, timerlat-tracer.rst,
// Linux 5.14+) and trace events (events.rst).
inline const std::string kOsnoiseCpus = "osnoise/cpus";                          // CPU list the tracer runs on
inline const std::string kOsnoiseStopUs = "osnoise/stop_tracing_us";             // timerlat: stop at an IRQ latency above
inline const std::string kOsnoiseStopTotalUs = "osnoise/stop_tracing_total_us";  // timerlat: stop at a thread latency above
inline const std::string kTimerlatPeriodUs = "osnoise/timerlat_period_us";       // timerlat's period, µs
/// The switch of one trace event: TraceEventEnable("sched", "sched_switch") -> "events/sched/sched_switch/enable".
inline std::string TraceEventEnable(const std::string& system, const std::string& event) {
  return "events/" + system + "/" + event + "/enable";
}
/// The scheduler event a PI boost writes (include/trace/events/sched.h, TRACE_EVENT(sched_pi_setprio)):
/// "comm=... pid=... oldprio=... newprio=...", kernel priorities (99 - rt_priority for SCHED_FIFO).
inline const std::string kEventSchedPiSetprioEnable = TraceEventEnable("sched", "sched_pi_setprio");

// --- kernel log (Documentation/ABI/testing/dev-kmsg) ---
/// Records "prio,seq,usec,flags;text"; blocking at the end on a live system, so rtagent reads
/// it only in fixture trees (live: syslog(2) SYSLOG_ACTION_READ_ALL, which never blocks).
inline const std::string kKmsg = "dev/kmsg";

// --- rtagent's own runtime state ---
inline const std::string kRunDir = "run/rtagent";

}  // namespace rtagent::kpath
