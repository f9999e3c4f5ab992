#!/usr/bin/env python3
"""Unity groups for CMake (CMakeLists.txt, RTAGENT_UNITY; docs/performance.md "Build time").

  usage: python3 tools/unity_groups.py --max N --prefix NAME [--any-folder] FILE...

Prints one line per file, "GROUP|FILE", for the files that may share a translation unit, in
groups of at most N. Two files go to different groups when one defines a name where a unity
build would show it to the other (at namespace scope inside an anonymous namespace, `static` or
`constexpr` at namespace scope, or a macro) and the other defines or merely uses that word (the
first file's name would hide the one the second means). A word a file "uses" includes every name
the project's headers it includes (directly or through other project headers) declare at
namespace scope: a neighbour that includes `tune/change.h` sees `enum class Compare`, so a file
defining `Compare` in an anonymous namespace must not share its group, even when neither file
writes the word. Nor may a neighbour's headers declare a word a file writes in a second
namespace that file sees unqualified (its own namespaces and those around them, and its `using
namespace` targets), when one of the two is not a function: the test helper
`rtagent::check::testing::Load` and the class `rtagent::Load` are ambiguous in a file that sees
both, though it compiled alone (functions of one name are overloads, and a word the file's own
headers already declare twice it must be writing qualified). A file-scope `using namespace`
directive reaches every file after it in the group, so the members' directives must form a
chain: each file's set contains the sets of the files before it (a file with none, then files
with `using namespace rtagent;`, then files that add `using namespace rtagent::test;`), and the
group lists them in that order; a file never sees
a directive it does not write itself. Two files whose sets are not in one chain never share a
group. Files share a group only within one folder, unless --any-folder (the test binary, whose
files are many small ones spread over every folder). A file that fits no group gets one of its own. The parse is lexical (comments, strings
and preprocessor lines removed, braces counted), which is what these files need; if a build
still reports a redefinition in a BUILD/unity/*.cc file (CMakeLists.txt writes one per group,
at configure time, and again when a source changes), teach the rule the case or name the file in
ALONE below.
"""
import argparse
import collections
import re
import sys

# Files that compile on their own whatever their names. test_main.cc defines CATCH_CONFIG_RUNNER
# before it includes Catch2 (the header then compiles Catch2's main): after another test file's
# include of the same header it would get nothing. kernel_paths.cc defines RTAGENT_KPATH_DEFINE
# before it includes base/kernel_paths.h, for the same reason.
ALONE = {"test_main.cc", "kernel_paths.cc"}

KEYWORDS = set("const constexpr static inline struct class enum using typename template return "
               "auto void int bool char long unsigned double float operator namespace extern".split())


