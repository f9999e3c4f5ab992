#!/usr/bin/env python3
"""Seeds the fuzz targets' corpora (fuzz/*_fuzz.cc) from the fixtures in the repository.

Usage: tools/fuzz_corpus.py OUT_DIR
Writes OUT_DIR/<target>/<name> for every target: the board trees of tests/sysroots, the
imports of tests/imports, the traces of tests/traces, the verdicts of tests/expected, the
profiles and check suites, and a few hand-written files where the repository has no fixture
(journals, boot loader files, the sampler's stream), and the inputs of fuzz/regressions/ that
once broke a target. A target that reads several files gets
them joined by the separator line of fuzz/fuzz_support.h. Also writes the profile target's
dictionary (OUT_DIR/profile.dict): every key the profile language declares, from the tables
of docs/profile.md, and the YAML syntax around them.
"""
import glob
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEP = b"\n@@@@\n"  # fuzz::kFileSeparator
MAX_SEED = 64 * 1024  # libFuzzer's -max_len is set above this by tools/fuzz.sh


def read(path):
    with open(path, "rb") as f:
        return f.read()


def rel(pattern):
    return sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))


class Corpus:
    def __init__(self, out):
        self.out = out
        self.counts = {}

    def add(self, target, data):
        data = data[:MAX_SEED]
        d = os.path.join(self.out, target)
        os.makedirs(d, exist_ok=True)
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        self.counts[target] = self.counts.get(target, 0) + 1


BOOT_FILES = {
    # kind byte (bootfile_fuzz.cc: first byte % 5) -> texts
    0: [b'GRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR="$(sed \'s, release .*$,,g\' /etc/system-release)"\n'
        b'GRUB_DEFAULT=saved\nGRUB_CMDLINE_LINUX="crashkernel=auto rhgb quiet isolcpus=1"\n'
        b'GRUB_ENABLE_BLSCFG=true\n',
        b'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\nGRUB_CMDLINE_LINUX=""\nexport GRUB_X=\'a b\'\n',
        b'# r\xe9seau (Latin-1)\nGRUB_CMDLINE_LINUX="quiet"\n'],
    1: [b'GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n'
        b'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\nGRUB_CMDLINE_LINUX="console=ttyS0 nohz_full=1-3"\n',
        b'# drop-in\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX ${GRUB_X} rcu_nocbs=2"\n'],
    2: [b'TIMEOUT 30\nDEFAULT primary\n\nMENU TITLE L4T boot options\n\nLABEL primary\n'
        b'      MENU LABEL primary kernel\n      LINUX /boot/Image\n      INITRD /boot/initrd\n'
        b'      APPEND ${cbootargs} root=/dev/mmcblk0p1 rw rootwait\n\nLABEL backup\n'
        b'      LINUX /boot/Image.bak\n      APPEND ${cbootargs} quiet\n',
        b'label linux\n  menu default\n  kernel /vmlinuz\n  append root=/dev/sda1 isolcpus=3\n'],
    3: [b'console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait\n',
        b'This file moved to /boot/firmware/cmdline.txt\n'],
    4: [b'title      Fedora Linux (6.12.0-rt)\nversion    6.12.0-rt\nlinux      /vmlinuz-6.12.0-rt\n'
        b'initrd     /initramfs-6.12.0-rt.img\noptions    root=UUID=abc ro rhgb quiet\n'
        b'options    isolcpus=2\nsort-key fedora\n# comment\n',
        b'timeout 3\ndefault @saved\nsaved_entry=abc-6.12.0-rt\n'],
}

JOURNAL = b'''{
  "version": 1,
  "machine": "0123456789abcdef0123456789abcdef",
  "entries": [
    {"section": "irqs", "what": "IRQ 24 (eth0) affinity", "actuator": "file",
     "key": "proc/irq/24/smp_affinity_list", "before": "0-3", "after": "0-1", "compare": "cpulist"},
    {"section": "ranks", "what": "thread irq/24-eth0 policy", "actuator": "sched",
     "key": "pid:123:tid:123", "before": "SCHED_FIFO 50", "after": "SCHED_FIFO 90", "compare": "exact",
     "side_effect_of": "proc/irq/24/smp_affinity_list"}
  ]
}
'''
BOOT_JOURNAL = b'''{"version": 1, "entries": [{"section": "cores", "what": "the kernel command line",
 "actuator": "bootfile+update-grub", "key": "etc/default/grub.d/90-rtagent.cfg", "before": "",
 "after": "GRUB_CMDLINE_LINUX=\\"isolcpus=2-3\\"\\n", "compare": "exact",
 "runs": [{"argv": ["update-grub"], "exit_status": 0, "output": "done"}]}]}
'''

SOFTIRQS = (b"                    CPU0       CPU1       CPU2       CPU3\n"
            b"          HI:          1          0          0          0\n"
            b"       TIMER:     123456       2345         12          0\n"
            b"      NET_TX:          5          0          0          0\n"
            b"      NET_RX:        100         20          0          0\n"
            b"       BLOCK:         30          0          0          0\n"
            b"    IRQ_POLL:          0          0          0          0\n"
            b"     TASKLET:          7          0          0          0\n"
            b"       SCHED:       5000       4000         10          3\n"
            b"     HRTIMER:          0          0          0          0\n"
            b"         RCU:       9000       8000          1          0\n")

