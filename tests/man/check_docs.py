#!/usr/bin/env python3
"""The man pages and the shell completions cannot drift from the binary and docs/profile.md.

Usage: check_docs.py RTAGENT_BINARY SOURCE_DIR BUILD_MAN_DIR [SUITE...]

Fails, listing each gap, when:
  - a subcommand `rtagent --help` lists (or a nested one, `bench pi`) has no section in
    rtagent(1), or an option its `--help` lists is not in that section;
  - the bash completion does not offer that subcommand or option (_rtagent_options), or the
    zsh completion does not name it;
  - a key of docs/profile.md's tables is not in rtagent-profile(5) (made from it at build time);
  - groff warns about one of the three pages, or a page's .TH version is not the project's;
  - an option whose --help lists its values ("Only one section: kernel, cmdline, ...", the
    binary's own table) is offered other values by a completion, or rtagent(1) lists others;
  - given the built-in suites' names (CMakeLists.txt's RTAGENT_BUILTIN_SUITES, the one list the
    binary is built from), checks/ holds another set of suite files, or checks/README.md, the
    man page's --suite and --preflight or a completion names other suites or another order.
"""
import pathlib
import re
import subprocess
import sys


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def subcommands(binary, path):
    """Names under 'Subcommands:' of `rtagent PATH... --help`."""
    out = run([binary] + path + ["--help"]).stdout
    names, in_subs = [], False
    for line in out.splitlines():
        if line.strip() == "Subcommands:":
            in_subs = True
            continue
        if in_subs:
            m = re.match(r"^  (\S+)", line)
            if m:
                names.append(m.group(1))
            elif line.strip() == "" or not line.startswith(" "):
                in_subs = False
    return names


def options(binary, path):
    """Long and short options under 'Options:' of `rtagent PATH... --help`, without --help."""
    out = run([binary] + path + ["--help"]).stdout
    opts = []
    for line in out.splitlines():
        m = re.match(r"^  (-[-\w,]+)", line)
        if m:
            for o in m.group(1).split(","):
                if o and o not in ("-h", "--help"):
                    opts.append(o)
    return opts


def man_section(page, title):
    """The text of `.SS "TITLE ...` up to the next .SS or .SH."""
    m = re.search(r'^\.SS "' + re.escape(title) + r'[ "].*?(?=^\.S[SH] )', page, re.S | re.M)
    return m.group(0) if m else None


def suite_gaps(src, names):
    """Where a suite name is written down outside CMakeLists.txt, the same names in the same order."""
    gaps = []
    files = sorted(p.stem for p in (src / "checks").glob("*.yaml"))
    if files != sorted(names):
        gaps.append(f"checks/ holds the suite files {files}, CMakeLists.txt's RTAGENT_BUILTIN_SUITES names {names}")
    readme = re.findall(r"^\| `([\w-]+)\.yaml` \|", (src / "checks/README.md").read_text(), re.M)
    if readme != names:
        gaps.append(f"checks/README.md's table lists {readme}, not {names}")
    page1 = (src / "docs/man/rtagent.1").read_text().replace("\n", " ")
    for said in [", ".join(names) + ", or a suite file", ", ".join(names) + ", a suite file, or none"]:
        if said not in page1:
            gaps.append(f"rtagent(1) does not say \"{said}\" of --suite / --preflight")
    bash = re.search(r'--suite \| --preflight\)\n\s*_rtagent_words "\$cur" ([\w ]+) \$\(', (src / "completions/rtagent.bash").read_text())
    if not bash or bash.group(1).split() != names:
        gaps.append(f"the bash completion of --suite offers {bash.group(1).split() if bash else None}, not {names}")
    zsh = re.findall(r"suites:suite:\(([\w ]+)\)", (src / "completions/_rtagent").read_text())
    if [z.split() for z in zsh] != [names, names + ["none"]]:
        gaps.append(f"the zsh completion's suites are {zsh}, not {names} (and, for --preflight, none)")
    return gaps


# Options whose --help says its values after a fixed phrase; the binary builds that list from its
# own table (inspect's sections, bench's groups), and the completions and rtagent(1) must agree.
VALUE_LISTS = [(["inspect"], "--section", "Only one section: "), (["bench"], "--only", "Only these groups: ")]


