#!/usr/bin/env python3
"""Turns an strace of `rtagent apply --root ROOT` into the ops bench/write_floor.cc replays.

usage: write_floor_ops.py [--reads] ROOT < strace-log > ops
The trace must come from `strace -f -qq -y -xx -s 268435456 -e signal=none
-e trace=openat,write,pwrite64,ftruncate,fsync,fdatasync,close,rename,renameat,renameat2,mkdir,mkdirat,
rmdir,unlink,unlinkat`.
Only calls on files under ROOT are kept; an open is kept when its descriptor is later written
or fsynced (the journal directory's fsync included). A fixture file that apply reads and
rewrites through one descriptor (open O_RDWR, read, pwrite, ftruncate) is replayed with the
same calls, its read left out. Prints a summary on stderr.

With --reads the ops are apply's I/O floor instead: besides the writes, every file under ROOT
that apply opened for reading is read once, and every directory it listed is listed once, each
at the place of its first open in the trace; the read of a file apply rewrites through one
descriptor is kept (`readfd`), since a fixture file's write needs what it holds. So apply
against this floor is apply against the same reads and writes made once each: what it costs
beyond is reading a file twice, and its own planning and bookkeeping.
"""
import os
import re
import sys

FLAGS = {name: getattr(os, name) for name in dir(os) if name.startswith("O_") and isinstance(getattr(os, name), int)}
STR = r'"((?:\\x[0-9a-f]{2})*)"'
FD = r"(\d+)<((?:\\x[0-9a-f]{2})*)>"


def unhex(s):
    return bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", s))


def main():
    args = sys.argv[1:]
    reads = "--reads" in args
    args = [a for a in args if a != "--reads"]
    if len(args) != 1:
        sys.exit("usage: write_floor_ops.py [--reads] ROOT < strace-log > ops")
    root = os.path.realpath(args[0]).encode() + b"/"
    calls = []
    skipped = 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = re.match(r"^\d+\s+(\w+)\((.*)\) = (-?\d+)(?:<((?:\\x[0-9a-f]{2})*)>)?", line)
        if not m:
            skipped += "unfinished" in line or "resumed" in line
            continue
        name, args, ret = m.group(1), m.group(2), int(m.group(3))
        if ret < 0:
            continue
        calls.append((name, args, ret, m.group(4)))

    def rel(p):
        return p[len(root):] if p.startswith(root) else None

    # Pass 1: which opens matter (their fd is written or fsynced before it is closed).
    used, current = set(), {}
    for i, (name, args, ret, retpath) in enumerate(calls):
        if name == "openat":
            current[ret] = i
        elif name in ("write", "pwrite64", "fsync", "fdatasync"):
            fd = int(re.match(FD, args).group(1))
            if fd in current:
                used.add(current[fd])
    # Pass 2: the ops.
    out, ids, next_id, seen = [], {}, 0, set()
    for i, (name, args, ret, retpath) in enumerate(calls):
        if name == "openat":
            if i not in used and not reads:
                continue
            m = re.match(r"[^,]+, " + STR + r", ([A-Z_|]+)(?:, (0\d+))?", args)
            path = rel(unhex(retpath or m.group(1)))
            if path is None:
                continue
            words = m.group(2).split("|")
            if i not in used:
                # Read once: a listing (O_DIRECTORY) or a file's whole text, at its first open.
                kind = "list" if "O_DIRECTORY" in words else "read"
                if (kind, path) not in seen:
                    seen.add((kind, path))
                    out.append(f"{kind}\t{path.hex()}")
                continue
            flags = 0
            for f in words:
                flags |= FLAGS.get(f, 0)
            ids[ret] = str(next_id)
            out.append(f"open\t{next_id}\t{flags}\t{m.group(3) or '0'}\t{path.hex()}")
            if reads and "O_RDWR" in words:
                out.append(f"readfd\t{next_id}")
            next_id += 1
        elif name in ("write", "pwrite64", "ftruncate", "fsync", "fdatasync", "close"):
            m = re.match(FD, args)
            fd = int(m.group(1))
            if fd not in ids:
                continue
            if name in ("write", "pwrite64"):
                m = re.match(FD + r", " + STR + r"(\.\.\.)?(?:, \d+, (\d+))?", args)
                if m.group(4):
                    sys.exit("write_floor_ops: a write was cut short in the trace: raise strace's -s")
                data = unhex(m.group(3))
                if name == "pwrite64":
                    out.append(f"pwrite\t{ids[fd]}\t{m.group(5)}\t{data.hex()}")
                else:
                    out.append(f"write\t{ids[fd]}\t{data.hex()}")
            elif name == "ftruncate":
                out.append(f"truncate\t{ids[fd]}\t{int(args.rsplit(', ', 1)[1])}")
            elif name == "close":
                out.append(f"close\t{ids.pop(fd)}")
            else:
                out.append(f"fsync\t{ids[fd]}")
        elif name in ("rename", "renameat", "renameat2"):
            paths = [rel(unhex(s)) for s in re.findall(STR, args)]
            if len(paths) == 2 and None not in paths:
                out.append(f"rename\t{paths[0].hex()}\t{paths[1].hex()}")
        elif name in ("mkdir", "mkdirat", "rmdir", "unlink", "unlinkat"):
            m = re.search(STR + r"(?:, (0\d+))?", args)
            path = rel(unhex(m.group(1)))
            if path is None:
                continue
            op = {"mkdirat": "mkdir", "unlinkat": "unlink"}.get(name, name)
            if op == "unlink" and "AT_REMOVEDIR" in args:
                op = "rmdir"
            out.append(f"{op}\t{path.hex()}" + (f"\t{m.group(2) or '0755'}" if op == "mkdir" else ""))
    # Descriptors apply never closed (it exits): close them so the replay ends the same.
    for fd, i in ids.items():
        out.append(f"close\t{i}")
    print("\n".join(out))
    kinds = {}
    for o in out:
        kinds[o.split("\t")[0]] = kinds.get(o.split("\t")[0], 0) + 1
    print(("I/O floor ops: " if reads else "write floor ops: ") + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) +
          (f" ({skipped} interleaved lines skipped)" if skipped else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
