#!/usr/bin/env bash
# plan, apply and revert on the large generated tree (issue 3): wall time and peak RSS of each
# command, and the number of journal entries apply leaves, against the cost of reading the
# tree's files once (the floor bench/run.sh measures for inspect), and apply against its write
# floor: one apply traced with strace, its file system calls (the same values to the same files,
# the same journal commits) replayed by bench/write_floor.cc on a fresh copy and timed. Each
# round replays the floor on a fresh copy and then runs apply and revert on another, so apply /
# floor is taken within a round (the median of the rounds' ratios) and the disk's and the
# machine's moods hit both alike. The same trace also gives apply's I/O floor (write_floor_ops.py
# --reads): the writes, plus every file apply read and every directory it listed, each once,
# since apply must plan before it writes and its plan alone outweighs the write floor.
# After revert the copy must be byte-identical to the tree.
#
# usage: bash bench/tune.sh [--rtagent PATH] [--tree DIR] [--runs N] [--baseline PATH --timeout S]
#   --tree      a tree made by bench/gen_large_sysroot.py (default: generate one in a scratch dir)
#   --baseline  a second rtagent (e.g. built before a change), timed the same way; an apply that
#               runs past --timeout seconds (default 600) is killed and reported as such
# Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rtagent=build/rtagent tree="" runs=3 baseline="" timeout=600
while (($#)); do
  case "$1" in
    --rtagent) rtagent=$2; shift 2 ;;
    --tree) tree=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$rtagent" ] || { echo "bench: $rtagent missing; build it first" >&2; exit 3; }
floor=build/rtagent_bench_writefloor
[ -x "$floor" ] || { echo "bench: $floor missing; cmake --build build --target rtagent_bench_writefloor" >&2; exit 3; }
if ! command -v strace >/dev/null; then
  apt-get install -y -qq strace >/dev/null || { echo "bench: strace is needed (apt-get install strace)" >&2; exit 3; }
fi
work=$(mktemp -d /tmp/rtagent-tune-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$tree" ]; then
  tree=$work/tree
  echo "generating the tree ..." >&2
  python3 bench/gen_large_sysroot.py "$tree" >&2
fi
python3 - "$tree" "$work" "$runs" "$timeout" bench/tune-large.yaml "$floor" "$rtagent" $baseline <<'PY'
import json, os, shutil, signal, statistics, subprocess, sys, time
tree, work, runs, timeout, profile, floor_bin = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
binaries = sys.argv[7:]
TRACED = "openat,write,pwrite64,ftruncate,fsync,fdatasync,close,rename,renameat,renameat2,mkdir,mkdirat,rmdir,unlink,unlinkat"

RSS_FILE = os.path.join(work, "rss")

def run(argv, limit=None, stdin=None, cpu=None, stdout=subprocess.DEVNULL):
    """Wall seconds, peak RSS (KiB) and exit status of one command; None seconds when killed.
    The command's CPU seconds (user + system) go to the list `cpu` when one is given.
    The peak is GNU time's %M, not this process's wait4: a child of Python starts as a copy of
    Python's memory and the kernel keeps that peak across exec, so wait4 reports at least this
    script's own (bench/inspect_verify.sh says more). The command runs in its own session, so
    a timeout kills it and GNU time together."""
    t0 = time.monotonic()
    if os.path.exists(RSS_FILE):
        os.unlink(RSS_FILE)
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", RSS_FILE] + argv, stdin=stdin,
                         stdout=stdout, stderr=subprocess.DEVNULL, start_new_session=True)
    killed = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if limit and time.monotonic() - t0 > limit:
            os.killpg(p.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.02)
    wall = time.monotonic() - t0
    if cpu is not None:
        cpu.append(ru.ru_utime + ru.ru_stime)
    rss = 0
    if os.path.exists(RSS_FILE):
        with open(RSS_FILE) as f:
            words = f.read().split()
            rss = int(words[-1]) if words and words[-1].isdigit() else 0
    return (None if killed else wall), rss, os.waitstatus_to_exitcode(status)

