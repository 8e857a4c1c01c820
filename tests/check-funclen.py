#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
check-funclen.py - no function of src/ over MAX_LINES lines (issue 26).

    check-funclen.py SOURCE_ROOT [--report]

A function is a definition whose body opens with "{" alone at the start of
a line and closes with "}" alone at the start of a line (the kernel style
the tree is formatted in); its length counts from the line of its name to
the closing brace. --report prints the ten longest and the median and
exits 0.

Exit status: 0, or 1 with one line per function over the limit.
"""
import os
import re
import sys

MAX_LINES = 150
NAME_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    """(name, first line, length) of each function defined in @path"""
    with open(path, errors="replace") as fh:
        lines = fh.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i] == "{":
            # the name: the last identifier followed by "(" on the lines before
            j = i - 1
            name = None
            while j >= 0 and j > i - 8:
                m = NAME_RE.findall(lines[j])
                if m and not lines[j].startswith((" ", "\t")):
                    name = m[0]
                    break
                j -= 1
            k = i + 1
            while k < len(lines) and lines[k] != "}" and not lines[k].startswith("};"):
                k += 1
            if name and k < len(lines) and lines[k] == "}":
                out.append((name, j + 1, k - j + 1))
            i = k + 1
            continue
        i += 1
    return out


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    root = args[0]
    found = []
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for n in sorted(names):
            if n.endswith(".c"):
                p = os.path.join(dirpath, n)
                for name, line, length in functions(p):
                    found.append((length, os.path.relpath(p, root), line, name))
    found.sort(reverse=True)
    if "--report" in argv:
        lens = sorted(f[0] for f in found)
        print("functions: %d, median %d lines, p90 %d, longest:" %
              (len(lens), lens[len(lens) // 2], lens[len(lens) * 9 // 10]))
        for length, p, line, name in found[:10]:
            print("  %4d  %s:%d %s()" % (length, p, line, name))
        return 0
    bad = [f for f in found if f[0] > MAX_LINES]
    for length, p, line, name in bad:
        print("%s:%d: %s() is %d lines (over %d: split it by what it does)" %
              (p, line, name, length, MAX_LINES), file=sys.stderr)
    if bad:
        return 1
    print("ok: %d functions, none over %d lines" % (len(found), MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
