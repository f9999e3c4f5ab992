#!/usr/bin/env python3
"""Makes rtagent-profile(5) from docs/profile.md, so the man page and the reference cannot drift.

Usage: man_profile.py docs/profile.md VERSION OUT.5

It knows the Markdown docs/profile.md uses and nothing more: headings (## a section, ### a
subsection), paragraphs, fenced code blocks, "- " lists and pipe tables. A table row becomes a
tagged paragraph: the first column (the key) as the tag, the type and default on the next
line, then the meaning and any further column ("kernel interface: ..."). Inline `code` and
**bold** become bold; a link keeps its text and its target in brackets.
"""
import re
import sys


def inline(text):
    """Markdown inline text to roff: escapes first, then `code`, **bold**, [text](link)."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", text)

    def code(m):
        return "\\fB" + m.group(1).replace("-", "\\-") + "\\fR"

    text = re.sub(r"`([^`]+)`", code, text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    return text


def line_out(text):
    """A text line that roff must not read as a request (leading '.' or ')."""
    if text.startswith(".") or text.startswith("'"):
        return "\\&" + text
    return text


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    # A '|' inside `code` (`a|b`) is not a column break.
    out, cur, in_code = [], "", False
    for ch in row:
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def render_table(rows, out):
    header = [h.lower() for h in cells(rows[0])]
    for row in rows[2:]:
        c = cells(row)
        c += [""] * (len(header) - len(c))
        out.append(".TP")
        out.append(line_out(inline(c[0])))
        rest = []
        for name, value in zip(header[1:], c[1:]):
            if not value:
                continue
            if name == "meaning":
                rest.append(value)
            else:
                rest.append(name + ": " + value)
        # type and default first, on their own line, then the meaning, then the rest
        lead = [r for r in rest if r.startswith("type: ") or r.startswith("default: ")]
        body = [r for r in rest if r not in lead]
        if lead:
            out.append(line_out(inline("; ".join(lead))))
            if body:
                out.append(".br")
        for b in body:
            out.append(line_out(inline(b)))
            if b is not body[-1]:
                out.append(".br")


def convert(md, version):
    out = [
        '.TH RTAGENT\\-PROFILE 5 "" "rtagent %s" "rtagent manual"' % version,
        ".\\\" Generated from docs/profile.md by tools/man_profile.py: edit those, not this.",
        ".SH NAME",
        "rtagent\\-profile \\- the rtagent profile language",
        ".SH SYNOPSIS",
        "/etc/rtagent/profile.yaml, /etc/rtagent/profiles/\\fINAME\\fR.yaml,",
        "/usr/share/rtagent/profiles/\\fINAME\\fR.yaml",
        ".SH DESCRIPTION",
    ]
    lines = md.splitlines()
    i = 0
    para = []

    def flush():
        if para:
            out.append(".PP")
            for p in para:
                out.append(line_out(inline(p)))
            para.clear()

    first_heading = True
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("```"):
            flush()
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_out(lines[i].replace("\\", "\\e").replace("-", "\\-")))
                i += 1
            out.append(".fi")
            out.append(".RE")
            i += 1
            continue
        if ln.startswith("# "):
            flush()
            if not first_heading:
                out.append(".SH " + inline(ln[2:]).upper())
            first_heading = False
        elif ln.startswith("## "):
            flush()
            out.append(".SH " + inline(ln[3:]).upper())
        elif ln.startswith("### ") or ln.startswith("#### "):
            flush()
            out.append(".SS " + inline(ln.lstrip("#").strip()))
        elif ln.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            render_table(rows, out)
            continue
        elif re.match(r"^\s*([-*]|\d+\.) ", ln):
            flush()
            num = re.match(r"^\s*(\d+)\. ", ln)
            item = [re.sub(r"^\s*([-*]|\d+\.) ", "", ln)]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out.append(".IP %s" % (num.group(1) + ". 4" if num else "\\(bu 2"))
            for p in item:
                out.append(line_out(inline(p)))
            continue
        elif ln.startswith("    ") and not para:
            # an indented block after a blank line: literal text
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                if lines[i].strip() or (i + 1 < len(lines) and lines[i + 1].startswith("    ")):
                    out.append(line_out(lines[i][4:].replace("\\", "\\e").replace("-", "\\-")))
                i += 1
            out.append(".fi")
            out.append(".RE")
            continue
        elif not ln.strip():
            flush()
        else:
            para.append(ln.strip())
        i += 1
    flush()
    out += [
        ".SH SEE ALSO",
        "\\fBrtagent\\fR(1), \\fBrtagent.service\\fR(8)",
    ]
    text = "\n".join(out) + "\n"
    # Non-ASCII (µ, the em dash, arrows) as groff's Unicode escapes: the page reads the same
    # whatever the input encoding man(1) assumes.
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: man_profile.py docs/profile.md VERSION OUT.5\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        md = f.read()
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(convert(md, sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
