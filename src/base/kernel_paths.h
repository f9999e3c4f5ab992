// Every kernel interface path rtagent uses, relative to the system root (see sysroot.h).
// This file is the only place that spells them; tests/no_literal_paths.sh keeps it so.
#pragma once

#include <string>
#include <string_view>
#include <vector>

// Each path is one std::string, made once: kernel_paths.cc defines them all (it includes this
// file with RTAGENT_KPATH_DEFINE set), every other file sees a declaration. An `inline const
// std::string` here instead made every one of the hundred files that include this header run
// its own guarded initialiser of every path at start (343 KB of start-up code in the binary,
// all of it paged in by every command; docs/performance.md, "Start-up"). init_priority puts
// them before every other file's initialisers, so a table built from them at start sees them
// made, as an inline variable's ordered initialisation promised.
#ifdef RTAGENT_KPATH_DEFINE
#define RTAGENT_KPATH(name, path) extern const std::string name __attribute__((init_priority(101))) = path
#else
#define RTAGENT_KPATH(name, path) extern const std::string name
#endif

namespace rtagent::kpath {

// --- kernel identity and safety nets (Documentation/scheduler/sched-rt-group.rst) ---
RTAGENT_KPATH(kOsRelease, "proc/sys/kernel/osrelease");
RTAGENT_KPATH(kVersion, "proc/sys/kernel/version");  // what `uname -v` prints
RTAGENT_KPATH(kArch, "proc/sys/kernel/arch");
RTAGENT_KPATH(kHostname, "proc/sys/kernel/hostname");  // what `uname -n` prints (the UTS namespace's)
RTAGENT_KPATH(kRealtime, "sys/kernel/realtime");     // "1" on PREEMPT_RT (since 6.12 mainline)
RTAGENT_KPATH(kCmdline, "proc/cmdline");
RTAGENT_KPATH(kSchedRtRuntime, "proc/sys/kernel/sched_rt_runtime_us");
RTAGENT_KPATH(kSchedRtPeriod, "proc/sys/kernel/sched_rt_period_us");
RTAGENT_KPATH(kTimerMigration, "proc/sys/kernel/timer_migration");
RTAGENT_KPATH(kDebugFs, "sys/kernel/debug");
RTAGENT_KPATH(kFairServerDir, "sys/kernel/debug/sched/fair_server");  // 6.12+ deadline server
inline std::string FairServerRuntime(int cpu) { return kFairServerDir + "/cpu" + std::to_string(cpu) + "/runtime"; }
inline std::string FairServerPeriod(int cpu) { return kFairServerDir + "/cpu" + std::to_string(cpu) + "/period"; }
RTAGENT_KPATH(kSchedPreempt, "sys/kernel/debug/sched/preempt");  // PREEMPT_DYNAMIC: "none voluntary (full)"
RTAGENT_KPATH(kProcSys, "proc/sys");
/// The file of a sysctl named as sysctl(8) does: dots are directories, and a '/' inside a
/// component (a VLAN "eth0.100" is written "eth0/100") is a dot of the file name.
inline std::string Sysctl(const std::string& dotted) {
  std::string p = "proc/sys/";
  for (char c : dotted) p += (c == '.') ? '/' : (c == '/') ? '.' : c;
  return p;
}

// --- CPUs (Documentation/ABI/testing/sysfs-devices-system-cpu) ---
RTAGENT_KPATH(kCpuDir, "sys/devices/system/cpu");
RTAGENT_KPATH(kCpuOnline, "sys/devices/system/cpu/online");
RTAGENT_KPATH(kCpuPossible, "sys/devices/system/cpu/possible");
RTAGENT_KPATH(kCpuPresent, "sys/devices/system/cpu/present");
RTAGENT_KPATH(kCpuIsolated, "sys/devices/system/cpu/isolated");
RTAGENT_KPATH(kCpuNohzFull, "sys/devices/system/cpu/nohz_full");
inline std::string Cpu(int cpu) { return kCpuDir + "/cpu" + std::to_string(cpu); }
inline std::string CpuIdleDir(int cpu) { return Cpu(cpu) + "/cpuidle"; }
inline std::string CpuIdleState(int cpu, int state) { return CpuIdleDir(cpu) + "/state" + std::to_string(state); }
inline std::string CpuFreqDir(int cpu) { return Cpu(cpu) + "/cpufreq"; }
inline std::string CpuResumeLatency(int cpu) { return Cpu(cpu) + "/power/pm_qos_resume_latency_us"; }
/// 1 online, 0 offline (Documentation/core-api/cpu_hotplug.rst); absent for a CPU that cannot go offline.
inline std::string CpuOnline(int cpu) { return Cpu(cpu) + "/online"; }
/// The socket a CPU sits in (Documentation/ABI/stable/sysfs-devices-system-cpu, topology).
inline std::string CpuPackageId(int cpu) { return Cpu(cpu) + "/topology/physical_package_id"; }
RTAGENT_KPATH(kCpuIdleDriver, "sys/devices/system/cpu/cpuidle/current_driver");
RTAGENT_KPATH(kCpuIdleGovernor, "sys/devices/system/cpu/cpuidle/current_governor");
RTAGENT_KPATH(kCpuIdleGovernorRo, "sys/devices/system/cpu/cpuidle/current_governor_ro");
RTAGENT_KPATH(kCpuIdleAvailableGovernors, "sys/devices/system/cpu/cpuidle/available_governors");
/// One attribute of a cpuidle state: name, desc, latency, residency, disable, ...
inline std::string CpuIdleStateFile(int cpu, int state, const std::string& file) { return CpuIdleState(cpu, state) + "/" + file; }
/// One cpufreq attribute of a CPU: scaling_governor, scaling_driver, scaling_available_governors, ...
inline std::string CpuFreqFile(int cpu, const std::string& file) { return CpuFreqDir(cpu) + "/" + file; }
// cpufreq attributes (Documentation/admin-guide/pm/cpufreq.rst), for CpuFreqFile().
RTAGENT_KPATH(kScalingGovernor, "scaling_governor");
RTAGENT_KPATH(kScalingDriver, "scaling_driver");
RTAGENT_KPATH(kScalingAvailableGovernors, "scaling_available_governors");
RTAGENT_KPATH(kScalingCurFreq, "scaling_cur_freq");  // kHz
RTAGENT_KPATH(kScalingMinFreq, "scaling_min_freq");  // kHz
RTAGENT_KPATH(kScalingMaxFreq, "scaling_max_freq");  // kHz
// cpuidle state attributes (Documentation/admin-guide/pm/cpuidle.rst), for CpuIdleStateFile().
RTAGENT_KPATH(kIdleStateName, "name");
RTAGENT_KPATH(kIdleStateDesc, "desc");
RTAGENT_KPATH(kIdleStateLatency, "latency");      // exit latency, us
RTAGENT_KPATH(kIdleStateResidency, "residency");  // target residency, us
RTAGENT_KPATH(kIdleStateDisable, "disable");      // 1 = not entered
/// A CPU's caches (Documentation/ABI/testing/sysfs-devices-system-cpu, "cache/index*").
inline std::string CpuCacheDir(int cpu) { return Cpu(cpu) + "/cache"; }
/// One attribute of a cache index: level, type (Data, Instruction, Unified), size ("2048K").
inline std::string CpuCacheFile(int cpu, const std::string& index, const std::string& file) {
  return CpuCacheDir(cpu) + "/" + index + "/" + file;
}
RTAGENT_KPATH(kCpuInfo, "proc/cpuinfo");

// --- interrupts (Documentation/core-api/irq/irq-affinity.rst, ABI sysfs-kernel-irq) ---
RTAGENT_KPATH(kInterrupts, "proc/interrupts");
RTAGENT_KPATH(kSoftirqs, "proc/softirqs");
RTAGENT_KPATH(kSchedstat, "proc/schedstat");  // per-CPU run-queue counters (Documentation/scheduler/sched-stats.rst)
RTAGENT_KPATH(kProcIrqDir, "proc/irq");
RTAGENT_KPATH(kDefaultSmpAffinity, "proc/irq/default_smp_affinity");
inline std::string ProcIrq(int irq) { return kProcIrqDir + "/" + std::to_string(irq); }
RTAGENT_KPATH(kSysIrqDir, "sys/kernel/irq");
inline std::string SysIrq(int irq) { return kSysIrqDir + "/" + std::to_string(irq); }
/// /proc/irq/N/<file>: smp_affinity_list, effective_affinity_list, node, ...
inline std::string ProcIrqFile(int irq, const std::string& file) { return ProcIrq(irq) + "/" + file; }
/// /sys/kernel/irq/N/<file>: actions, chip_name, hwirq, type, name, per_cpu_count (CONFIG_SPARSE_IRQ).
inline std::string SysIrqFile(int irq, const std::string& file) { return SysIrq(irq) + "/" + file; }
// Files of /proc/irq/N (ProcIrqFile) and /sys/kernel/irq/N (SysIrqFile).
RTAGENT_KPATH(kIrqSmpAffinityList, "smp_affinity_list");
RTAGENT_KPATH(kIrqEffectiveAffinityList, "effective_affinity_list");  // GENERIC_IRQ_EFFECTIVE_AFF_MASK
RTAGENT_KPATH(kSysIrqActions, "actions");     // handler names, comma-separated
RTAGENT_KPATH(kSysIrqChipName, "chip_name");
RTAGENT_KPATH(kSysIrqHwirq, "hwirq");
RTAGENT_KPATH(kSysIrqType, "type");           // edge | level

// --- files that show all they hold in one read(2) (issue 19; KernelShowsWholeInOneRead) ---
/// Trees each of whose files has one show(): sysctls (proc_sys_call_handler gives the handler
/// the reader's whole buffer), an IRQ's directory and its default (single_open), and sysfs
/// itself (one show() into a page, fs/sysfs/file.c), not the file systems mounted under /sys.
inline constexpr std::string_view kOneShowTrees[] = {
    "proc/sys/",  "proc/irq/",   "sys/devices/",    "sys/bus/",     "sys/class/",
    "sys/block/", "sys/module/", "sys/kernel/irq/", "sys/kernel/mm/",
};
/// Files of proc/PID/ and proc/PID/task/TID/ made by proc_single_open or single_open
/// (fs/proc/base.c); maps, mountinfo and the like are seq_files of many records.
inline constexpr std::string_view kOneShowTaskFiles[] = {"stat", "status", "comm", "cgroup", "sched", "schedstat"};

// --- processes and threads (Documentation/filesystems/proc.rst) ---
RTAGENT_KPATH(kProc, "proc");
/// Three load averages, "running/total" and the PID the kernel allocated last.
RTAGENT_KPATH(kLoadavg, "proc/loadavg");
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
RTAGENT_KPATH(kMounts, "proc/mounts");
RTAGENT_KPATH(kSelfCgroup, "proc/self/cgroup");
/// The running program (a symbolic link): rtagent finds rtagent-sampler beside it. Read on the
/// host ("/" + this) even under --root: it names rtagent's own binary, not the tuned system.
RTAGENT_KPATH(kSelfExe, "proc/self/exe");
/// The calling process's own mappings, one block per mapping with Rss, Anonymous, Locked, VmFlags
/// (Documentation/filesystems/proc.rst, "/proc/PID/smaps"); smaps_rollup sums them.
RTAGENT_KPATH(kSelfSmaps, "proc/self/smaps");
RTAGENT_KPATH(kSelfSmapsRollup, "proc/self/smaps_rollup");
RTAGENT_KPATH(kProcCgroups, "proc/cgroups");

// --- x86 machine checks (Documentation/ABI/testing/sysfs-mce) ---
/// One device per online CPU, machinecheck<N>; absent on other architectures and on kernels
/// without CONFIG_X86_MCE (or booted with mce=off).
RTAGENT_KPATH(kMachinecheckDir, "sys/devices/system/machinecheck");
/// 1: corrected errors are neither polled (the per-CPU check_interval timer) nor signalled
/// (CMCI). One value in the kernel (mca_cfg.ignore_ce): every device's file reads it.
inline std::string MachinecheckIgnoreCe(const std::string& device) { return kMachinecheckDir + "/" + device + "/ignore_ce"; }

// --- workqueues, memory ---
RTAGENT_KPATH(kWorkqueueCpumask, "sys/devices/virtual/workqueue/cpumask");
/// The workqueues made with WQ_SYSFS (writeback, blkcg_punt_bio, ...), one directory each
/// (Documentation/core-api/workqueue.rst; kernel/workqueue.c, wq_sysfs_register).
RTAGENT_KPATH(kWorkqueueDevices, "sys/bus/workqueue/devices");
/// An unbound WQ_SYSFS workqueue's own CPU mask (hex); per-CPU workqueues have none.
inline std::string WorkqueueCpumask(const std::string& name) { return kWorkqueueDevices + "/" + name + "/cpumask"; }
RTAGENT_KPATH(kThpDir, "sys/kernel/mm/transparent_hugepage");
RTAGENT_KPATH(kThpEnabled, "sys/kernel/mm/transparent_hugepage/enabled");
RTAGENT_KPATH(kThpDefrag, "sys/kernel/mm/transparent_hugepage/defrag");
RTAGENT_KPATH(kThpPmdSize, "sys/kernel/mm/transparent_hugepage/hpage_pmd_size");  // bytes of one huge page

/// Persistent huge pages of one size (Documentation/admin-guide/mm/hugetlbpage.rst): the
/// directory "hugepages-2048kB" holds nr_hugepages, free_hugepages, ...
RTAGENT_KPATH(kHugepagesDir, "sys/kernel/mm/hugepages");
inline std::string HugepagesNr(long long size_kb) {
  return kHugepagesDir + "/hugepages-" + std::to_string(size_kb) + "kB/nr_hugepages";
}
/// The same pool on one NUMA node.
RTAGENT_KPATH(kNodeDir, "sys/devices/system/node");
inline std::string NodeHugepagesNr(int node, long long size_kb) {
  return kNodeDir + "/node" + std::to_string(node) + "/hugepages/hugepages-" + std::to_string(size_kb) + "kB/nr_hugepages";
}
/// "Hugepagesize:  2048 kB": the default huge page size.
RTAGENT_KPATH(kMeminfo, "proc/meminfo");

// --- network queues (Documentation/networking/scaling.rst) ---
RTAGENT_KPATH(kNetClassDir, "sys/class/net");
inline std::string NetQueuesDir(const std::string& iface) { return kNetClassDir + "/" + iface + "/queues"; }
/// rx-N/rps_cpus or tx-N/xps_cpus (hex masks).
inline std::string NetQueueFile(const std::string& iface, const std::string& queue, const std::string& file) {
  return NetQueuesDir(iface) + "/" + queue + "/" + file;
}
RTAGENT_KPATH(kRpsCpus, "rps_cpus");
RTAGENT_KPATH(kXpsCpus, "xps_cpus");

// --- services rtagent acts on (not kernel files, but under the same root) ---
/// irqbalance's environment file: Debian's, then Red Hat's (irqbalance(1): IRQBALANCE_BANNED_CPULIST
/// since 1.8, IRQBALANCE_BANNED_CPUS, a hex mask, before).
RTAGENT_KPATH(kIrqbalanceDefault, "etc/default/irqbalance");
RTAGENT_KPATH(kIrqbalanceSysconfig, "etc/sysconfig/irqbalance");
/// A unit systemd runs now has an invocation id here (systemd's docs: /run/systemd/units).
inline std::string SystemdUnitInvocation(const std::string& unit) { return "run/systemd/units/invocation:" + unit; }
/// A unit masked by `systemctl mask`: a link to /dev/null.
inline std::string SystemdUnitMask(const std::string& unit) { return "etc/systemd/system/" + unit; }
/// Where a masked unit's link points (the link's text, compared as read, not a path to open).
RTAGENT_KPATH(kSystemdMaskTarget, "/dev/null");

// --- cgroups (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/cpusets.rst) ---
RTAGENT_KPATH(kCgroupRoot, "sys/fs/cgroup");
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
RTAGENT_KPATH(kCgroupProcs, "cgroup.procs");                    // both: process ids
RTAGENT_KPATH(kCgroupTasks, "tasks");                           // v1: thread ids
RTAGENT_KPATH(kCgroupControllers, "cgroup.controllers");        // v2
RTAGENT_KPATH(kCgroupSubtreeControl, "cgroup.subtree_control"); // v2: "+cpuset" enables it below
RTAGENT_KPATH(kCpusetPrefix, "cpuset.");
RTAGENT_KPATH(kCpusetCpus, "cpus");
RTAGENT_KPATH(kCpusetMems, "mems");
RTAGENT_KPATH(kCpusetCpusEffective, "cpus.effective");          // v2
RTAGENT_KPATH(kCpusetMemsEffective, "mems.effective");          // v2
RTAGENT_KPATH(kCpusetPartition, "cpus.partition");              // v2: member | root | isolated
RTAGENT_KPATH(kCpusetCpusIsolated, "cpus.isolated");           // v2 root, 6.7+: CPUs of isolated partitions
RTAGENT_KPATH(kCpusetEffectiveCpus, "effective_cpus");          // v1
RTAGENT_KPATH(kCpusetEffectiveMems, "effective_mems");          // v1
RTAGENT_KPATH(kCpusetCpuExclusive, "cpu_exclusive");            // v1
RTAGENT_KPATH(kCpusetSchedLoadBalance, "sched_load_balance");   // v1

// --- clocks and hypervisors ---
RTAGENT_KPATH(kClocksourceDir, "sys/devices/system/clocksource/clocksource0");
RTAGENT_KPATH(kCurrentClocksource, "sys/devices/system/clocksource/clocksource0/current_clocksource");
RTAGENT_KPATH(kAvailableClocksource, "sys/devices/system/clocksource/clocksource0/available_clocksource");
RTAGENT_KPATH(kHypervisorType, "sys/hypervisor/type");
RTAGENT_KPATH(kDmiDir, "sys/class/dmi/id");
RTAGENT_KPATH(kDmiSysVendor, "sys/class/dmi/id/sys_vendor");
RTAGENT_KPATH(kDmiProductName, "sys/class/dmi/id/product_name");
RTAGENT_KPATH(kDeviceTreeModel, "proc/device-tree/model");
RTAGENT_KPATH(kDeviceTreeCompatible, "proc/device-tree/compatible");

// --- EFI variables (Documentation/filesystems/efivarfs.rst): 4 bytes of attributes, then data ---
RTAGENT_KPATH(kEfiVars, "sys/firmware/efi/efivars");
/// A variable of systemd-boot's vendor GUID (systemd's docs/BOOT_LOADER_INTERFACE.md):
/// "LoaderEntryDefault" (bootctl set-default), "LoaderEntryLastBooted" (default @saved).
inline std::string SystemdBootEfiVar(const std::string& name) {
  return kEfiVars + "/" + name + "-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";
}

// --- power (Documentation/power/pm_qos_interface.rst) ---
RTAGENT_KPATH(kCpuDmaLatency, "dev/cpu_dma_latency");

// --- tracing (Documentation/trace/ftrace.rst, hwlat_detector.rst) ---
RTAGENT_KPATH(kTracefs, "sys/kernel/tracing");
RTAGENT_KPATH(kTracefsLegacy, "sys/kernel/debug/tracing");
/// A file of a tracefs mount found at `tracefs` (kTracefs or kTracefsLegacy).
inline std::string TracefsFile(const std::string& tracefs, const std::string& file) { return tracefs + "/" + file; }
// Files of tracefs, for TracefsFile().
RTAGENT_KPATH(kAvailableTracers, "available_tracers");
RTAGENT_KPATH(kCurrentTracer, "current_tracer");
RTAGENT_KPATH(kTracingCpumask, "tracing_cpumask");
RTAGENT_KPATH(kTracingThresh, "tracing_thresh");          // us; 0 = off
RTAGENT_KPATH(kTracingOn, "tracing_on");
RTAGENT_KPATH(kTracingMaxLatency, "tracing_max_latency");  // us, the worst the tracer saw
RTAGENT_KPATH(kTrace, "trace");                            // reading does not consume it
RTAGENT_KPATH(kTraceClock, "trace_clock");                 // "local [global] ... mono ...": the buffer's clock
RTAGENT_KPATH(kHwlatWidth, "hwlat_detector/width");        // us spun per window
RTAGENT_KPATH(kHwlatWindow, "hwlat_detector/window");      // us
RTAGENT_KPATH(kHwlatMode, "hwlat_detector/mode");          // 5.14+: none [round-robin] per-cpu
// The osnoise and timerlat tracers (Documentation/trace/osnoise-tracer.rst, timerlat-tracer.rst,
// Linux 5.14+) and trace events (events.rst).
RTAGENT_KPATH(kOsnoiseCpus, "osnoise/cpus");                          // CPU list the tracer runs on
RTAGENT_KPATH(kOsnoiseStopUs, "osnoise/stop_tracing_us");             // timerlat: stop at an IRQ latency above
RTAGENT_KPATH(kOsnoiseStopTotalUs, "osnoise/stop_tracing_total_us");  // timerlat: stop at a thread latency above
RTAGENT_KPATH(kTimerlatPeriodUs, "osnoise/timerlat_period_us");       // timerlat's period, µs
/// The switch of one trace event: TraceEventEnable("sched", "sched_switch") -> "events/sched/sched_switch/enable".
inline std::string TraceEventEnable(const std::string& system, const std::string& event) {
  return "events/" + system + "/" + event + "/enable";
}
/// The scheduler event a PI boost writes (include/trace/events/sched.h, TRACE_EVENT(sched_pi_setprio)):
/// "comm=... pid=... oldprio=... newprio=...", kernel priorities (99 - rt_priority for SCHED_FIFO).
RTAGENT_KPATH(kEventSchedPiSetprioEnable, TraceEventEnable("sched", "sched_pi_setprio"));

// --- kernel log (Documentation/ABI/testing/dev-kmsg) ---
/// Records "prio,seq,usec,flags;text"; blocking at the end on a live system, so rtagent reads
/// it only in fixture trees (live: syslog(2) SYSLOG_ACTION_READ_ALL, which never blocks).
RTAGENT_KPATH(kKmsg, "dev/kmsg");

// --- rtagent's own runtime state ---
RTAGENT_KPATH(kRunDir, "run/rtagent");

// --- this process's own descriptors, by the names a user gives an output file. Host paths,
// never under a --root (cli/verdict_files.h, ResolveOutput); proc(5) /proc/[pid]/fd ---
RTAGENT_KPATH(kDevStdout, "/dev/stdout");
RTAGENT_KPATH(kDevStderr, "/dev/stderr");
/// The directories whose entry "N" is descriptor N of process `pid` (the caller's own).
inline std::vector<std::string> OwnDescriptorDirs(int pid) {
  return {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/" + std::to_string(pid) + "/fd/"};
}

}  // namespace rtagent::kpath