def read_once(top):
    t0 = time.monotonic()
    n = 0
    for d, _, files in os.walk(top):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                fh.read()
            n += 1
    return time.monotonic() - t0, n

def fmt(walls):
    ok = [w for w in walls if w is not None]
    if not ok:
        return f"killed after {timeout:.0f} s"
    s = f"{statistics.median(ok):.2f} s"
    if len(ok) > 1:
        s += f" ({min(ok):.2f}-{max(ok):.2f})"
    if len(ok) < len(walls):
        s += f", {len(walls) - len(ok)} killed after {timeout:.0f} s"
    return s

floor, nfiles = read_once(tree)
rows = []
for b in binaries:
    plan_w, plan_rss, plan_cpu = [], 0, []
    for _ in range(runs):
        w, rss, rc = run([b, "plan", profile, "--root", tree], cpu=plan_cpu)
        plan_w.append(w); plan_rss = max(plan_rss, rss)
    # The write floor: apply's own file system calls, traced once on a fresh copy, then replayed
    # on fresh copies round by round, each round beside one apply (and its revert), so the load
    # of the machine and the disk's moods hit both alike.
    def fresh():
        copy = os.path.join(work, "copy")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy, symlinks=True)
        return copy
    copy = fresh()
    log, ops = os.path.join(work, "apply.strace"), os.path.join(work, "apply.ops")
    subprocess.run(["strace", "-f", "-qq", "-y", "-xx", "-s", "268435456", "-e", "signal=none", "-e", "trace=" + TRACED,
                    "-o", log, b, "apply", profile, "--root", copy], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=timeout * 10)
    with open(log) as fin, open(ops, "w") as fout:
        subprocess.run(["python3", "bench/write_floor_ops.py", copy], stdin=fin, stdout=fout, check=True)
    # The I/O floor: the same writes, and every file apply read (and directory it listed) read once.
    io_ops = os.path.join(work, "apply.io-ops")
    with open(log) as fin, open(io_ops, "w") as fout:
        subprocess.run(["python3", "bench/write_floor_ops.py", "--reads", copy], stdin=fin, stdout=fout, check=True)
    traced = copy + ".traced"
    shutil.rmtree(traced, ignore_errors=True)
    os.rename(copy, traced)
    # A journal commit is its rename over the old file (write, fsync, rename, fsync the directory).
    commits = str(sum(1 for line in open(ops) if line.startswith("rename\t")))
    apply_w, apply_rss, rev_w, rev_rss, entries, identical = [], 0, [], 0, 0, True
    floor_w, same_as_apply, ratios, floor_cpu, apply_cpu = [], True, [], [], []
    io_w, io_cpu, io_same = [], [], True

    def replay(which, check):
        """Replays one ops file on a fresh copy: the replay's own wall and CPU seconds (the
        replayer prints them: its process also reads and unhexes the ops first, which cost
        more CPU than the replay on the large tree and made apply look faster than its floor,
        0.87x, 2026-12-07), and, when `check`, whether the copy then holds what apply left
        (journal included), which it must, or it is not apply's floor. The replay does the same
        every round, so the first round's comparison (a diff of the whole tree) stands for all."""
        copy = fresh()
        said = os.path.join(work, "floor.out")
        with open(which) as fin, open(said, "w") as fout:
            fw, _, frc = run([floor_bin, copy], stdin=fin, stdout=fout)
        words = open(said).read().split()
        figures = dict(zip(words[0::2], words[1::2]))
        if frc != 0 or "replay_wall" not in figures:
            return None, None, True  # failed, not different: the figure says "replay failed"
        same = not check or subprocess.run(["diff", "-r", "-q", traced, copy], stdout=subprocess.DEVNULL).returncode == 0
        return float(figures["replay_wall"]), float(figures["replay_cpu"]), same

    for round_ in range(runs):
        fw, fc, same = replay(ops, round_ == 0)
        same_as_apply &= same
        floor_w.append(fw if same_as_apply else None)
        if fc is not None:
            floor_cpu.append(fc)
        iw, ic, same = replay(io_ops, round_ == 0)
        io_same &= same
        io_w.append(iw if io_same else None)
        if ic is not None:
            io_cpu.append(ic)
        copy = fresh()
        w, rss, rc = run([b, "apply", profile, "--root", copy], timeout, cpu=apply_cpu)
        apply_w.append(w); apply_rss = max(apply_rss, rss)
        if w is not None and floor_w[-1] is not None:
            ratios.append(w / floor_w[-1])
        j = os.path.join(copy, "run/rtagent/journal.json")
        if os.path.exists(j):
            entries = len(json.load(open(j))["entries"])
        w, rss, rc = run([b, "revert", "--root", copy])
        rev_w.append(w); rev_rss = max(rev_rss, rss)
        d = subprocess.run(["diff", "-r", "-q", "--exclude=run", tree, copy], stdout=subprocess.DEVNULL)
        identical &= d.returncode == 0
        if apply_w[-1] is None:
            break  # one killed apply is enough to tell
    shutil.rmtree(traced, ignore_errors=True)
    ok_a = [w for w in apply_w if w is not None]
    ok_f = [w for w in floor_w if w is not None]
    # The median of the rounds' own ratios: each apply against the floor replayed beside it.
    ratio = f"{statistics.median(ratios):.2f}x" if ratios else "n/a"
    if len(ratios) > 1:
        ratio += f" ({min(ratios):.2f}-{max(ratios):.2f})"
    # CPU time (user + system) leaves out the waits for the disk's fsyncs, which on this VM's
    # virtual disk vary by seconds from one replay to the next.
    # With the two medians beside it: the floor's own CPU time (mostly the kernel's, in its
    # writes and fsyncs) moves from run to run, and the ratio with it.
    cpu_ratio = (f"{statistics.median(apply_cpu) / statistics.median(floor_cpu):.2f}x"
                 f" ({statistics.median(apply_cpu):.2f} s / {statistics.median(floor_cpu):.2f} s)") if ratios else "n/a"
    # apply must plan before it writes: against its own plan plus the write floor, what is
    # left is what apply adds to both (the reads before each batch, the journal).
    both = (f"{statistics.median(apply_cpu) / (statistics.median(plan_cpu) + statistics.median(floor_cpu)):.2f}x"
            f" ({statistics.median(apply_cpu):.2f} s / {statistics.median(plan_cpu):.2f} + {statistics.median(floor_cpu):.2f} s)"
            ) if ratios and plan_cpu else "n/a"
    floor_s = fmt(floor_w) if ok_f else ("replay differs from apply" if not same_as_apply else "replay failed")
    # apply against the I/O floor: the reads it needs and its writes, each made once.
    ok_io = [w for w in io_w if w is not None]
    io_s = fmt(io_w) if ok_io else ("replay differs from apply" if not io_same else "replay failed")
    io_ratio = (f"{statistics.median(apply_cpu) / statistics.median(io_cpu):.2f}x"
                f" ({statistics.median(apply_cpu):.2f} s / {statistics.median(io_cpu):.2f} s)") if ok_io and apply_cpu else "n/a"
    rows.append((b, fmt(plan_w), plan_rss, fmt(apply_w), apply_rss, entries, fmt(rev_w), rev_rss, identical,
                 floor_s, ratio, commits, cpu_ratio, both, io_s, io_ratio))

print(f"Reading the tree's {nfiles} files once: {floor:.2f} s.\n")
print("| rtagent | plan | plan RSS | apply | apply RSS | journal entries | journal commits | write floor | apply / floor (wall) | apply / floor (CPU: apply / floor) | apply / (plan + floor) (CPU) | I/O floor | apply / I/O floor (CPU) | revert | revert RSS | byte-identical after revert |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for b, pw, pr, aw, ar, e, rw, rr, same, fw, ratio, commits, cpu_ratio, both, io_s, io_ratio in rows:
    print(f"| {b} | {pw} | {pr/1024:.0f} MiB | {aw} | {ar/1024:.0f} MiB | {e} | {commits} | {fw} | {ratio} | {cpu_ratio} | {both} | {io_s} | {io_ratio} | {rw} | {rr/1024:.0f} MiB | {'yes' if same else 'NO'} |")
PY
