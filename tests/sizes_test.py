#!/usr/bin/env python3
"""Sizes in src/ (tests aside): no file over 500 lines, no function over 60 (issue 35), but
for the exceptions listed in tests/sizes_allowed.txt, each at most as long as listed there.
A new long file or function, or a listed one grown, fails; one listed that is now within the
limits is reported, to be taken off the list.

A function is a definition that starts at column 0 (a line with '(' that is not a comment,
a preprocessor line or a declaration) and ends at the first '}' at column 0 after it: the
style of src/ (clang-format, namespaces not indented). Usage: sizes_test.py SOURCE_DIR
[--write] (--write rewrites the list from what is there now)."""
import os
import re
import sys

FILE_LIMIT = 500
FUNCTION_LIMIT = 60
START = re.compile(r"^[A-Za-z_][^;]*\(")


def functions(lines):
    """(name, length in lines) of each function defined at column 0."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if START.match(line) and not line.startswith(("namespace", "using", "class", "struct",
                                                      "enum", "template", "typedef", "#")):
            # The signature may go on over lines; a definition's has '{' before any ';'.
            j = i
            while j < len(lines) and "{" not in lines[j] and ";" not in lines[j]:
                j += 1
            if j < len(lines) and "{" in lines[j] and ";" not in lines[j].split("{")[0]:
                k = j
                body = lines[j][lines[j].index("{"):].rstrip()
                one_line = body.endswith("}") and body.count("{") == body.count("}")  # f() {}
                while not one_line and k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                name = re.match(r"^[^(]*?([\w:~<>=!+\-*/\[\]]+)\s*\(", line)
                out.append(((name.group(1) if name else line[:40]), k - i + 1, i + 1))
                i = k + 1
                continue
        i += 1
    return out


def measure(source):
    found = {}
    src = os.path.join(source, "src")
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".cc", ".h")) or f.endswith("_test.cc"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, source)
            with open(path, errors="replace") as fh:
                lines = fh.read().split("\n")
            if len(lines) - 1 > FILE_LIMIT:
                found[rel] = len(lines) - 1
            for name, length, at in functions(lines):
                if length > FUNCTION_LIMIT:
                    key = f"{rel}:{name}"
                    found[key] = max(found.get(key, 0), length)
    return found


def main(argv):
    source = argv[1]
    listed_path = os.path.join(source, "tests", "sizes_allowed.txt")
    found = measure(source)
    if "--write" in argv:
        with open(listed_path, "w") as fh:
            fh.write("# Files over 500 lines and functions over 60 in src/ (tests aside) that are\n"
                     "# allowed for now, each with its length: tests/sizes_test.py. Shorten them and\n"
                     "# take them off; nothing is added here but with a reason in the commit.\n")
            for key in sorted(found):
                fh.write(f"{key} {found[key]}\n")
        print(f"wrote {len(found)} entries to {listed_path}")
        return 0
    listed = {}
    with open(listed_path) as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                key, n = line.rsplit(None, 1)
                listed[key] = int(n)
    failed = False
    for key, n in sorted(found.items()):
        limit = FILE_LIMIT if ":" not in key else FUNCTION_LIMIT
        if key not in listed:
            print(f"FAIL: {key} is {n} lines (the limit is {limit})")
            failed = True
        elif n > listed[key]:
            print(f"FAIL: {key} grew to {n} lines (listed at {listed[key]}; the limit is {limit})")
            failed = True
    for key in sorted(set(listed) - set(found)):
        print(f"note: {key} is within the limits now: take it off tests/sizes_allowed.txt")
    if failed:
        return 1
    files = sum(1 for k in found if ":" not in k)
    print(f"PASS: no new long file or function; {files} files and {len(found) - files} "
          "functions listed as exceptions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
