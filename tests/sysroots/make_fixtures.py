#!/usr/bin/env python3
"""Writes rtagent's hand-made system trees (tests/sysroots/README.md says what each is).

    make_fixtures.py arm64-rt-8cpu OUT    an 8-CPU RK3588 board on a 6.12 PREEMPT_RT kernel
    make_fixtures.py x86-ipc-4cpu OUT     a 4-CPU x86 industrial PC on Debian 12's stock 6.1
    make_fixtures.py large OUT [--cpus 256 --irqs 4096 --threads 20000]
                                          a big synthetic tree for benchmarks (not committed)

Like a tree made by `rtagent capture`, each holds only the files rtagent reads, written the
way the kernel prints them. Every tree is internally consistent: the IRQs of proc/interrupts
have their proc/irq/N and sys/kernel/irq/N directories, and every thread's tid is a
proc/PID/task/TID directory whose stat line names it.
"""
import argparse
import os
import random
import shutil
import struct
import sys

# include/linux/sched.h task flags as they appear in stat field 9.
PF_PERCPU_KTHREAD = 0x04208040  # PF_NO_SETAFFINITY | PF_KTHREAD | PF_NOFREEZE | PF_FORKNOEXEC
PF_KTHREAD = 0x00208040         # PF_KTHREAD | PF_NOFREEZE | PF_FORKNOEXEC (irq/* threads, rcuop/*)
PF_USER = 0x00400100            # PF_RANDOMIZE | PF_SUPERPRIV
SCHED = {"other": 0, "fifo": 1, "rr": 2, "batch": 3, "idle": 5, "deadline": 6}


class Tree:
    def __init__(self, root):
        self.root = root
        self.files = 0

    def write(self, path, content):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(full, mode) as f:
            f.write(content)
        self.files += 1


