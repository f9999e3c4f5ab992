#!/usr/bin/env python3
"""apply's write floor and I/O floor, end to end on a small tree: bench/write_floor_ops.py turns
a trace written here in strace's -f -qq -y -xx form into ops, and the replayer
(bench/write_floor.cc) replays them on a copy of the tree. What a user of bench/tune.sh relies
on: the replay leaves the tree as apply left it (the journal committed, the file rewritten),
the I/O floor reads each file once however often apply read it, and a replay that cannot do
an op says so with exit 1 instead of timing less work.

usage: write_floor_test.py SOURCE_DIR REPLAYER
"""
import os
import shutil
import subprocess
import sys
import tempfile

src, replayer = sys.argv[1], sys.argv[2]
ops_script = os.path.join(src, "bench", "write_floor_ops.py")
failures = []


def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + (f" ({detail})" if detail and not ok else ""))
    if not ok:
        failures.append(what)


def hx(text):
    return "".join(f"\\x{b:02x}" for b in text.encode())


work = tempfile.mkdtemp(prefix="rtagent-write-floor-test.")
try:
    tree = os.path.join(work, "tree")
    os.makedirs(os.path.join(tree, "proc", "7", "task"))
    os.makedirs(os.path.join(tree, "run", "rtagent"))
    with open(os.path.join(tree, "proc", "7", "task", "stat"), "w") as f:
        f.write("7 (worker) S 0 0\n")
    with open(os.path.join(tree, "proc", "7", "status"), "w") as f:
        f.write("Cpus_allowed_list:\t0-3\n")
    # The tree as apply leaves it: stat rewritten, the journal committed.
    after = os.path.join(work, "after")
    shutil.copytree(tree, after)
    with open(os.path.join(after, "proc", "7", "task", "stat"), "w") as f:
        f.write("7 (worker) S 1 1\n")
    with open(os.path.join(after, "run", "rtagent", "journal.json"), "w") as f:
        f.write('{"entries":[]}\n')

    def p(rel):
        return os.path.join(tree, rel)

    stat, status, task = p("proc/7/task/stat"), p("proc/7/status"), p("proc/7/task")
    tmp, journal, jdir = p("run/rtagent/journal.json.tmp.1"), p("run/rtagent/journal.json"), p("run/rtagent")
    cwd = f"AT_FDCWD<{hx(work)}>"
    trace = [
        # apply reads stat twice (the plan, then the before-value), status once, lists task once
        f'100 openat({cwd}, "{hx(stat)}", O_RDONLY|O_CLOEXEC) = 3<{hx(stat)}>',
        f'100 close(3<{hx(stat)}>) = 0',
        f'100 openat({cwd}, "{hx(task)}", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3<{hx(task)}>',
        f'100 close(3<{hx(task)}>) = 0',
        f'100 openat({cwd}, "{hx(status)}", O_RDONLY|O_CLOEXEC) = 3<{hx(status)}>',
        f'100 close(3<{hx(status)}>) = 0',
        f'100 openat({cwd}, "{hx(stat)}", O_RDONLY|O_CLOEXEC) = 3<{hx(stat)}>',
        f'100 close(3<{hx(stat)}>) = 0',
        # a file that does not exist: a failed open is no op
        f'100 openat({cwd}, "{hx(p("run/rtagent/gone"))}", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)',
        # the journal commit: write a temporary file, fsync, rename, fsync the directory
        f'100 openat({cwd}, "{hx(tmp)}", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 4<{hx(tmp)}>',
        f'100 write(4<{hx(tmp)}>, "{hx(chr(123) + chr(34) + "entries" + chr(34) + ":[]}" + chr(10))}", 15) = 15',
        f'100 fsync(4<{hx(tmp)}>) = 0',
        f'100 close(4<{hx(tmp)}>) = 0',
        f'100 rename("{hx(tmp)}", "{hx(journal)}") = 0',
        f'100 openat({cwd}, "{hx(jdir)}", O_RDONLY|O_CLOEXEC|O_DIRECTORY) = 4<{hx(jdir)}>',
        f'100 fsync(4<{hx(jdir)}>) = 0',
        f'100 close(4<{hx(jdir)}>) = 0',
        # the fixture write: one descriptor reads the stat line and rewrites it
        f'100 openat({cwd}, "{hx(stat)}", O_RDWR|O_CLOEXEC) = 5<{hx(stat)}>',
        f'100 pwrite64(5<{hx(stat)}>, "{hx("7 (worker) S 1 1" + chr(10))}", 17, 0) = 17',
        f'100 ftruncate(5<{hx(stat)}>, 17) = 0',
        f'100 close(5<{hx(stat)}>) = 0',
    ]
    log = os.path.join(work, "apply.strace")
    with open(log, "w") as f:
        f.write("\n".join(trace) + "\n")

    def ops(*flags):
        with open(log) as fin:
            r = subprocess.run(["python3", ops_script, *flags, tree], stdin=fin, capture_output=True, text=True)
        return r.returncode, r.stdout.splitlines(), r.stderr

    def replay(op_lines):
        copy = os.path.join(work, "copy")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy)
        r = subprocess.run([replayer, copy], input="\n".join(op_lines) + "\n", capture_output=True, text=True)
        words = r.stdout.split()
        figures = dict(zip(words[0::2], words[1::2]))
        same = subprocess.run(["diff", "-r", after, copy], capture_output=True).returncode == 0
        return r.returncode, figures, same

    rc, write_ops, err = ops()
    kinds = [o.split("\t")[0] for o in write_ops]
    check("the write floor keeps only the writes and the journal commit", rc == 0 and "read" not in kinds
          and "list" not in kinds and kinds.count("open") == 3 and kinds.count("rename") == 1, f"{rc} {kinds} {err}")
    rc, figures, same = replay(write_ops)
    check("the write floor's replay leaves the tree as apply left it", rc == 0 and same, f"{rc} {figures}")
    check("the write floor reports its writes, its commit and no reads",
          figures.get("writes") == "2" and figures.get("commits") == "1" and figures.get("reads") == "0"
          and figures.get("failed") == "0", str(figures))
    check("the replay times itself", float(figures.get("replay_wall", -1)) >= 0 and "replay_cpu" in figures, str(figures))

    rc, io_ops, err = ops("--reads")
    kinds = [o.split("\t")[0] for o in io_ops]
    check("the I/O floor reads stat and status once each, lists task once, and reads the rewritten file's descriptor",
          rc == 0 and kinds.count("read") == 2 and kinds.count("list") == 1 and kinds.count("readfd") == 1,
          f"{rc} {kinds} {err}")
    check("the I/O floor reads a file at its first open, before it is rewritten",
          kinds.index("read") < kinds.index("readfd"), str(kinds))
    rc, figures, same = replay(io_ops)
    check("the I/O floor's replay leaves the tree as apply left it", rc == 0 and same, f"{rc} {figures}")
    check("the I/O floor reports its reads (two files and one descriptor) and its listing",
          figures.get("reads") == "3" and figures.get("lists") == "1" and figures.get("writes") == "2"
          and int(figures.get("read_bytes", 0)) > 0, str(figures))

    # A replay that cannot do an op fails with exit 1: a floor that skipped work would be too low.
    broken = io_ops + ["read\t" + "gone".encode().hex(), "nonsense\t1"]
    rc, figures, same = replay(broken)
    check("a read of a missing file and an unknown op make the replay fail, each counted",
          rc == 1 and figures.get("failed") == "2", f"{rc} {figures}")

    # The other two reads fail the same way: a listing of a missing directory, and a descriptor
    # that cannot be read (a directory opened as one, which pread refuses with EISDIR).
    broken = io_ops + ["list\t" + "gone".encode().hex(),
                       f"open\t99\t{os.O_RDONLY | os.O_DIRECTORY}\t0\t" + "proc".encode().hex(), "readfd\t99",
                       "close\t99"]
    rc, figures, same = replay(broken)
    check("a listing of a missing directory and an unreadable descriptor make the replay fail, each counted",
          rc == 1 and figures.get("failed") == "2", f"{rc} {figures}")

    rc, _, err = ops("--reads", tree, tree)
    check("write_floor_ops.py with two roots is refused with its usage", rc != 0 and "usage" in err, f"{rc} {err}")
finally:
    shutil.rmtree(work, ignore_errors=True)

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