SAMPLER = (b"hello 2\nready\nprogress 2:1000:15000:0 3:1000:-1:0\n"
           b"result 1000000 10000000000 10000000000 95 1 1 0 0 0\nnote CPU 3 ran SCHED_OTHER\n"
           b"cpu 2 1 95 0 10000000000 1000 32 10000 1 1200000 2000 1200000 50000000 0\n"
           b"bins 2:5000 3:4000 4:4999\nfirst 17:1700000:1200000\nworst 17:1700000:1200000\n"
           b"cpu 3 1 95 0 10000000000 1000 32 10000 0 0 2000 9000 30000000 0\nbins 2:5000 3:5000\nfirst\nworst\nend\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    c = Corpus(sys.argv[1])
    boards = rel("tests/sysroots/*/")

    for p in rel("profiles/**/*.yaml"):
        c.add("profile", read(p))
    c.add("profile", b"include: base/does-not-exist.yaml\ncores:\n  isolated: [2, 3]\n")
    for p in rel("checks/*.yaml"):
        c.add("suite", read(p))

    for b in boards:
        irq = os.path.join(b, "proc/interrupts")
        if os.path.exists(irq):
            c.add("interrupts", read(irq))
            c.add("interrupts", read(irq) + SEP + read(irq).replace(b"1", b"2"))
        soft = os.path.join(b, "proc/softirqs")
        if os.path.exists(soft):
            c.add("softirqs", read(soft))
            c.add("softirqs", read(soft) + SEP + read(soft).replace(b"1", b"3"))
        for name in ("stat", "status", "sched"):
            for p in sorted(glob.glob(os.path.join(b, "proc/*/task/*/" + name)))[:12]:
                c.add("task", read(p))
        cpu_files = (glob.glob(os.path.join(b, "sys/devices/system/cpu/*")) +
                     glob.glob(os.path.join(b, "proc/irq/*/smp_affinity*"))[:16] +
                     glob.glob(os.path.join(b, "sys/fs/cgroup/**/cpuset.cpus*"), recursive=True))
        for p in sorted(cpu_files):
            if os.path.isfile(p) and os.path.getsize(p) < 4096:
                c.add("cpuset", b"a" + read(p).strip())
                c.add("cpuset", b"b" + read(p).strip())
        mounts = os.path.join(b, "proc/mounts")
        if os.path.exists(mounts):
            parts = [read(mounts)]
            for p in sorted(glob.glob(os.path.join(b, "sys/fs/cgroup/**/*"), recursive=True)):
                if os.path.isfile(p):
                    parts.append(os.path.relpath(p, b).encode() + b"\n" + read(p))
            for p in sorted(glob.glob(os.path.join(b, "proc/*/cgroup")))[:4]:
                parts.append(os.path.relpath(p, b).encode() + b"\n" + read(p))
            c.add("cgroup", SEP.join(parts))
            c.add("cgroup", read(mounts))
        for name in ("proc/cmdline", "proc/version", "proc/sys/kernel/osrelease", "proc/meminfo",
                     "sys/kernel/mm/transparent_hugepage/enabled"):
            p = os.path.join(b, name)
            if os.path.exists(p):
                c.add("small_parsers", read(p))
        for p in sorted(glob.glob(os.path.join(b, "proc/*/smaps")))[:2]:
            c.add("small_parsers", read(p))
    for s in (b"0-3,8-11", b"ff,ffffffff", b"0-1023:2/256", b"N", b"all", b"1,3-5:2"):
        c.add("cpuset", b"a" + s)
    for s in (b"SCHED_FIFO 90", b"pid:123:tid:124", b"150us", b"2s", b"always [madvise] never",
              b"isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1",
              b"6.12.0-rt5-amd64", b"#1 SMP PREEMPT_RT Debian 6.1.0"):
        c.add("small_parsers", s)

    c.add("softirqs", SOFTIRQS)
    c.add("softirqs", SOFTIRQS + SEP + SOFTIRQS.replace(b"0 ", b"9 "))
    c.add("journal", JOURNAL)
    c.add("journal", JOURNAL + SEP + BOOT_JOURNAL + SEP + b"0123456789abcdef0123456789abcdef\n")
    c.add("journal", b'{"version": 1, "entries": []}' + SEP + BOOT_JOURNAL)

    for p in rel("tests/expected/*.json"):
        c.add("verdict", read(p))
    for p in rel("tests/imports/*"):
        c.add("import", read(p))
    for p in rel("tests/traces/*"):
        c.add("trace", read(p))
    c.add("sampler_stream", SAMPLER)
    c.add("sampler_stream", b"hello 2\nerror 1 not permitted\n")

    for kind, texts in BOOT_FILES.items():
        for t in texts:
            c.add("bootfile", bytes([kind]) + t)

    # Inputs the fuzzers once failed on (fuzz/regressions/<target>/, one file each, named for
    # the bug): seeds, so that every run replays them before it mutates anything.
    for p in rel("fuzz/regressions/*/*"):
        c.add(os.path.basename(os.path.dirname(p)), read(p))

    # The profile's dictionary: each declared key (docs/profile.md's `section.key` rows) as
    # "key:", the section names, and YAML's own syntax.
    words = set()
    for line in open(os.path.join(ROOT, "docs/profile.md"), encoding="utf-8"):
        for m in re.finditer(r"^\|\s*`([a-z_][a-z0-9_.\[\]]*)`", line):
            for part in m.group(1).replace("[]", "").split("."):
                if part:
                    words.add(part)
    with open(os.path.join(sys.argv[1], "profile.dict"), "w") as f:
        for w in sorted(words):
            f.write('"%s:"\n' % w)
        for tok in ("include:", "- ", ": ", "{", "}", "[", "]", "&a", "*a", "<<: ", "!!str", "|\n", "\n  ",
                    "true", "false", "null", "0-3", "N", "all", "us", "ms", "~", "\"", "'", "#"):
            f.write('"%s"\n' % tok.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\x0A"))
    for target, n in sorted(c.counts.items()):
        print("fuzz corpus: %-15s %4d seeds" % (target, n))


if __name__ == "__main__":
    main()