def cpu_list(cpus):
    """[0,1,2,5] -> '0-2,5' (the kernel's %*pbl)."""
    cpus = sorted(set(cpus))
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def cpu_mask(cpus, nr):
    """The kernel's %*pb: hex in 32-bit comma-separated groups, nr bits wide."""
    value = 0
    for c in cpus:
        value |= 1 << c
    groups = max(1, (nr + 31) // 32)
    words = []
    for g in reversed(range(groups)):
        w = (value >> (32 * g)) & 0xFFFFFFFF
        bits = min(32, nr - 32 * g) if nr else 32
        width = (bits + 3) // 4 if g == groups - 1 else 8
        words.append("%0*x" % (width, w))
    return ",".join(words)


# ---------------------------------------------------------------- threads

class Thread:
    def __init__(self, tid, comm, policy="other", prio=0, cpus=None, flags=PF_USER, pid=None,
                 ppid=2, last_cpu=0, nice=0, dl=None):
        self.tid, self.comm, self.policy, self.prio = tid, comm, policy, prio
        self.cpus, self.flags, self.pid, self.ppid = cpus, flags, pid or tid, ppid
        self.last_cpu, self.nice, self.dl = last_cpu, nice, dl


def stat_line(t, nthreads):
    """fs/proc/array.c do_task_stat(): 52 fields, comm in parentheses."""
    rt = t.policy in ("fifo", "rr")
    kprio = -1 - t.prio if rt else (-101 if t.policy == "deadline" else 20 + t.nice)
    f = [0] * 53
    f[1], f[3], f[4], f[5], f[6] = t.tid, "S", t.ppid, t.pid if t.ppid else 0, t.pid if t.ppid else 0
    f[7], f[8], f[9] = 0, -1, t.flags
    f[14], f[15] = 17 + t.tid % 50, 3 + t.tid % 7
    f[18], f[19], f[20], f[22] = kprio, t.nice, nthreads, 25 + t.tid
    f[23] = 0 if t.flags & 0x00200000 else 12582912
    f[24] = 0 if t.flags & 0x00200000 else 1200
    f[25] = 18446744073709551615
    f[31] = 2147483647 if t.flags & 0x00200000 else 0
    f[38], f[39], f[40], f[41] = 17, t.last_cpu, t.prio, SCHED[t.policy]
    fields = [str(f[i]) for i in range(3, 53)]
    return "%d (%s) %s\n" % (t.tid, t.comm, " ".join(fields))


def status_text(t, nthreads, nr_cpus):
    """The lines of fs/proc/array.c proc_pid_status() that matter to rtagent."""
    cpus = t.cpus
    return ("Name:\t%s\nUmask:\t0000\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n"
            "TracerPid:\t0\nThreads:\t%d\nCpus_allowed:\t%s\nCpus_allowed_list:\t%s\n"
            "Mems_allowed:\t00000000,00000001\nMems_allowed_list:\t0\n"
            "voluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t%d\n"
            % (t.comm, t.pid, t.tid, t.ppid, nthreads, cpu_mask(cpus, nr_cpus), cpu_list(cpus),
               1000 + t.tid, t.tid % 13))


def sched_text(t):
    """kernel/sched/debug.c proc_sched_show_task(), trimmed to its head and the dl lines."""
    lines = ["%s (%d, #threads: 1)" % (t.comm, t.tid), "-" * 67]

    def p(k, v):
        lines.append("%-45s:%21s" % (k, v))
    p("se.exec_start", "4815162.342000")
    p("se.sum_exec_runtime", "1234.567890")
    p("nr_switches", 40000 + t.tid)
    p("policy", SCHED[t.policy])
    p("prio", -1)
    p("dl.runtime", t.dl[0])
    p("dl.deadline", t.dl[1])
    return "\n".join(lines) + "\n"


def write_threads(tree, threads, nr_cpus, all_status=False):
    """proc/PID/task/TID/{stat,status,sched}; status (and sched) only where rtagent reads them."""
    by_pid = {}
    for t in threads:
        by_pid.setdefault(t.pid, []).append(t)
    for pid, ts in by_pid.items():
        for t in ts:
            base = "proc/%d/task/%d/" % (pid, t.tid)
            tree.write(base + "stat", stat_line(t, len(ts)))
            if all_status or t.policy in ("fifo", "rr", "deadline"):
                tree.write(base + "status", status_text(t, len(ts), nr_cpus))
            if t.policy == "deadline":
                tree.write(base + "sched", sched_text(t))


# ---------------------------------------------------------------- IRQs

class Irq:
    def __init__(self, irq, chip, hwirq, type_, actions, counts, affinity, effective, handler="",
                 level_col=False):
        self.irq, self.chip, self.hwirq, self.type = irq, chip, hwirq, type_
        self.actions, self.counts, self.affinity, self.effective = actions, counts, affinity, effective
        self.handler = handler
        self.level_col = level_col  # GENERIC_IRQ_SHOW_LEVEL (arm64) prints Level/Edge


def interrupts_text(irqs, named, cpus, prec=3):
    """kernel/irq/proc.c show_interrupts() and the architecture's named rows."""
    out = [" " * (prec + 8) + "".join("CPU%-8d" % c for c in cpus).rstrip()]
    for q in irqs:
        line = "%*d: " % (prec, q.irq) + "".join("%10d " % n for n in q.counts)
        line += " %8s" % q.chip
        if q.level_col:
            line += " %*s" % (prec, q.hwirq) + " %-8s" % ("Level" if q.type == "level" else "Edge")
        else:
            line += " %*s" % (prec, q.hwirq) + ("-%-8s" % q.handler if q.handler else "")
        line += "  " + ", ".join(q.actions)
        out.append(line)
    for rid, counts, desc in named:
        line = "%*s: " % (prec, rid) + "".join("%10d " % n for n in counts)
        out.append((line + "  " + desc) if desc else line.rstrip())
    return "\n".join(out) + "\n"


def write_irqs(tree, irqs, named, cpus, nr, default_aff, prec=3):
    tree.write("proc/interrupts", interrupts_text(irqs, named, cpus, prec))
    tree.write("proc/irq/default_smp_affinity", cpu_mask(default_aff, nr) + "\n")
    for q in irqs:
        d = "proc/irq/%d/" % q.irq
        tree.write(d + "smp_affinity_list", cpu_list(q.affinity) + "\n")
        tree.write(d + "effective_affinity_list", cpu_list(q.effective) + "\n")
        s = "sys/kernel/irq/%d/" % q.irq
        tree.write(s + "actions", ",".join(q.actions) + "\n")
        tree.write(s + "chip_name", q.chip + "\n")
        tree.write(s + "hwirq", "%s\n" % q.hwirq)
        tree.write(s + "type", q.type + "\n")
        tree.write(s + "name", q.handler + "\n")


# ---------------------------------------------------------------- common files

def write_cpus(tree, nr, online, isolated, nohz_full):
    d = "sys/devices/system/cpu/"
    tree.write(d + "possible", cpu_list(range(nr)) + "\n")
    tree.write(d + "present", cpu_list(range(nr)) + "\n")
    tree.write(d + "online", cpu_list(online) + "\n")
    tree.write(d + "isolated", cpu_list(isolated) + "\n")
    if nohz_full is not None:
        tree.write(d + "nohz_full", (cpu_list(nohz_full) if nohz_full else "(null)") + "\n")


def write_idle(tree, cpus, driver, governor, governors, states, disabled):
    """states: [(name, desc, latency, residency)]; disabled: {cpu: set(state indexes)}."""
    d = "sys/devices/system/cpu/"
    tree.write(d + "cpuidle/current_driver", driver + "\n")
    tree.write(d + "cpuidle/current_governor", governor + "\n")
    tree.write(d + "cpuidle/available_governors", " ".join(governors) + " \n")
    for c in cpus:
        for i, (name, desc, lat, res) in enumerate(states):
            s = d + "cpu%d/cpuidle/state%d/" % (c, i)
            tree.write(s + "name", name + "\n")
            tree.write(s + "desc", desc + "\n")
            tree.write(s + "latency", "%d\n" % lat)
            tree.write(s + "residency", "%d\n" % res)
            tree.write(s + "disable", "%d\n" % (1 if i in disabled.get(c, ()) else 0))


def write_freq(tree, cpu, governor, driver, governors, cur, lo, hi):
    s = "sys/devices/system/cpu/cpu%d/cpufreq/" % cpu
    tree.write(s + "scaling_governor", governor + "\n")
    tree.write(s + "scaling_driver", driver + "\n")
    tree.write(s + "scaling_available_governors", " ".join(governors) + " \n")
    tree.write(s + "scaling_cur_freq", "%d\n" % cur)
    tree.write(s + "scaling_min_freq", "%d\n" % lo)
    tree.write(s + "scaling_max_freq", "%d\n" % hi)


def write_sysctls(tree, values):
    for name, value in values.items():
        tree.write("proc/sys/" + name.replace(".", "/"), "%s\n" % value)


# ---------------------------------------------------------------- arm64 RT board

ARM_CPUINFO_CPU = """processor\t: {n}
BogoMIPS\t: 48.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: {variant}
CPU part\t: {part}
CPU revision\t: 0

"""


def arm64_rt_8cpu(out):
    t = Tree(out)
    nr, cpus = 8, list(range(8))
    hk, iso = [0, 1, 2, 3], [4, 5, 6, 7]

    t.write("proc/sys/kernel/osrelease", "6.12.43-rt12-rk3588\n")
    t.write("proc/sys/kernel/version", "#1 SMP PREEMPT_RT Fri Aug 22 10:11:04 UTC 2025\n")
    t.write("proc/sys/kernel/arch", "aarch64\n")
    t.write("sys/kernel/realtime", "1\n")
    t.write("proc/sys/kernel/sched_rt_runtime_us", "950000\n")
    t.write("proc/sys/kernel/sched_rt_period_us", "1000000\n")
    t.write("proc/sys/kernel/timer_migration", "0\n")
    for c in cpus:  # the fair server switched off on the isolated CPUs only (lesson chapter 2)
        t.write("sys/kernel/debug/sched/fair_server/cpu%d/runtime" % c, "%d\n" % (0 if c in iso else 50000000))
        t.write("sys/kernel/debug/sched/fair_server/cpu%d/period" % c, "1000000000\n")
    t.write("proc/cmdline",
            "console=ttyS2,1500000n8 earlycon=uart8250,mmio32,0xfeb50000 root=PARTUUID=6f7a1c2e-02 rw rootwait "
            "isolcpus=nohz,domain,managed_irq,4-7 nohz_full=4-7 rcu_nocbs=4-7 rcu_nocb_poll irqaffinity=0-3 "
            "skew_tick=1 kthread_cpus=0-3 nosoftlockup nowatchdog cpuidle.governor=menu\n")
    write_cpus(t, nr, cpus, iso, iso)
    t.write("sys/devices/virtual/workqueue/cpumask", cpu_mask(hk, nr) + "\n")
    t.write("proc/cpuinfo", "".join(
        ARM_CPUINFO_CPU.format(n=c, variant="0x2" if c < 4 else "0x4", part="0xd05" if c < 4 else "0xd0b")
        for c in cpus))
    t.write("proc/mounts",
            "/dev/root / ext4 rw,relatime 0 0\n"
            "devtmpfs /dev devtmpfs rw,relatime,size=8039824k,nr_inodes=2009956,mode=755 0 0\n"
            "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
            "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
            "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0\n"
            "debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0\n"
            "tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0\n"
            "/dev/nvme0n1p1 /data ext4 rw,relatime 0 0\n")

    # Interrupts: GICv3 SPIs/PPIs and ITS MSIs of an RK3588 with NVMe on PCIe.
    def counts(per_cpu):
        return [per_cpu.get(c, 0) for c in cpus]
    timer = {0: 2483116, 1: 1890442, 2: 1712004, 3: 1698210, 4: 3120, 5: 3117, 6: 3342, 7: 3119}
    irqs = [
        Irq(11, "GICv3", 27, "level", ["arch_timer"], counts(timer), cpus, cpus, level_col=True),
        Irq(12, "GICv3", 23, "level", ["arm-pmu"], counts({}), cpus, cpus, level_col=True),
        Irq(21, "GICv3", 147, "level", ["feb50000.serial"], counts({0: 18324}), hk, [0], level_col=True),
        Irq(35, "GICv3", 232, "level", ["mmc0"], counts({1: 40211}), hk, [1], level_col=True),
        Irq(36, "GICv3", 235, "level", ["mmc1"], counts({2: 12}), hk, [2], level_col=True),
        Irq(72, "GICv3", 252, "level", ["xhci-hcd:usb1"], counts({3: 5410}), hk, [3], level_col=True),
        Irq(73, "GICv3", 247, "level", ["ehci_hcd:usb2"], counts({}), hk, [0], level_col=True),
        Irq(74, "GICv3", 248, "level", ["ohci_hcd:usb3"], counts({}), hk, [0], level_col=True),
        # eth0 took interrupts on CPU 4 before its affinity was moved to housekeeping.
        Irq(85, "GICv3", 266, "level", ["eth0"], counts({2: 981234, 4: 1520}), hk, [2], level_col=True),
        Irq(90, "GICv3", 188, "level", ["fdd90000.vop"], counts({0: 60211}), hk, [0], level_col=True),
        Irq(95, "ITS-MSI", 0, "edge", ["PCIe PME", "aerdrv"], counts({}), hk, [0], level_col=True),
        Irq(96, "ITS-MSI", 524288, "edge", ["nvme0q0"], counts({0: 45}), hk, [0], level_col=True),
    ]
    # Managed NVMe queues: the kernel spreads them over every CPU and refuses to move them.
    for q in range(4):
        spread = [2 * q, 2 * q + 1]
        irqs.append(Irq(97 + q, "ITS-MSI", 524289 + q, "edge", ["nvme0q%d" % (q + 1)],
                        counts({2 * q: 15000 - 3000 * q}), spread, [2 * q], level_col=True))
    ipi = [("Rescheduling interrupts", 52000, 310), ("Function call interrupts", 8100, 40),
           ("CPU stop interrupts", 0, 0), ("CPU stop NMIs", 0, 0),
           ("Timer broadcast interrupts", 0, 0), ("IRQ work interrupts", 2300, 12),
           ("CPU backtrace interrupts", 0, 0)]
    named = [("IPI%d" % i, [hkv if c < 4 else isov for c in cpus], d) for i, (d, hkv, isov) in enumerate(ipi)]
    named.append(("Err", [0], ""))
    write_irqs(t, irqs, named, cpus, nr, hk)

    # Threads: per-CPU kthreads of a 6.12 RT kernel, IRQ threads at FIFO 50, a robot process.
    th = [Thread(1, "systemd", cpus=cpus, ppid=0, flags=PF_USER), Thread(2, "kthreadd", cpus=hk, ppid=0, flags=PF_KTHREAD)]
    tid = 3
    for c in cpus:
        for comm, pol, prio in (("cpuhp/%d", "other", 0), ("migration/%d", "fifo", 99), ("rcuc/%d", "fifo", 1),
                                ("ktimers/%d", "fifo", 1), ("ksoftirqd/%d", "other", 0), ("irq_work/%d", "fifo", 1),
                                ("kworker/%d:0", "other", 0), ("kworker/%d:0H", "other", 0)):
            nice = -20 if comm.endswith("H") else 0
            th.append(Thread(tid, comm % c, pol, prio, [c], PF_PERCPU_KTHREAD, last_cpu=c, nice=nice))
            tid += 1
    th.append(Thread(tid, "rcu_preempt", "fifo", 1, hk, PF_KTHREAD, last_cpu=1)); tid += 1
    th.append(Thread(tid, "rcub/0", "fifo", 1, hk, PF_KTHREAD, last_cpu=2)); tid += 1
    th.append(Thread(tid, "rcuog/4", "other", 0, hk, PF_KTHREAD, last_cpu=3)); tid += 1
    for c in iso:
        th.append(Thread(tid, "rcuop/%d" % c, "other", 0, hk, PF_KTHREAD, last_cpu=c % 4)); tid += 1
    th.append(Thread(tid, "watchdogd", "fifo", 50, hk, PF_KTHREAD, last_cpu=0)); tid += 1
    th.append(Thread(tid, "kworker/u16:1", "other", 0, hk, PF_KTHREAD, last_cpu=1)); tid += 1
    tid = 180
    for q in irqs:
        if q.irq in (11, 12):  # per-CPU timer and PMU interrupts are never threaded
            continue
        for a in q.actions:
            comm = ("irq/%d-%s" % (q.irq, a))[:15]  # TASK_COMM_LEN 16
            th.append(Thread(tid, comm, "fifo", 50, q.effective, PF_KTHREAD, last_cpu=q.effective[0]))
            tid += 1
    # User space: journald, sshd, the systemd user manager whose comm holds parentheses, and
    # the robot controller with its loop on CPU 6 and a deadline planner on the partition.
    th += [Thread(401, "systemd-journal", cpus=hk, ppid=1, last_cpu=1),
           Thread(612, "sshd", cpus=hk, ppid=1, last_cpu=3),
           Thread(780, "(sd-pam)", cpus=hk, ppid=779, last_cpu=2),
           Thread(1200, "robot_ctrl", cpus=hk, ppid=1, last_cpu=0),
           Thread(1203, "ctrl (loop) 1", "fifo", 80, [6], PF_USER, pid=1200, ppid=1, last_cpu=6),
           Thread(1204, "ecat_rx", "fifo", 85, [6], PF_USER, pid=1200, ppid=1, last_cpu=6),
           Thread(1205, "planner", "deadline", 0, iso, PF_USER, pid=1200, ppid=1, last_cpu=5, dl=(2000000, 10000000)),
           Thread(1206, "logger", "other", 0, hk, PF_USER, pid=1200, ppid=1, last_cpu=3)]
    write_threads(t, th, nr)

    t.write("sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n")
    t.write("sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise madvise [never]\n")
    write_sysctls(t, {"vm.stat_interval": 10, "vm.compaction_proactiveness": 0, "kernel.watchdog": 0,
                      "kernel.soft_watchdog": 0, "kernel.watchdog_thresh": 10, "kernel.watchdog_cpumask": "0-3"})

    write_idle(t, cpus, "psci_idle", "menu", ["ladder", "menu", "teo"],
               [("WFI", "ARM WFI", 1, 1), ("cpu-sleep", "cpu-sleep", 120, 900),
                ("cluster-sleep", "cluster-sleep", 1000, 3000)],
               {c: {1, 2} for c in iso})
    govs = ["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"]
    for c in cpus:
        if c < 4:
            write_freq(t, c, "schedutil", "cpufreq-dt", govs, 1416000, 408000, 1800000)
        else:
            write_freq(t, c, "performance", "cpufreq-dt", govs, 2400000, 408000, 2400000)
        t.write("sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us" % c, "0\n")
    t.write("dev/cpu_dma_latency", struct.pack("<i", 0))  # rtagent hold keeps a note of 0

    cg = "sys/fs/cgroup/"
    t.write(cg + "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n")
    t.write(cg + "cgroup.subtree_control", "cpuset cpu io memory pids\n")
    t.write(cg + "cpuset.cpus.effective", "0-7\n")
    t.write(cg + "cpuset.cpus.isolated", "4-7\n")
    t.write(cg + "cpuset.mems.effective", "0\n")
    for name in ("init.scope", "system.slice", "user.slice"):
        t.write(cg + name + "/cpuset.cpus.partition", "member\n")
        t.write(cg + name + "/cpuset.cpus", "\n")
        t.write(cg + name + "/cpuset.cpus.effective", "0-3\n")
    t.write(cg + "system.slice/sshd.service/cgroup.procs", "612\n")
    t.write(cg + "rt/cpuset.cpus.partition", "isolated\n")
    t.write(cg + "rt/cpuset.cpus", "4-7\n")
    t.write(cg + "rt/cpuset.cpus.effective", "4-7\n")
    t.write(cg + "rt/cgroup.procs", "1200\n")

    t.write("sys/devices/system/clocksource/clocksource0/current_clocksource", "arch_sys_counter\n")
    t.write("sys/devices/system/clocksource/clocksource0/available_clocksource", "arch_sys_counter \n")
    t.write("proc/device-tree/model", b"Radxa ROCK 5 Model B\0")
    t.write("proc/device-tree/compatible", b"radxa,rock-5b\0rockchip,rk3588\0")
    return t


# ---------------------------------------------------------------- x86 industrial PC

X86_CPUINFO_CPU = """processor\t: {n}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 142
model name\t: Intel(R) Core(TM) i5-8365UE CPU @ 1.60GHz
stepping\t: 12
microcode\t: 0xf8
cpu MHz\t\t: 1600.000
cache size\t: 6144 KB
physical id\t: 0
siblings\t: 4
core id\t\t: {n}
cpu cores\t: 4
apicid\t\t: {apic}
fpu\t\t: yes
fpu_exception\t: yes
cpuid level\t: 22
wp\t\t: yes
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb invpcid_single ssbd ibrs ibpb stibp ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase tsc_adjust sgx bmi1 avx2 smep bmi2 erms invpcid mpx rdseed adx smap clflushopt intel_pt xsaveopt xsavec xgetbv1 xsaves dtherm ida arat pln pts hwp hwp_notify hwp_act_window hwp_epp md_clear flush_l1d arch_capabilities
bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs taa itlb_multihit srbds mmio_stale_data retbleed eibrs_pbrsb gds
bogomips\t: 3799.90
clflush size\t: 64
cache_alignment\t: 64
address sizes\t: 39 bits physical, 48 bits virtual
power management:

"""


def x86_ipc_4cpu(out):
    t = Tree(out)
    nr, cpus = 4, [0, 1, 2, 3]
    t.write("proc/sys/kernel/osrelease", "6.1.0-37-amd64\n")
    t.write("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.140-1 (2025-05-22)\n")
    t.write("proc/sys/kernel/arch", "x86_64\n")
    t.write("proc/sys/kernel/sched_rt_runtime_us", "950000\n")
    t.write("proc/sys/kernel/sched_rt_period_us", "1000000\n")
    t.write("proc/sys/kernel/timer_migration", "1\n")
    t.write("sys/kernel/debug/sched/preempt", "none (voluntary) full\n")
    t.write("proc/cmdline",
            "BOOT_IMAGE=/boot/vmlinuz-6.1.0-37-amd64 root=UUID=3f9c2b1e-8d4a-4c57-9e61-0b7f5d2a9c11 ro quiet "
            "systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1\n")
    # Debian builds CONFIG_NO_HZ_FULL; with no nohz_full= the file prints "(null)".
    write_cpus(t, nr, cpus, [], [])
    t.write("sys/devices/virtual/workqueue/cpumask", "f\n")
    # x86 machine checks (Documentation/ABI/testing/sysfs-mce): one device per online CPU, the
    # kernel's one ignore_ce read through each; 0, the default: corrected errors are polled.
    for c in cpus:
        t.write(f"sys/devices/system/machinecheck/machinecheck{c}/ignore_ce", "0\n")
    t.write("proc/cpuinfo", "".join(X86_CPUINFO_CPU.format(n=c, apic=2 * c) for c in cpus))
    v1 = [("systemd", "xattr,name=systemd"), ("cpuset", "cpuset"), ("cpu,cpuacct", "cpu,cpuacct"),
          ("blkio", "blkio"), ("memory", "memory"), ("devices", "devices"), ("freezer", "freezer"),
          ("net_cls,net_prio", "net_cls,net_prio"), ("perf_event", "perf_event"), ("hugetlb", "hugetlb"),
          ("pids", "pids"), ("rdma", "rdma"), ("misc", "misc")]
    t.write("proc/mounts",
            "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
            "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
            "udev /dev devtmpfs rw,nosuid,relatime,size=3980092k,nr_inodes=995023,mode=755,inode64 0 0\n"
            "/dev/sda2 / ext4 rw,relatime,errors=remount-ro 0 0\n"
            "tmpfs /sys/fs/cgroup tmpfs ro,nosuid,nodev,noexec,size=4096k,nr_inodes=1024,mode=755,inode64 0 0\n"
            + "".join("cgroup /sys/fs/cgroup/%s cgroup rw,nosuid,nodev,noexec,relatime,%s 0 0\n" % (d, o) for d, o in v1)
            + "debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0\n"
            "/dev/sda1 /boot/efi vfat rw,relatime,fmask=0077,dmask=0077 0 0\n")

    def counts(per_cpu):
        return [per_cpu.get(c, 0) for c in cpus]
    A = cpus
    irqs = [
        Irq(0, "IO-APIC", 2, "edge", ["timer"], counts({0: 18}), A, [0], "edge"),
        Irq(1, "IO-APIC", 1, "edge", ["i8042"], counts({}), A, [1], "edge"),
        Irq(8, "IO-APIC", 8, "edge", ["rtc0"], counts({3: 1}), A, [3], "edge"),
        Irq(9, "IO-APIC", 9, "level", ["acpi"], counts({1: 4}), A, [1], "fasteoi"),
        Irq(12, "IO-APIC", 12, "edge", ["i8042"], counts({}), A, [2], "edge"),
        Irq(16, "IO-APIC", 16, "level", ["i801_smbus"], counts({2: 29}), A, [2], "fasteoi"),
        Irq(120, "DMAR-MSI", 0, "edge", ["dmar0"], counts({}), A, [0], "edge"),
        Irq(121, "DMAR-MSI", 1, "edge", ["dmar1"], counts({}), A, [0], "edge"),
        Irq(122, "IR-PCI-MSI", 458752, "edge", ["PCIe PME", "aerdrv", "pciehp"], counts({}), A, [1], "edge"),
        Irq(123, "IR-PCI-MSI", 376832, "edge", ["ahci[0000:00:17.0]"], counts({0: 20341, 1: 18812, 2: 16020, 3: 21455}), A, [3], "edge"),
        Irq(124, "IR-PCI-MSI", 327680, "edge", ["xhci_hcd"], counts({2: 1733}), A, [2], "edge"),
        Irq(125, "IR-PCI-MSI", 520192, "edge", ["eno1"], counts({1: 884312}), A, [1], "edge"),
        Irq(126, "IR-PCI-MSI", 1048576, "edge", ["enp2s0"], counts({0: 6}), A, [0], "edge"),
    ]
    for q in range(4):  # igb (I210) asks for one vector per queue and hints one CPU each
        irqs.append(Irq(127 + q, "IR-PCI-MSI", 1048577 + q, "edge", ["enp2s0-TxRx-%d" % q],
                        counts({q: 120000 + 1000 * q}), A, [q], "edge"))
    irqs += [
        Irq(131, "IR-PCI-MSI", 32768, "edge", ["i915"], counts({3: 5521}), A, [3], "edge"),
        Irq(132, "IR-PCI-MSI", 360448, "edge", ["mei_me"], counts({0: 61}), A, [0], "edge"),
        Irq(133, "IR-PCI-MSI", 514048, "edge", ["snd_hda_intel:card0"], counts({2: 890}), A, [2], "edge"),
    ]
    rows = [("NMI", 0, "Non-maskable interrupts"), ("LOC", 2104533, "Local timer interrupts"),
            ("SPU", 0, "Spurious interrupts"), ("PMI", 0, "Performance monitoring interrupts"),
            ("IWI", 12, "IRQ work interrupts"), ("RTR", 0, "APIC ICR read retries"),
            ("RES", 88231, "Rescheduling interrupts"), ("CAL", 40311, "Function call interrupts"),
            ("TLB", 9021, "TLB shootdowns"), ("TRM", 0, "Thermal event interrupts"),
            ("THR", 0, "Threshold APIC interrupts"), ("DFR", 0, "Deferred Error APIC interrupts"),
            ("MCE", 0, "Machine check exceptions"), ("MCP", 61, "Machine check polls")]
    named = [(rid, [v // (c + 1) for c in cpus], d) for rid, v, d in rows]
    named += [("ERR", [0], ""), ("MIS", [0], ""),
              ("PIN", [0] * 4, "Posted-interrupt notification event"),
              ("NPI", [0] * 4, "Nested posted-interrupt event"),
              ("PIW", [0] * 4, "Posted-interrupt wakeup event")]
    write_irqs(t, irqs, named, cpus, nr, cpus)

    th = [Thread(1, "systemd", cpus=cpus, ppid=0), Thread(2, "kthreadd", cpus=cpus, ppid=0, flags=PF_KTHREAD)]
    tid = 3
    for c in cpus:
        for comm, pol, prio in (("cpuhp/%d", "other", 0), ("idle_inject/%d", "fifo", 50), ("migration/%d", "fifo", 99),
                                ("ksoftirqd/%d", "other", 0), ("kworker/%d:0", "other", 0), ("kworker/%d:0H", "other", 0)):
            th.append(Thread(tid, comm % c, pol, prio, [c], PF_PERCPU_KTHREAD, last_cpu=c,
                             nice=-20 if comm.endswith("H") else 0))
            tid += 1
    th += [Thread(tid, "rcu_preempt", cpus=cpus, flags=PF_KTHREAD, last_cpu=2),
           Thread(tid + 1, "watchdogd", "fifo", 50, cpus, PF_KTHREAD, last_cpu=0),
           Thread(tid + 2, "kworker/u8:2", cpus=cpus, flags=PF_KTHREAD, last_cpu=1),
           Thread(150, "irq/122-aerdrv", "fifo", 50, [1], PF_KTHREAD, last_cpu=1),
           Thread(151, "irq/122-pciehp", "fifo", 50, [1], PF_KTHREAD, last_cpu=1),
           Thread(152, "irq/132-mei_me", "fifo", 50, [0], PF_KTHREAD, last_cpu=0),
           Thread(310, "systemd-journal", cpus=cpus, ppid=1, last_cpu=2),
           Thread(520, "sshd", cpus=cpus, ppid=1, last_cpu=0),
           Thread(640, "plc_runtime", cpus=cpus, ppid=1, last_cpu=1),
           Thread(642, "plc_task", "fifo", 70, cpus, PF_USER, pid=640, ppid=1, last_cpu=3),
           Thread(643, "plc_comm", "rr", 20, cpus, PF_USER, pid=640, ppid=1, last_cpu=2)]
    write_threads(t, th, nr)

    t.write("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
    t.write("sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n")
    # Persistent huge pages (Documentation/admin-guide/mm/hugetlbpage.rst): x86-64 offers 2 MiB
    # and 1 GiB pages, globally and on the one NUMA node; Debian reserves none.
    for base in ["sys/kernel/mm/hugepages", "sys/devices/system/node/node0/hugepages"]:
        for kb in [2048, 1048576]:
            for f in ["nr_hugepages", "free_hugepages", "surplus_hugepages"]:
                t.write("%s/hugepages-%dkB/%s" % (base, kb, f), "0\n")
    t.write("sys/devices/system/node/online", "0\n")
    t.write("sys/devices/system/node/node0/cpulist", "0-3\n")
    write_sysctls(t, {"vm.stat_interval": 1, "vm.compaction_proactiveness": 20, "kernel.numa_balancing": 0,
                      "kernel.watchdog": 1, "kernel.nmi_watchdog": 1, "kernel.soft_watchdog": 1,
                      "kernel.watchdog_thresh": 10, "kernel.watchdog_cpumask": "0-3"})
    # What TuneD's realtime profile (network-latency, latency-performance) writes besides, with
    # Debian 12's defaults: profiles/base/tuned-realtime.yaml validates and plans here.
    write_sysctls(t, {"net.core.busy_read": 0, "net.core.busy_poll": 0, "net.ipv4.tcp_fastopen": 1,
                      "kernel.hung_task_timeout_secs": 120, "vm.swappiness": 60, "vm.dirty_ratio": 20,
                      "vm.dirty_background_ratio": 10})

    # drivers/idle/intel_idle.c skl_cstates (Kaby/Whiskey Lake), exit latency and residency in us.
    states = [("POLL", "CPUIDLE CORE POLL IDLE", 0, 0), ("C1", "MWAIT 0x00", 2, 2), ("C1E", "MWAIT 0x01", 10, 20),
              ("C3", "MWAIT 0x10", 70, 100), ("C6", "MWAIT 0x20", 85, 200), ("C7s", "MWAIT 0x33", 124, 800),
              ("C8", "MWAIT 0x40", 200, 800), ("C9", "MWAIT 0x50", 480, 5000), ("C10", "MWAIT 0x60", 890, 5000)]
    write_idle(t, cpus, "intel_idle", "menu", ["ladder", "menu", "teo"], states, {})
    for c in cpus:
        write_freq(t, c, "powersave", "intel_pstate", ["performance", "powersave"], 1600000 + 100000 * c, 400000, 4100000)
        t.write("sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us" % c, "0\n")
    t.write("dev/cpu_dma_latency", "2000000000\n")  # decimal text: a fixture may hold either form

    cg = "sys/fs/cgroup/cpuset/"
    t.write(cg + "cpuset.cpus", "0-3\n")
    t.write(cg + "cpuset.effective_cpus", "0-3\n")
    t.write(cg + "cpuset.cpu_exclusive", "1\n")
    t.write(cg + "cpuset.sched_load_balance", "1\n")
    t.write(cg + "tasks", "1\n")

    t.write("sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    t.write("sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm \n")
    t.write("sys/class/dmi/id/sys_vendor", "Advantech\n")
    t.write("sys/class/dmi/id/product_name", "UNO-2484G\n")
    return t


# ---------------------------------------------------------------- large synthetic tree

def large(out, nr=256, nirqs=4096, nthreads=20000):
    """A big server-like tree: every IRQ and thread file rtagent reads, nothing else."""
    rnd = random.Random(42)
    t = Tree(out)
    cpus = list(range(nr))
    hk, iso = cpus[:nr // 8], cpus[nr // 8:]
    t.write("proc/sys/kernel/osrelease", "6.12.43-rt12\n")
    t.write("proc/sys/kernel/version", "#1 SMP PREEMPT_RT Fri Aug 22 10:11:04 UTC 2025\n")
    t.write("proc/sys/kernel/arch", "x86_64\n")
    t.write("sys/kernel/realtime", "1\n")
    t.write("proc/sys/kernel/sched_rt_runtime_us", "950000\n")
    t.write("proc/sys/kernel/sched_rt_period_us", "1000000\n")
    t.write("proc/cmdline", "ro quiet isolcpus=nohz,domain,managed_irq,%s nohz_full=%s rcu_nocbs=%s irqaffinity=%s\n"
            % ((cpu_list(iso),) * 3 + (cpu_list(hk),)))
    write_cpus(t, nr, cpus, iso, iso)
    t.write("sys/devices/virtual/workqueue/cpumask", cpu_mask(hk, nr) + "\n")
    t.write("proc/cpuinfo", "".join("processor\t: %d\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc\n\n" % c for c in cpus))
    t.write("proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")
    irqs = []
    for i in range(nirqs):
        n = 24 + i
        dev, q = divmod(i, 64)
        counts = [0] * nr
        for _ in range(4):
            counts[rnd.randrange(nr)] = rnd.randrange(1, 100000)
        aff = [q % nr]
        irqs.append(Irq(n, "PCI-MSIX-0000:%02x:00.0" % dev, q, "edge", ["mlx5_comp%d@pci:0000:%02x:00.0" % (q, dev)],
                        counts, aff, aff, "edge"))
    named = [("LOC", [rnd.randrange(10 ** 6) for _ in cpus], "Local timer interrupts"),
             ("RES", [rnd.randrange(10 ** 4) for _ in cpus], "Rescheduling interrupts")]
    write_irqs(t, irqs, named, cpus, nr, hk, prec=4)
    th, tid = [], 1
    for c in cpus:
        for comm, pol, prio in (("ksoftirqd/%d", "other", 0), ("ktimers/%d", "fifo", 1), ("rcuc/%d", "fifo", 1),
                                ("migration/%d", "fifo", 99), ("cpuhp/%d", "other", 0)):
            th.append(Thread(tid, comm % c, pol, prio, [c], PF_PERCPU_KTHREAD, last_cpu=c)); tid += 1
    while len(th) < nthreads:
        pid = tid
        for k in range(min(20, nthreads - len(th))):
            rt = k == 1
            th.append(Thread(tid, "worker%d" % k if k else "app%d" % pid, "fifo" if rt else "other", 60 if rt else 0,
                             hk, PF_USER, pid=pid, ppid=1, last_cpu=tid % nr))
            tid += 1
    write_threads(t, th, nr)
    t.write("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
    t.write("sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n")
    write_idle(t, cpus, "intel_idle", "menu", ["menu"], [("POLL", "POLL", 0, 0), ("C1", "MWAIT 0x00", 2, 2),
                                                           ("C6", "MWAIT 0x20", 170, 600)], {c: {2} for c in iso})
    for c in cpus:
        write_freq(t, c, "performance", "intel_pstate", ["performance", "powersave"], 3000000, 800000, 3500000)
    t.write("dev/cpu_dma_latency", struct.pack("<i", 0))
    t.write("sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", choices=["arm64-rt-8cpu", "x86-ipc-4cpu", "large"])
    ap.add_argument("out")
    ap.add_argument("--cpus", type=int, default=256)
    ap.add_argument("--irqs", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=20000)
    ap.add_argument("--force", action="store_true", help="replace OUT if it exists")
    a = ap.parse_args()
    if os.path.exists(a.out):
        if not a.force:
            sys.exit("%s exists; pass --force to replace it" % a.out)
        shutil.rmtree(a.out)
    if a.tree == "arm64-rt-8cpu":
        t = arm64_rt_8cpu(a.out)
    elif a.tree == "x86-ipc-4cpu":
        t = x86_ipc_4cpu(a.out)
    else:
        t = large(a.out, a.cpus, a.irqs, a.threads)
    print("wrote %d files into %s" % (t.files, a.out))


if __name__ == "__main__":
    main()
