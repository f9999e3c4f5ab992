#!/usr/bin/env python3
"""Lists the places in src/ that make an error and that no test reached (docs/reliability.md,
"Error paths the tests reach").

An error path starts where the code builds an Error: a call of MakeError(...), an Error{...}
literal, one of the few file-local makers that wrap MakeError (ListError, CgError, ...), a
profile diagnostic (Diagnostics::Error, which names the file, line and key), or a plan finding
at warning or error level (what a tuner says instead of planning a value it cannot read). Each such statement in a product file (src/, test files and test-support headers left
out) is looked up in a gcovr JSON report of a --coverage build after the tests ran
(tools/coverage.sh makes both): the statement counts as reached when any executable line
between its first line and the line that ends it ran at least once.

  python3 tools/error_paths.py COVERAGE.json [--list] [--self-test]
    --list       print every unreached site (file:line and the statement's first line)
    --self-test  check the statement scanner on made-up text, then exit
Prints a table per folder and the total; exit 0 (the figures are a report, not a gate).
"""
import collections
import json
import os
import re
import sys

SITE = re.compile(r"\bMakeError\s*\(|\bError\s*\{|(\.|->)Error\s*\(|"
                  r"\b(ListError|CgError|LineError|ReadFailed|LoadError|Bad|Wrap|InvalidInput)\s*\(|"
                  r"Finding::Level::k(Error|Warning)\b")
# A level compared, not given: `f.level == Finding::Level::kError`, `case Finding::Level::kError:`.
COMPARE = re.compile(r"(==|!=|\bcase)\s*Finding::Level::k\w+")
# A declaration or definition of one of those makers, not a use.
MAKER = re.compile(r"^\s*((static|inline)\s+)?(Error|void)\s+(\w+::)?(MakeError|Error|ListError|CgError|LineError|"
                   r"ReadFailed|LoadError|Bad|Wrap|InvalidInput)\s*\(")
SKIP_FILE = re.compile(r"(_test\.cc|_test_support\.h)$")


def strip_comment(line):
    """The line without a // comment (a // inside a string literal is kept)."""
    out, in_str, i = [], False, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and in_str:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == '"':
            in_str = not in_str
        elif not in_str and line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


def sites(text):
    """(first line, last line, first line's text) of each statement that builds an Error.

    The statement ends at the first ';' at bracket depth zero after the match, or at a '{' that
    opens a block when the match sat in a condition; line numbers are 1-based."""
    lines = text.split("\n")
    found = []
    for n, raw in enumerate(lines):
        line = strip_comment(raw)
        if not SITE.search(line) or line.lstrip().startswith(("#", "*", "///")):
            continue
        if MAKER.search(line) or COMPARE.search(line) and not SITE.search(COMPARE.sub("", line)):
            continue
        depth, end = 0, None
        for m in range(n, min(n + 40, len(lines))):
            for c in strip_comment(lines[m]):
                if c in "([{":
                    depth += 1
                elif c in ")]}":
                    depth -= 1
                elif c == ";" and depth <= 0:
                    end = m
                    break
            if end is not None:
                break
        found.append((n + 1, (end if end is not None else n) + 1, raw.strip()))
    return found


def report(cov_path, list_all):
    with open(cov_path) as f:
        cov = json.load(f)
    counts = {}
    for entry in cov["files"]:
        counts[os.path.normpath(entry["file"])] = {
            ln["line_number"]: ln["count"] for ln in entry["lines"] if not ln.get("gcovr/noncode")}
    per_folder = collections.defaultdict(lambda: [0, 0])
    unreached = []
    root = "src"
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.normpath(os.path.join(dirpath, name))
            if not name.endswith((".cc", ".h")) or SKIP_FILE.search(name):
                continue
            with open(path, encoding="utf-8") as f:
                found = sites(f.read())
            if not found:
                continue
            lines = counts.get(path, {})
            folder = os.path.relpath(dirpath, root).split(os.sep)[0]
            for first, last, text in found:
                executable = [lines[n] for n in range(first, last + 1) if n in lines]
                if not executable:
                    continue  # no code of its own (a constant, a header never compiled in)
                per_folder[folder][0] += 1
                if any(c > 0 for c in executable):
                    per_folder[folder][1] += 1
                else:
                    unreached.append((path, first, text))
    total = [sum(v[0] for v in per_folder.values()), sum(v[1] for v in per_folder.values())]
    print("| folder | error sites | reached by a test | not reached |")
    print("|---|---:|---:|---:|")
    for folder in sorted(per_folder):
        sites_n, hit = per_folder[folder]
        print(f"| {folder} | {sites_n} | {hit} | {sites_n - hit} |")
    print(f"| **all** | **{total[0]}** | **{total[1]}** ({100 * total[1] / max(total[0], 1):.0f} %) | **{total[0] - total[1]}** |")
    if list_all:
        print()
        for path, line, text in sorted(unreached):
            print(f"{path}:{line}: {text}")


def self_test():
    text = "\n".join([
        'Error MakeError(std::string message, int err) {',   # 1: the definition, not a site
        '  // return MakeError("a comment");',                # 2: a comment
        '  if (!ok) return MakeError("one line");',            # 3: one line
        '  return MakeError("two " + x,',                      # 4: two lines ...
        '                   errno);',                          # 5
        '  auto e = Error{"brace; inside", 0};',               # 6: ';' in a string at depth 1
        '  f("MakeError(");',                                  # 7: the name in a string still counts
        'void Diagnostics::Error(const SourceMark& m) {',      # 8: a maker's definition
        '  d_->Error(mark, "bad", "hint");',                   # 9: a diagnostic
        '  x.error();',                                        # 10: reading an error is no site
        '  plan.findings.push_back({Finding::Level::kError,',  # 11: a finding ...
        '                           "x cannot be read", m});', # 12
        '  if (f.level == Finding::Level::kInfo) continue;',   # 13: an info level is no site
        '  return f.level == Finding::Level::kError ? 1 : 0;', # 14: a comparison is no site
        '    case Finding::Level::kWarning: return "w";',      # 15: nor a case label
        'inline Error Wrap(std::string p, const Error& e) {',  # 16: an inline maker's definition
        '  if (!r) return Wrap("words: ", r.error());',        # 17: a use of it
    ])
    got = [(a, b) for a, b, _ in sites(text)]
    want = [(3, 3), (4, 5), (6, 6), (7, 7), (9, 9), (11, 12), (17, 17)]
    assert got == want, f"sites: {got} != {want}"
    assert strip_comment('a("//x"); // y') == 'a("//x"); ', strip_comment('a("//x"); // y')
    print("error_paths self-test: ok")


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        self_test()
        sys.exit(0)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    report(args[0], "--list" in sys.argv)
