#!/usr/bin/env python3
"""Writes a large fixture system tree for benchmarks: by default 256 CPUs, 4,096 IRQs and
20,000 threads, laid out as the kernel lays out /proc and /sys (formats from
Documentation/filesystems/proc.rst and Documentation/ABI/testing/sysfs-*), so that
`rtagent --root OUT inspect` does the same work it would on a big x86 server.

usage: gen_large_sysroot.py OUT [--cpus N] [--irqs N] [--threads N]
"""
import argparse
import os
import random


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def cpulist(cpus):
    out, i = [], 0
    cpus = sorted(cpus)
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def cpumask(cpus, nr):
    v = 0
    for c in cpus:
        v |= 1 << c
    groups = (nr + 31) // 32
    parts = []
    for g in range(groups - 1, -1, -1):
        parts.append("%08x" % ((v >> (32 * g)) & 0xFFFFFFFF))
    return ",".join(parts)


POLICY = {"other": 0, "fifo": 1, "rr": 2, "batch": 3, "idle": 5, "deadline": 6}


# stat field 9 (PF_*, include/linux/sched.h): a per-CPU kthread has PF_KTHREAD|PF_NO_SETAFFINITY,
# kthreadd and IRQ threads PF_KTHREAD only, a user process PF_FORKNOEXEC|PF_RANDOMIZE.
PF_PERCPU_KTHREAD, PF_KTHREAD, PF_USER = 0x4208040, 0x208040, 0x400100


def task_stat(tid, comm, ppid, cpu, policy, rtprio, flags=PF_PERCPU_KTHREAD):
    prio = -(rtprio + 1) if policy in ("fifo", "rr") else 20
    fields = [str(tid), "(%s)" % comm, "S", str(ppid), str(tid), "0", "0", "-1", str(flags),
              "0", "0", "0", "0", "12", "340", "0", "0", str(prio), "0", "1", "0", "15",
              "0", "0", "18446744073709551615", "0", "0", "0", "0", "0", "0", "0",
              "2147483647", "0", "1", "0", "0", "17", str(cpu), str(rtprio),
              str(POLICY[policy]), "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0"]
    return " ".join(fields) + "\n"