def value_list_gaps(binary, src):
    gaps = []
    bash = (src / "completions/rtagent.bash").read_text()
    zsh = (src / "completions/_rtagent").read_text()
    page1 = (src / "docs/man/rtagent.1").read_text().replace("\n", " ")
    for path, opt, phrase in VALUE_LISTS:
        out = run([binary] + path + ["--help"]).stdout
        m = re.search(re.escape(phrase) + r"([\w, -]+)", out)
        if not m:
            gaps.append(f"`rtagent {' '.join(path)} --help` does not say \"{phrase}...\" for {opt}")
            continue
        values = [v.strip() for v in m.group(1).split(",")]
        b = re.search(r"^\s*" + re.escape(opt) + r"\)\n\s*_rtagent_words \"\$cur\" ([\w ]+)\n", bash, re.M)
        if not b or b.group(1).split() != values:
            gaps.append(f"the bash completion of {opt} offers {b.group(1).split() if b else None}, not {values}")
        z = re.search(r"'" + re.escape(opt) + r"\[[^]]*\]:\w+:(?:\(|_values -s , \w+ )([\w ]+)", zsh)
        if not z or z.group(1).split() != values:
            gaps.append(f"the zsh completion of {opt} offers {z.group(1).split() if z else None}, not {values}")
        if phrase + ", ".join(values) not in page1:
            gaps.append(f"rtagent(1) does not say \"{phrase}{', '.join(values)}\" of {opt}")
    return gaps


def main():
    binary, src, man_dir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    suites = sys.argv[4:]
    gaps = suite_gaps(src, suites) if suites else []
    gaps += value_list_gaps(binary, src)
    page1 = (src / "docs/man/rtagent.1").read_text()
    bash = src / "completions/rtagent.bash"
    zsh = (src / "completions/_rtagent").read_text()

    def bash_options(where):
        r = run(["bash", "-c", 'source "$1"; _rtagent_options "$2"', "_", str(bash), where])
        return r.stdout.split()

    top = subcommands(binary, [])
    if len(top) < 10:
        gaps.append(f"`rtagent --help` listed only {top}: the parser of its output is wrong")
    bash_subs = re.search(r'local subcommands="([^"]*)"', bash.read_text())
    bash_subs = bash_subs.group(1).split() if bash_subs else []
    paths = [[s] for s in top]
    for s in top:
        if s != "help":  # `help` takes subcommand names, it has none of its own
            paths += [[s, n] for n in subcommands(binary, [s])]
    for path in paths:
        name = " ".join(path)
        section = man_section(page1, name.replace("-", "\\-"))
        if section is None:
            gaps.append(f"rtagent(1) has no section .SS \"{name} ...\" for the subcommand `rtagent {name}`")
        if len(path) == 1 and path[0] not in bash_subs:
            gaps.append(f"the bash completion's subcommand list lacks {name}")
        if len(path) == 1 and not re.search(r"'" + re.escape(path[0]) + r":", zsh):
            gaps.append(f"the zsh completion's subcommand list lacks {name}")
        offered = bash_options(name)
        for opt in options(binary, path):
            if section is not None and opt.replace("-", "\\-") not in section:
                gaps.append(f"rtagent(1), section {name}: option {opt} missing")
            if opt not in offered:
                gaps.append(f"bash completion of `rtagent {name} -`: option {opt} missing")
    for opt in options(binary, []):
        if opt.replace("-", "\\-") not in page1:
            gaps.append(f"rtagent(1): global option {opt} missing")

    # docs/profile.md's keys in rtagent-profile(5)
    page5 = (man_dir / "rtagent-profile.5").read_text()
    md = (src / "docs/profile.md").read_text()
    keys = re.findall(r"^\| `([^`]+)` \|", md, re.M)
    if len(keys) < 50:
        gaps.append(f"only {len(keys)} keys found in docs/profile.md's tables: the parser is wrong")
    for k in keys:
        if "\\fB" + k.replace("-", "\\-") + "\\fR" not in page5:
            gaps.append(f"rtagent-profile(5) lacks the key {k} of docs/profile.md")

    # groff's warnings, and the version each page names
    version = re.search(r"project\(rtagent VERSION ([0-9.]+)", (src / "CMakeLists.txt").read_text()).group(1)
    for page in [src / "docs/man/rtagent.1", man_dir / "rtagent-profile.5", src / "docs/man/rtagent.service.8"]:
        r = run(["groff", "-man", "-ww", "-z", "-Tutf8", str(page)])
        if r.returncode != 0 or r.stderr.strip():
            gaps.append(f"groff warns about {page.name}: {r.stderr.strip()}")
        th = re.search(r'^\.TH \S+ \d "[^"]*" "rtagent ([^"]+)"', page.read_text(), re.M)
        if not th or th.group(1) != version:
            gaps.append(f"{page.name}: .TH does not name rtagent {version}")

    if gaps:
        print("the man pages or completions drifted:")
        print("\n".join("  " + g for g in gaps))
        return 1
    print(f"rtagent(1) and the completions cover {len(paths)} subcommands; "
          f"rtagent-profile(5) holds all {len(keys)} keys of docs/profile.md; groff is quiet"
          + (f"; the suites {', '.join(suites)} are written the same everywhere" if suites else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
