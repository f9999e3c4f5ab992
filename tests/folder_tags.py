#!/usr/bin/env python3
"""Every test case carries the tag of its folder under src/ ("[tune]" for src/tune/x_test.cc),
so `rtagent_tests "[tune]"` selects all of a folder's cases; and no case's name holds a ';' or
starts with '-' (catch_discover_tests splits a name at ';' into ctest entries that match
nothing, and passes a leading '-' to Catch as an option). Fails listing each offending case."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
# TEST_CASE( "name" ["more name"...] , "[tags]" ) — names may be split over lines.
case = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+),\s*"([^"]*)"', re.S)
missing = []
count = 0
for path in sorted(root.glob("src/*/*_test.cc")):
    folder = path.parent.name
    text = path.read_text(encoding="utf-8")
    for m in case.finditer(text):
        count += 1
        name = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        if ";" in name or name.startswith("-"):
            line = text.count("\n", 0, m.start()) + 1
            missing.append(f"{path.relative_to(root)}:{line}: the name '{name}' holds ';' or starts with '-'")
        if f"[{folder}]" not in m.group(2):
            line = text.count("\n", 0, m.start()) + 1
            missing.append(f"{path.relative_to(root)}:{line}: {m.group(2) or '(no tags)'} lacks [{folder}]")
    # A TEST_CASE without tags at all would not match above: count the spellings too.
    bare = len(re.findall(r"\bTEST_CASE\(", text)) - len(case.findall(text))
    if bare:
        missing.append(f"{path.relative_to(root)}: {bare} test case(s) without a tag string")
if missing:
    print("test cases without their folder tag, or with a name ctest cannot run:")
    print("\n".join(missing))
    sys.exit(1)
print(f"all {count} test cases carry their folder tag")
