#!/usr/bin/env python3
"""Compile time per translation unit, in CPU seconds, with the flags of the build and with a
variant, on the same machine in the same run (CPU time, not wall time: the machine is shared).

  usage: python3 bench/build_time.py [--build DIR] [--match REGEX] [--sample N]
                                     [--variant=-O2] [--variant="-O2 -g0"] ...

Reads DIR/compile_commands.json (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON), takes the
translation units whose file matches REGEX (default: every one), or an evenly spread sample of
N of them, and compiles each once as the build does and once per variant (its flags appended,
so they override the build type's), never through ccache. Prints a Markdown table for
docs/performance.md: per variant, the total CPU seconds and the ratio to the build's own flags.
"""
import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile


def cpu_seconds(argv, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"build_time: compiling failed: {shlex.join(argv)}\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--match", default=".")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--variant", action="append", default=[])
    args = ap.parse_args()
    path = os.path.join(args.build, "compile_commands.json")
    try:
        with open(path) as f:
            units = json.load(f)
    except OSError as e:
        sys.exit(f"build_time: {path}: {e.strerror}; configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    units = [u for u in units if re.search(args.match, u["file"])]
    if not units:
        sys.exit(f"build_time: no translation unit matches {args.match!r}")
    if args.sample and args.sample < len(units):
        step = len(units) / args.sample
        units = [units[int(i * step)] for i in range(args.sample)]
    variants = [""] + args.variant
    totals = [0.0] * len(variants)
    with tempfile.TemporaryDirectory() as out:
        for u in units:
            argv = shlex.split(u["command"]) if "command" in u else list(u["arguments"])
            if os.path.basename(argv[0]) == "ccache":
                argv = argv[1:]
            o = argv.index("-o")
            argv[o + 1] = os.path.join(out, "unit.o")
            for i, extra in enumerate(variants):
                totals[i] += cpu_seconds(argv + shlex.split(extra), u["directory"])
            print(f"  {os.path.relpath(u['file'])}", file=sys.stderr)
    print(f"{len(units)} translation units matching `{args.match}`, CPU seconds (user + system):\n")
    print("| flags | CPU s | ratio |")
    print("|---|---:|---:|")
    for extra, total in zip(variants, totals):
        print(f"| {extra or 'as built'} | {total:.1f} | {total / totals[0]:.2f} |")


if __name__ == "__main__":
    main()
