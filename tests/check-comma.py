#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-comma.py - no comma operator used as a statement separator in src/.

    check-comma.py BUILD_DIR

`a = x, b = y;` reads as two statements and is one: a later edit that adds
a brace, an `if` or a macro around it changes what runs (issue 26 found
41). clang's -Wcomma says where, and knows C (a for loop's clauses, a
declaration's list, a call's arguments and macros are not flagged; a comma
that must stay can be written `(void)(a, b)`): every src/ file of
BUILD_DIR's compile_commands.json is compiled with clang -fsyntax-only
-Wcomma and its other warnings off, whatever compiler the build uses.

Exit status: 0 when no file has one, 1 (each site listed), 77 (skip) when
clang is not installed (scripts/deps.sh installs it).
"""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

# flags of the build's command kept for clang: what decides the code seen
KEEP = re.compile(r"^(-I|-D|-U|-std=|-include)")


def clang_command(clang, entry):
    args = entry.get("arguments") or shlex.split(entry["command"])
    out = [clang, "-fsyntax-only", "-Wno-everything", "-Wcomma"]
    i = 1
    while i < len(args):
        a = args[i]
        if a in ("-I", "-D", "-U", "-include") and i + 1 < len(args):
            out += [a, args[i + 1]]
            i += 2
            continue
        if KEEP.match(a):
            out.append(a)
        i += 1
    return out + [entry["file"]]


def check(clang, entry):
    r = subprocess.run(clang_command(clang, entry), capture_output=True, text=True,
                       cwd=entry["directory"])
    sites = []
    for line in r.stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(\d+): warning: possible misuse of comma operator", line)
        if m:
            sites.append((os.path.normpath(os.path.join(entry["directory"], m.group(1))),
                          int(m.group(2))))
    err = r.stderr if r.returncode != 0 else ""
    return entry["file"], sites, err


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    clang = shutil.which("clang")
    if not clang:
        print("SKIP: clang is not installed (scripts/deps.sh installs it): comma "
              "statements are not checked")
        return 77
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    src = [e for e in entries
           if "/src/" in os.path.normpath(os.path.join(e["directory"], e["file"]))
           and e["file"].endswith(".c") and "stacktop-core-fuzz" not in e.get("output", "")]
    seen, sites, errors = set(), set(), []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for name, found, err in pool.map(lambda e: check(clang, e), src):
            seen.add(name)
            sites.update(found)
            if err:
                errors.append("%s: %s" % (name, err[-500:]))
    if errors:
        print("FAIL: clang could not read %d file(s):\n%s" % (len(errors), "\n".join(errors)))
        return 1
    for path, line in sorted(sites):
        with open(path, errors="replace") as f:
            text = f.read().split("\n")[line - 1].strip()
        print("%s:%d: %s" % ("src/" + path.split("/src/", 1)[-1], line, text))
    if sites:
        print("FAIL: %d comma operator(s) as statement separators in %d file(s) (of %d): "
              "one statement each" % (len(sites), len({p for p, _ in sites}), len(seen)))
        return 1
    print("ok: no comma operator as a statement separator in %d files of src/" % len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