def strip(src):
    """The text without comments, string and character literals (kept as empty ones) and
    preprocessor lines; the macros the file #defines are returned beside it."""
    out, macros, i, n = [], set(), 0, len(src)
    at_line_start = True
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
            continue
        raw = re.match(r'R"([^(\s]*)\(', src[i:i + 24])
        if raw and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            end = ")" + raw.group(1) + '"'
            j = src.find(end, i + raw.end())
            i = n if j < 0 else j + len(end)
            out.append('""')
            at_line_start = False
            continue
        if c == '"' or (c == "'" and not (i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_"))):
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            out.append(c + c)
            at_line_start = False
            continue
        if c == "#" and at_line_start:
            j = i
            while True:
                k = src.find("\n", j)
                if k < 0:
                    k = n
                    break
                if src[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            m = re.match(r"#\s*define\s+(\w+)", src[i:k])
            if m:
                macros.add(m.group(1))
            i = k
            continue
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        out.append(c)
        i += 1
    return "".join(out), macros


def declared_name(stmt, anonymous):
    """The name a namespace-scope statement declares, when a unity build could see it twice."""
    found = declared(stmt, anonymous)
    return found[0] if found else None


def declared(stmt, anonymous):
    """(name, kind) of what a namespace-scope statement declares, kind "type" (a class, an enum,
    an alias), "function" or "variable"; None when a unity build could not see it twice."""
    if not stmt or stmt.startswith("using namespace"):
        return None
    if not anonymous and not re.match(r"(template ?<.*?> ?)?(static|constexpr)\b", stmt):
        return None
    stmt = re.sub(r"^template ?<.*?> ?", "", stmt)
    m = re.match(r"(?:struct|class|enum(?: class)?|union) (\w+)", stmt)
    if m:
        return m.group(1), "type"
    m = re.match(r"using (\w+) ?=", stmt)
    if m:
        return m.group(1), "type"
    if re.match(r"(TEST_CASE|SCENARIO|CATCH_|METHOD_AS_TEST_CASE)", stmt):
        return None
    m = re.match(r"namespace (\w+) ?=", stmt)
    if m:
        return None  # an alias: the same alias twice is allowed
    m = re.match(r"([^(=\[{]*?)(\w+) ?(\(|=|\[|\{|$)", stmt)
    if m and m.group(2) not in KEYWORDS:
        return m.group(2), "function" if m.group(3) == "(" else "variable"
    return None


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path, roots):
    """The project headers a file includes (quoted #include lines that resolve to a file)."""
    import os
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    found = []
    for inc in INCLUDE.findall(raw):
        for base in [os.path.dirname(path)] + roots:
            cand = os.path.normpath(os.path.join(base, inc))
            if os.path.isfile(cand):
                found.append(cand)
                break
    return found


def header_decls(path, roots, cache):
    """What a project header and the project headers it includes declare at namespace scope:
    {name: {(namespace, kind)}}, namespace as "rtagent::test" ("" the global one)."""
    if path in cache:
        return cache[path]
    cache[path] = {}  # include cycles end here
    decls = collections.defaultdict(set)
    for ns, name, kind in scoped_declarations(path):
        decls[name].add((ns, kind))
    for inc in includes(path, roots):
        for name, where in header_decls(inc, roots, cache).items():
            decls[name] |= where
    cache[path] = dict(decls)
    return cache[path]


class Unit:
    """What grouping needs to know of one file."""

    def __init__(self, path, roots=(), cache=None):
        self.path = path
        self.names, self.usings, self.words = declarations(path)
        self.written = set(self.words)  # the words of its own text
        self.decls = collections.defaultdict(set)  # {name: {(namespace, kind)}} of its headers
        for inc in includes(path, list(roots)):
            for name, where in header_decls(inc, list(roots), {} if cache is None else cache).items():
                self.decls[name] |= where
        self.words |= set(self.decls)
        self.visible = visible_namespaces(path, self.usings)

    def ambiguous(self, decls):
        """The words this file writes that `decls` (its neighbours' headers and its own) declare
        in two namespaces it sees unqualified, at least one of them not a function (functions
        of one name in two namespaces are overloads; a class beside a function is ambiguous), when
        its own headers alone did not."""
        found = set()
        for name in self.written & set(decls):
            if len(decls[name]) < 2:
                continue
            seen = {(ns, kind) for ns, kind in decls[name] if ns in self.visible}
            own = {(ns, kind) for ns, kind in self.decls.get(name, ()) if ns in self.visible}
            if clash(seen) and not clash(own):
                found.add(name)
        return found


def clash(where):
    return len({ns for ns, _ in where}) > 1 and any(kind != "function" for _, kind in where)


def visible_namespaces(path, usings):
    """The namespaces whose names a file may write unqualified: the global one, each namespace
    it opens and those around it, and the targets of its `using namespace` directives (also read
    as nested in each namespace it opens, where such a directive may stand)."""
    opened = {ns for ns, _, _ in scoped_declarations(path, opened=True)}
    visible = {""}
    for ns in opened:
        parts = ns.split("::") if ns else []
        visible |= {"::".join(parts[:i]) for i in range(len(parts) + 1)}
    for u in usings:
        target = u[len("using namespace"):].strip().lstrip(":")
        visible.add(target)
        visible |= {ns + "::" + target for ns in opened if ns}
    return visible


def statements(text):
    """Each statement of a stripped text: (the scopes around it, innermost last, each "anon", a
    namespace's name or "other"; its text; the character that ended it: "{", "}" or ";")."""
    stack, stmt = [], []
    for c in text:
        if c in "{};":
            st = re.sub(r"\s+", " ", "".join(stmt)).strip()
            stmt = []
            yield list(stack), st, c
            if c == "{":
                m = re.fullmatch(r"(?:inline )?namespace ?([\w:]*)", st)
                stack.append(("anon" if m.group(1) == "" else "ns:" + m.group(1)) if m else "other")
            elif c == "}" and stack:
                stack.pop()
        else:
            stmt.append(c)


def declarations(path, everything=False):
    """A file's names (those a neighbour could see twice; every namespace-scope declaration
    when `everything`), its file-scope `using namespace` directives and the words it uses."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text, names = strip(f.read())
    usings = set()
    for stack, st, c in statements(text):
        if c == "}" or any(k == "other" for k in stack):
            continue
        if c == "{" and re.fullmatch(r"(?:inline )?namespace ?([\w:]*)", st):
            continue
        if c == ";" and st.startswith("using namespace"):
            usings.add(st)
        name = declared_name(st, everything or "anon" in stack)
        if name:
            names.add(name)
    tokens = set(re.findall(r"[A-Za-z_]\w*", text))
    return names, frozenset(usings), tokens


def scoped_declarations(path, opened=False):
    """Every namespace-scope declaration of a file as (namespace, name, kind); with `opened`,
    one (namespace, None, None) for each namespace the file opens instead."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text, _ = strip(f.read())
    found = []
    for stack, st, c in statements(text):
        if c == "}" or any(k == "other" for k in stack):
            continue
        ns = "::".join(k[3:] for k in stack if k.startswith("ns:"))
        if opened:
            if ns:
                found.append((ns, None, None))
            continue
        if c == "{" and re.fullmatch(r"(?:inline )?namespace ?([\w:]*)", st):
            continue
        what = declared(st, True)
        if what:
            found.append((ns, what[0], what[1]))
    return found


SELF_TEST = {
    # Two helpers of the same name in anonymous namespaces: never together.
    "a/one.cc": "namespace rtagent {\nnamespace {\nint Helper() { return 1; }\n}  // namespace\n}\n",
    "a/two.cc": "namespace rtagent {\nnamespace {\nint Helper() { return 2; }\n}\n}\n",
    # Uses a public Helper from an enclosing namespace: one.cc's would hide it.
    "a/three.cc": "namespace rtagent {\nint Use() { return Helper(); }\n}\n",
    # Nothing in common with one.cc: together.
    "a/four.cc": "// Helper in a comment, \"Helper\" in a string\nnamespace rtagent {\nnamespace {\n"
                 "constexpr const char* kText = R\"x(Helper)x\";\n}\nint Four() { return 4; }\n}\n",
    # A file-scope using-directive: after the files without one (it would reach them otherwise),
    # before a file whose directives contain it, never with a file of another directive.
    "a/five.cc": "using namespace rtagent;\nint Five() { return 5; }\n",
    "a/twelve.cc": "using namespace other;\nint Twelve() { return 12; }\n",
    "a/thirteen.cc": "using namespace rtagent;\nusing namespace rtagent::test;\nint Thirteen() { return 13; }\n",
    # Catch2's runner: always alone (ALONE).
    "a/test_main.cc": "#define CATCH_CONFIG_RUNNER\nint Main() { return 0; }\n",
    # The same macro defined twice: never together.
    "a/six.cc": "#define RTAGENT_X 1\nint Six() { return RTAGENT_X; }\n",
    "a/seven.cc": "#define RTAGENT_X 2\nint Seven() { return RTAGENT_X; }\n",
    # Another folder: another group.
    "b/eight.cc": "int Eight() { return 8; }\n",
    # A header declaring Compare, reached through another header; a file defining its own
    # Compare in an anonymous namespace must stay apart from every file that includes it,
    # even one that never writes the word (bench_cmd.cc and tune/change.h, 2026-12-03).
    "inc/c/change.h": "namespace rtagent {\nenum class Compare { kEq };\nint Plan(int);\n}\n",
    "inc/c/step.h": "#include \"c/change.h\"\nnamespace rtagent { struct Step { int x; }; }\n",
    "c/nine.cc": "namespace rtagent {\nnamespace {\nint Compare(int o) { return o; }\n}\n"
                 "int Nine() { return Compare(9); }\n}\n",
    "c/ten.cc": "#include \"c/step.h\"\nnamespace rtagent {\nint Ten() { return Step{10}.x; }\n}\n",
    # Includes nothing that declares Compare: may join nine.cc.
    "c/eleven.cc": "namespace rtagent {\nint Eleven() { return 11; }\n}\n",
    # A test helper rtagent::test::Load beside the class rtagent::Load: a file that writes Load
    # with both namespaces in sight compiles alone, and not after a neighbour's include of the
    # class (check_test_support.h and latency/load.h, 2026-12-06). The same helper in both, or
    # functions of one name in two namespaces (overloads), are no clash.
    "inc/d/load.h": "namespace rtagent {\nclass Load { public: int x; };\nint Parse(int);\n}\n",
    "inc/d/support.h": "namespace rtagent::test {\ninline int Load(int x) { return x; }\n"
                       "int Parse(const char*);\n}\n",
    "d/fourteen.cc": "#include \"d/support.h\"\nusing namespace rtagent;\nusing namespace rtagent::test;\n"
                     "int Fourteen() { return Load(14) + Parse(\"x\"); }\n",
    "d/fifteen.cc": "#include \"d/load.h\"\nusing namespace rtagent;\nusing namespace rtagent::test;\n"
                    "int Fifteen() { return Parse(15); }\n",
    "d/sixteen.cc": "#include \"d/support.h\"\nusing namespace rtagent;\nusing namespace rtagent::test;\n"
                    "int Sixteen() { return Load(16); }\n",
    # Sees only rtagent: the helper's namespace is not in sight, so no clash with fifteen.cc.
    "d/seventeen.cc": "#include \"d/load.h\"\nusing namespace rtagent;\nint Seventeen() { return Load{17}.x; }\n",
    # Sees both, writes Load only qualified: compiles alone, and beside fifteen.cc.
    "d/eighteen.cc": "#include \"d/load.h\"\n#include \"d/support.h\"\nusing namespace rtagent;\n"
                     "using namespace rtagent::test;\nint Eighteen() { return rtagent::Load{18}.x; }\n",
    # Includes the helper but sees only rtagent: rtagent::test::Load is not in sight of its Load.
    "d/twentytwo.cc": "#include \"d/support.h\"\nusing namespace rtagent;\n"
                      "int TwentyTwo() { return rtagent::test::Load(22); }\n",
    # Overloads only: Parse(int) and Parse(const char*) in two namespaces, nothing else shared.
    "e/nineteen.cc": "#include \"d/load.h\"\nusing namespace rtagent;\nusing namespace rtagent::test;\n"
                     "int Nineteen() { return Parse(19); }\n",
    "inc/e/parse.h": "namespace rtagent::test {\nint Parse(const char*);\n}\n",
    "e/twenty.cc": "#include \"e/parse.h\"\nusing namespace rtagent;\nusing namespace rtagent::test;\n"
                   "int Twenty() { return Parse(\"20\"); }\n",
}


def self_test():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for rel, text in SELF_TEST.items():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            if path.endswith(".cc"):
                paths.append(path)
        rows = grouped(paths, 8, "t", (os.path.join(d, "inc"),))
        group_of = {os.path.relpath(p, d): g for g, p in (row.split("|") for row in rows)}
        order = [os.path.relpath(row.split("|")[1], d) for row in rows]
        alone = lambda f: group_of.get(f)  # noqa: E731
        failures = []
        def apart(x, y):
            if alone(x) is not None and alone(x) == alone(y):
                failures.append(f"{x} and {y} share {alone(x)}")
        def together(x, y):
            if alone(x) is None or alone(x) != alone(y):
                failures.append(f"{x} and {y} should share a group: {alone(x)} / {alone(y)}")
        apart("a/one.cc", "a/two.cc")
        apart("a/one.cc", "a/three.cc")
        together("a/one.cc", "a/four.cc")
        together("a/four.cc", "a/five.cc")
        together("a/five.cc", "a/thirteen.cc")
        apart("a/five.cc", "a/twelve.cc")
        apart("a/thirteen.cc", "a/twelve.cc")
        if alone("a/five.cc") == alone("a/four.cc") == alone("a/thirteen.cc") and not (
                order.index("a/four.cc") < order.index("a/five.cc") < order.index("a/thirteen.cc")):
            failures.append(f"the directives' chain is out of order: {order}")
        if alone("a/test_main.cc") is not None:
            failures.append("a/test_main.cc shares a group: Catch2's runner must compile alone")
        apart("a/six.cc", "a/seven.cc")
        apart("a/one.cc", "b/eight.cc")
        apart("c/nine.cc", "c/ten.cc")
        together("c/nine.cc", "c/eleven.cc")
        apart("d/fourteen.cc", "d/fifteen.cc")
        apart("d/sixteen.cc", "d/fifteen.cc")
        together("d/fourteen.cc", "d/sixteen.cc")
        together("d/fifteen.cc", "d/seventeen.cc")
        together("e/nineteen.cc", "e/twenty.cc")
        together("d/eighteen.cc", "d/fifteen.cc")
        together("d/fifteen.cc", "d/twentytwo.cc")
        if alone("b/eight.cc") is not None:
            failures.append("b/eight.cc is alone in its folder: it needs no group")
        # --any-folder: eight joins a group of another folder; the rules still hold across folders.
        anywhere = grouped(paths, 8, "t", (os.path.join(d, "inc"),), any_folder=True)
        group_of = {os.path.relpath(p, d): g for g, p in (row.split("|") for row in anywhere)}
        if alone("b/eight.cc") is None:
            failures.append("--any-folder: b/eight.cc is still alone")
        apart("c/nine.cc", "c/ten.cc")
        apart("a/one.cc", "a/two.cc")
        apart("a/five.cc", "a/twelve.cc")
        for f in failures:
            print("unity_groups self-test: FAIL:", f)
        print("unity_groups self-test:", "FAILED" if failures else "ok", group_of)
        return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=8)
    ap.add_argument("--prefix", default="u")
    ap.add_argument("--include", action="append", default=None,
                    help="a folder quoted #includes resolve in (default: src)")
    ap.add_argument("--any-folder", action="store_true",
                    help="files of different folders may share a group")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    for row in grouped(args.files, args.max, args.prefix, tuple(args.include or ["src"]), args.any_folder):
        print(row)
    return 0


def grouped(files, max_files, prefix, roots=("src",), any_folder=False):
    # A file's own names must not be defined by a neighbour, nor be a word a neighbour uses
    # (its name would hide the one that neighbour means, from an enclosing namespace). Nor may
    # a neighbour's headers declare, in another namespace the file also sees, a word it uses:
    # rtagent::test::Load (a test helper) beside the class rtagent::Load, both reached through
    # `using namespace`, is ambiguous in a file that compiled alone.
    groups = []  # [names, words, folder, members as (usings, path), units, decls]
    header_cache = {}
    for path in sorted(files):
        if path.rsplit("/", 1)[-1] in ALONE:
            continue
        unit = Unit(path, roots, header_cache)
        names, usings, words = unit.names, unit.usings, unit.words
        folder = path.rsplit("/", 1)[0]
        for g in groups:
            if ((any_folder or g[2] == folder) and len(g[3]) < max_files
                    and all(u <= usings or usings <= u for u, _ in g[3])
                    and not (g[0] & names) and not (g[0] & words) and not (names & g[1])
                    and not sees_ambiguity(unit, g[4], g[5])):
                g[0] |= names
                g[1] |= words
                g[3].append((usings, path))
                g[4].append(unit)
                for name, where in unit.decls.items():
                    g[5][name] |= where
                break
        else:
            decls = collections.defaultdict(set)
            for name, where in unit.decls.items():
                decls[name] |= where
            groups.append([set(names), set(words), folder, [(usings, path)], [unit], decls])
    count = collections.Counter()
    rows = []
    for g in groups:
        if len(g[3]) < 2:
            continue
        count[g[2]] += 1
        name = f"{prefix}_{g[2].rsplit('/', 1)[-1]}_{count[g[2]]}"
        # The chain's order: sets of one size in a chain are equal, so by size is by inclusion.
        rows += [f"{name}|{path}" for _, path in sorted(g[3], key=lambda m: len(m[0]))]
    return rows


def sees_ambiguity(unit, members, decls):
    """True when `unit` joining `members` (whose headers declare `decls`) would make a word one
    of them writes ambiguous (Unit.ambiguous), in either direction."""
    merged = {name: set(where) for name, where in decls.items() if name in unit.decls}
    for name, where in unit.decls.items():
        merged.setdefault(name, set()).update(where)
    candidates = {name: where for name, where in merged.items() if clash(where)}
    if not candidates:
        return False
    return any(u.ambiguous(candidates) for u in [unit] + members)

if __name__ == "__main__":
    sys.exit(main())
