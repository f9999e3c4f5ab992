#!/usr/bin/env python3
"""Lists the C++ functions in src/ longer than a limit (80 lines by default).

Issue 18 asks for no function over about 80 lines that is not a straight-line renderer or a
numbered sequence of steps. This finds them by matching braces (good enough for this tree's
style: a function body opens with '{' at the end of its signature line and closes with a '}'
at the signature's indentation); strings, character literals and comments are blanked first
so a brace inside them does not count. *_test.cc files are skipped: a test case is a script.

A function that is long on purpose sits in ALLOWED below with a one-line reason; the script
fails (exit 1) when a function not on the list is over the limit, and also when a listed one
is gone or no longer long, so the list cannot go stale.

  tools/long_functions.py [--limit N] [--all] [--root DIR]
  tools/long_functions.py --self-test

--all prints every long function, allowed or not, with its length; --self-test runs the
finder on a small made-up tree (ctest runs both).
"""

import argparse
import os
import re
import sys
import tempfile

# file (relative to src/) and function name -> why it may stay long.
ALLOWED = {
    ("main.cc", "main"): "the subcommand table: one block of options per command, in help order",
    ("cli/commission_cmd.cc", "CmdCommission"): "numbered steps 1-7 of the loop; its guards (signals, --revert-after, "
    "the output directory) span the steps",
    ("report/svg.cc", "RenderSvg"): "straight-line renderer: axes, ticks, one line per CPU, the marks",
    ("bench/bench_svg.cc", "RenderBenchSvg"): "straight-line renderer: the bench chart, panel by panel",
    ("bench/bench_markdown.cc", "RenderBenchMarkdown"): "straight-line renderer: the warnings, how it measured, then the tables",
}

# A function's first line: a name followed by '(' and, at the end of the line or a later
# line, a '{' that opens its body. Control statements and lambdas are not functions.
NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "else", "do"}
NAME_RE = re.compile(r"([A-Za-z_~][A-Za-z0-9_:~<>]*)\s*\(")


def blank_literals(text):
    """Replaces the contents of strings, character literals and comments with spaces, keeping
    newlines, so brace counting sees only code."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = ")" + m.group(1) + '"'
                j = text.find(end, i + m.end())
                j = n if j < 0 else j + len(end)
                out.append(re.sub(r"[^\n]", " ", text[i:j]))
                i = j
            else:
                out.append(c)
                i += 1
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """Yields (name, first line, last line) of each top-level or namespace-level function or
    member function defined in `text` (C++ source with literals blanked)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        m = NAME_RE.search(stripped)
        starts = (m and not stripped.startswith(("#", "}", "return", "case ", ":", ".", "<<", "+", "&&", "||"))
                  and m.group(1).split("::")[-1] not in NOT_FUNCTIONS and "=" not in stripped[: m.start()])
        if starts:
            # Find the line with the body's '{' (the signature may wrap), stopping at ';'.
            j = i
            opened = None
            while j < len(lines) and j < i + 12:
                code = lines[j]
                if ";" in code and "{" not in code:
                    break
                if "{" in code and code.count("{") == code.count("}"):
                    break  # a body on one line: `int F() { return 1; }`, never long
                if code.rstrip().endswith("{"):
                    opened = j
                    break
                j += 1
            if opened is not None:
                depth = 0
                k = opened
                closed = None
                while k < len(lines):
                    depth += lines[k].count("{") - lines[k].count("}")
                    if depth <= 0:
                        closed = k
                        break
                    k += 1
                if closed is not None:
                    name = m.group(1)
                    yield name, i + 1, closed + 1
                    i = closed + 1
                    continue
        i += 1


def scan(root, limit):
    found = []
    src = os.path.join(root, "src")
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(".cc") or f.endswith("_test.cc"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8") as fh:
                text = blank_literals(fh.read())
            for name, first, last in functions(text):
                length = last - first + 1
                if length > limit:
                    found.append((rel, name.split("::")[-1], first, length))
    return sorted(found)


def self_test():
    """The finder on a made-up tree: a long function, one just short enough, braces in strings
    and comments, a wrapped signature, a member defined in a class, a long test file, and bodies
    on one line before a long namespace block."""
    body = "  x += 1;\n"
    files = {
        "a/long.cc": "namespace n {\nint Long(int x) {\n" + body * 80 + "  return x;\n}\n"
                     "int Short(int x) {\n" + body * 77 + "  return x;\n}\n}  // namespace n\n",
        "a/braces.cc": "std::string Braces(\n    int x) {\n  const char* s = \"{{{\";  // {\n  char c = '{';\n"
                       "  /* { */\n" + body * 80 + "  return s;\n}\nint After() {\n  return 0;\n}\n",
        "a/member.cc": "class K {\n public:\n  int M() const {\n" + body * 85 + "    return 0;\n  }\n};\n",
        "a/long_test.cc": "int Test() {\n" + body * 200 + "}\n",
        # Bodies on one line, then a namespace: the namespace is not taken for their body.
        "a/one_line.cc": "bool A() const { return true; }\nbool B() const { return false; }\nnamespace {\n"
                         + body * 85 + "}  // namespace\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            path = os.path.join(root, "src", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        found = [(rel, name, first, length) for rel, name, first, length in scan(root, 80)]
    expected = [("a/braces.cc", "Braces", 1, 87), ("a/long.cc", "Long", 2, 83), ("a/member.cc", "M", 3, 88)]
    if found != expected:
        print(f"self-test: found {found}, expected {expected}")
        return 1
    print("self-test: the finder sees the long functions and only them")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--all", action="store_true", help="list allowed ones too")
    ap.add_argument("--self-test", action="store_true", help="check the finder on a made-up tree")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    found = scan(args.root, args.limit)
    bad = 0
    seen = set()
    for rel, name, first, length in found:
        reason = ALLOWED.get((rel, name))
        seen.add((rel, name))
        if reason is None:
            bad += 1
            print(f"src/{rel}:{first}: {name} is {length} lines (over {args.limit}): split it into named steps, "
                  f"or add it to ALLOWED in tools/long_functions.py with the reason")
        elif args.all:
            print(f"src/{rel}:{first}: {name} is {length} lines, allowed: {reason}")
    for key, reason in sorted(ALLOWED.items()):
        if key not in seen:
            bad += 1
            print(f"tools/long_functions.py: ALLOWED lists src/{key[0]} {key[1]}, which is not over "
                  f"{args.limit} lines any more: remove its row")
    if bad == 0:
        print(f"no function over {args.limit} lines outside the allow-list ({len(found)} allowed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