def task_status(tid, tgid, comm, ppid, cpus, nr):
    return ("Name:\t%s\nUmask:\t0000\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
            "PPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nThreads:\t1\n"
            "Cpus_allowed:\t%s\nCpus_allowed_list:\t%s\nMems_allowed_list:\t0-1\n"
            "voluntary_ctxt_switches:\t1203\nnonvoluntary_ctxt_switches:\t4\n"
            % (comm, tgid, tid, ppid, cpumask(cpus, nr), cpulist(cpus)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--cpus", type=int, default=256)
    ap.add_argument("--irqs", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=20000)
    a = ap.parse_args()
    rnd = random.Random(42)
    nr, root = a.cpus, a.out
    allcpus = list(range(nr))
    house = list(range(0, 4))
    iso = list(range(4, nr))

    # kernel identity: a PREEMPT_RT 6.12 server kernel with the usual isolation arguments
    write(root, "proc/sys/kernel/osrelease", "6.12.43-rt12-amd64\n")
    write(root, "proc/sys/kernel/version", "#1 SMP PREEMPT_RT Debian 6.12.43-1 (2025-08-27)\n")
    write(root, "proc/sys/kernel/arch", "x86_64\n")
    write(root, "sys/kernel/realtime", "1\n")
    write(root, "proc/sys/kernel/sched_rt_runtime_us", "950000\n")
    write(root, "proc/sys/kernel/sched_rt_period_us", "1000000\n")
    write(root, "proc/sys/kernel/timer_migration", "0\n")
    write(root, "proc/sys/vm/stat_interval", "10\n")
    write(root, "proc/sys/kernel/watchdog", "1\n")
    write(root, "proc/sys/kernel/nmi_watchdog", "0\n")
    iso_s = cpulist(iso)
    write(root, "proc/cmdline",
          "BOOT_IMAGE=/vmlinuz-6.12.43-rt12-amd64 root=/dev/nvme0n1p2 ro quiet "
          "isolcpus=nohz,domain,managed_irq,%s nohz_full=%s rcu_nocbs=%s irqaffinity=%s "
          "skew_tick=1 rcu_nocb_poll\n" % (iso_s, iso_s, iso_s, cpulist(house)))
    for cpu in allcpus:
        write(root, "sys/kernel/debug/sched/fair_server/cpu%d/runtime" % cpu, "50000000\n")

    # CPUs
    cd = "sys/devices/system/cpu"
    for name in ("online", "possible", "present"):
        write(root, "%s/%s" % (cd, name), "0-%d\n" % (nr - 1))
    write(root, cd + "/isolated", iso_s + "\n")
    write(root, cd + "/nohz_full", iso_s + "\n")
    write(root, cd + "/cpuidle/current_driver", "intel_idle\n")
    states = [("POLL", 0, 0), ("C1", 2, 2), ("C1E", 10, 20), ("C6", 170, 600)]
    for cpu in allcpus:
        base = "%s/cpu%d" % (cd, cpu)
        for i, (name, lat, res) in enumerate(states):
            sd = "%s/cpuidle/state%d" % (base, i)
            write(root, sd + "/name", name + "\n")
            write(root, sd + "/desc", name + "\n")
            write(root, sd + "/latency", "%d\n" % lat)
            write(root, sd + "/residency", "%d\n" % res)
            write(root, sd + "/disable", "1\n" if cpu in iso and lat > 10 else "0\n")
            write(root, sd + "/usage", "%d\n" % rnd.randint(0, 10**6))
            write(root, sd + "/time", "%d\n" % rnd.randint(0, 10**9))
        write(root, base + "/cpufreq/scaling_governor", "performance\n" if cpu in iso else "powersave\n")
        write(root, base + "/cpufreq/scaling_available_governors", "performance powersave\n")
        write(root, base + "/cpufreq/scaling_driver", "intel_pstate\n")
        write(root, base + "/cpufreq/scaling_cur_freq", "3000000\n")
        write(root, base + "/power/pm_qos_resume_latency_us", "0\n")
        write(root, base + "/online", "1\n")

    # interrupts: per-CPU rows plus IO-APIC and PCI-MSI-X lines spread over NICs and NVMe queues
    names = []
    for irq in range(a.irqs):
        if irq < 16:
            chip, hw, action = "IR-IO-APIC", "%d-edge" % irq, ["timer", "i8042", "", "", "ttyS0", "", "", "", "rtc0", "acpi"][irq] if irq < 10 else ""
        else:
            dev = (irq - 16) // 64
            q = (irq - 16) % 64
            chip = "IR-PCI-MSIX-0000:%02x:00.0" % (0x10 + dev)
            hw = "%d-edge" % q
            action = "eth%d-TxRx-%d" % (dev, q) if dev % 2 == 0 else "nvme%dq%d" % (dev, q)
        names.append((irq, chip, hw, action))
    lines = [" " * 11 + "".join("CPU%-8d" % c for c in allcpus).rstrip() + "\n"]
    counts = {}
    for irq, chip, hw, action in names:
        cnt = [rnd.randint(0, 50000) if c in house else 0 for c in allcpus]
        counts[irq] = cnt
        lines.append("%4d: %s %s %s %s\n" % (irq, " ".join("%10d" % x for x in cnt), chip, hw, action))
    for row, label in (("NMI", "Non-maskable interrupts"), ("LOC", "Local timer interrupts"),
                       ("RES", "Rescheduling interrupts"), ("CAL", "Function call interrupts"),
                       ("TLB", "TLB shootdowns")):
        lines.append("%4s: %s   %s\n" % (row, " ".join("%10d" % rnd.randint(0, 10**6) for _ in allcpus), label))
    lines.append(" ERR:          0\n MIS:          0\n")
    write(root, "proc/interrupts", "".join(lines))
    write(root, "proc/irq/default_smp_affinity", cpumask(house, nr) + "\n")
    for irq, chip, hw, action in names:
        pi = "proc/irq/%d" % irq
        aff = house
        write(root, pi + "/smp_affinity", cpumask(aff, nr) + "\n")
        write(root, pi + "/smp_affinity_list", cpulist(aff) + "\n")
        write(root, pi + "/effective_affinity", cpumask([aff[irq % len(aff)]], nr) + "\n")
        write(root, pi + "/effective_affinity_list", "%d\n" % aff[irq % len(aff)])
        write(root, pi + "/node", "0\n")
        si = "sys/kernel/irq/%d" % irq
        write(root, si + "/actions", action + "\n")
        write(root, si + "/chip_name", chip + "\n")
        write(root, si + "/hwirq", hw.split("-")[0] + "\n")
        write(root, si + "/name", "edge\n")
        write(root, si + "/type", "edge\n")
        write(root, si + "/wakeup", "disabled\n")
        write(root, si + "/per_cpu_count", ",".join(str(x) for x in counts[irq]) + "\n")
    write(root, "proc/softirqs", "                    " + "".join("CPU%-8d" % c for c in allcpus).rstrip() + "\n" +
          "".join("%12s: %s\n" % (n, " ".join("%10d" % rnd.randint(0, 10**5) for _ in allcpus))
                  for n in ("HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU")))

    # threads: per-CPU kthreads, one irq thread per action, then user processes with many threads
    pid = [1]
    made = [0]

    def proc(comm, threads, policy="other", rtprio=0, cpus=None, cmdline="", flags=PF_PERCPU_KTHREAD):
        tgid = pid[0]
        for t in range(threads):
            tid = tgid + t
            tcomm = comm if t == 0 else "%s-w%d" % (comm[:10], t)
            base = "proc/%d/task/%d" % (tgid, tid)
            c = cpus if cpus is not None else house
            write(root, base + "/stat", task_stat(tid, tcomm, 2 if not cmdline else 1, c[0], policy, rtprio, flags))
            write(root, base + "/status", task_status(tid, tgid, tcomm, 2, c, nr))
            write(root, base + "/comm", tcomm + "\n")
        write(root, "proc/%d/stat" % tgid, task_stat(tgid, comm, 2, (cpus or house)[0], policy, rtprio, flags))
        write(root, "proc/%d/status" % tgid, task_status(tgid, tgid, comm, 2, cpus or house, nr))
        write(root, "proc/%d/comm" % tgid, comm + "\n")
        write(root, "proc/%d/cmdline" % tgid, cmdline.replace(" ", "\0"))
        # Every process is in the top cgroup (its cgroup.procs is not written: the kernel would
        # list everyone). A kernel always shows the line; without it the fixture's cgroup
        # lookup falls back to scanning every cgroup.procs, which no running system costs.
        write(root, "proc/%d/cgroup" % tgid, "0::/\n")
        pid[0] += threads
        made[0] += threads

    proc("systemd", 1, cmdline="/sbin/init", flags=PF_USER)
    proc("kthreadd", 1, flags=PF_KTHREAD)
    for cpu in allcpus:
        proc("ksoftirqd/%d" % cpu, 1, cpus=[cpu])
        proc("ktimers/%d" % cpu, 1, "fifo", 1, cpus=[cpu])
        proc("rcuc/%d" % cpu, 1, "fifo", 1, cpus=[cpu])
        proc("migration/%d" % cpu, 1, "fifo", 99, cpus=[cpu])
        proc("cpuhp/%d" % cpu, 1, cpus=[cpu])
    for irq, chip, hw, action in names:
        if action and made[0] < a.threads:
            proc("irq/%d-%s" % (irq, action[:9]), 1, "fifo", 50, flags=PF_KTHREAD)
    n = 0
    while made[0] < a.threads:
        left = a.threads - made[0]
        proc("robotd%d" % n, min(40, left), cmdline="/usr/bin/robotd --instance %d" % n, flags=PF_USER)
        n += 1

    # memory, workqueues, power, clocks, cgroup v2 with an isolated partition
    write(root, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
    write(root, "sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n")
    write(root, "sys/devices/virtual/workqueue/cpumask", cpumask(house, nr) + "\n")
    with open(os.path.join(root, "dev_cpu_dma_latency.tmp"), "wb") as f:
        f.write((2000000000).to_bytes(4, "little"))
    os.makedirs(os.path.join(root, "dev"), exist_ok=True)
    os.replace(os.path.join(root, "dev_cpu_dma_latency.tmp"), os.path.join(root, "dev/cpu_dma_latency"))
    write(root, "sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n")
    write(root, "sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm \n")
    write(root, "proc/cpuinfo", "".join(
        "processor\t: %d\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8490H\n"
        "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr constant_tsc nonstop_tsc\n\n" % c
        for c in allcpus))
    write(root, "sys/class/dmi/id/sys_vendor", "Supermicro\n")
    write(root, "sys/class/dmi/id/product_name", "SYS-221H-TNR\n")
    write(root, "proc/mounts",
          "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
          "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
          "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n"
          "tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0\n")
    cg = "sys/fs/cgroup"
    write(root, cg + "/cgroup.controllers", "cpuset cpu io memory pids\n")
    write(root, cg + "/cgroup.subtree_control", "cpuset cpu memory\n")
    write(root, cg + "/cpuset.cpus.effective", "0-%d\n" % (nr - 1))
    write(root, cg + "/cpuset.cpus.isolated", iso_s + "\n")
    write(root, cg + "/rt.slice/cpuset.cpus", iso_s + "\n")
    write(root, cg + "/rt.slice/cpuset.cpus.partition", "isolated\n")
    write(root, cg + "/rt.slice/cpuset.cpus.effective", iso_s + "\n")
    write(root, cg + "/rt.slice/cgroup.procs", "")
    write(root, cg + "/system.slice/cpuset.cpus", cpulist(house) + "\n")
    write(root, cg + "/system.slice/cpuset.cpus.partition", "member\n")
    write(root, cg + "/system.slice/cpuset.cpus.effective", cpulist(house) + "\n")
    write(root, "sys/kernel/tracing/available_tracers", "hwlat timerlat osnoise function nop\n")
    write(root, "sys/kernel/tracing/current_tracer", "nop\n")
    # The last PID allocated is the last field (hold's cheap tick reads it to see new threads).
    write(root, "proc/loadavg", "0.52 0.61 0.58 3/%d %d\n" % (made[0], pid[0] - 1))
    print("%s: %d CPUs, %d IRQs, %d threads" % (root, nr, a.irqs, made[0]))


if __name__ == "__main__":
    main()
