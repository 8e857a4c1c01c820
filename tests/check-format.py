#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-format.py - the C files as the project's .clang-format has them.

    check-format.py SOURCE_ROOT report|enforce

Checks src/**/*.[ch], tests/*.c and bench/*.c with clang-format's
--dry-run against SOURCE_ROOT/.clang-format, with the clang-format the
CI machine has, pinned: major version CLANG_FORMAT_MAJOR (another version
formats some constructs differently; scripts/deps.sh installs this one).

First .clang-format itself: present, read by clang-format without error,
and holding the settings the code's style rests on (tabs of 8, 100
columns, Linux braces).

enforce: any file that differs fails the test (one line per file, its
first sites). report: the same list, and the test passes: the tree is
reformatted once, in one commit (issue 26), which also flips meson option
format_check to enforce (meson_options.txt).

Exit status: 0, 1 (a difference, or a broken .clang-format), 77 (skip)
when clang-format CLANG_FORMAT_MAJOR is not installed.
"""
import os
import re
import shutil
import subprocess
import sys

CLANG_FORMAT_MAJOR = 14
# what the project's style rests on: a .clang-format without it is broken
WANTED = {
    "UseTab": "Always",
    "IndentWidth": "8",
    "TabWidth": "8",
    "ColumnLimit": "100",
    "BreakBeforeBraces": "Linux",
}


def find_clang_format():
    """the pinned clang-format: clang-format-N, or clang-format of major N"""
    for name in ("clang-format-%d" % CLANG_FORMAT_MAJOR, "clang-format"):
        path = shutil.which(name)
        if not path:
            continue
        out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version (\d+)\.", out)
        if m and int(m.group(1)) == CLANG_FORMAT_MAJOR:
            return path, out.strip()
    return None, None


def c_files(root):
    files = []
    for d, _, names in os.walk(os.path.join(root, "src")):
        files += [os.path.join(d, n) for n in names if n.endswith((".c", ".h"))]
    for sub in ("tests", "bench"):
        d = os.path.join(root, sub)
        if os.path.isdir(d):
            files += [os.path.join(d, n) for n in os.listdir(d) if n.endswith(".c")]
    return sorted(files)


def check_config(cf, root):
    """.clang-format present, parsed, with the settings of WANTED"""
    path = os.path.join(root, ".clang-format")
    if not os.path.isfile(path):
        return "no .clang-format at %s" % path
    r = subprocess.run([cf, "--style=file", "--assume-filename=" + os.path.join(root, "src", "x.c"),
                        "--dump-config"], capture_output=True, text=True, cwd=root, input="")
    if r.returncode != 0 or r.stderr.strip():
        return ".clang-format is not read cleanly: %s" % (r.stderr.strip() or r.returncode)
    conf = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(\w+):\s*(\S.*)$", line)
        if m:
            conf[m.group(1)] = m.group(2).strip().strip("'")
    bad = ["%s is %s, not %s" % (k, conf.get(k), v) for k, v in WANTED.items()
           if conf.get(k) != v]
    return "; ".join(bad) if bad else None


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("report", "enforce"):
        sys.exit(__doc__)
    root, mode = sys.argv[1], sys.argv[2]
    cf, version = find_clang_format()
    if not cf:
        print("SKIP: clang-format %d is not installed (scripts/deps.sh installs "
              "clang-format-%d): the format is not checked" % (CLANG_FORMAT_MAJOR,
                                                               CLANG_FORMAT_MAJOR))
        return 77
    bad = check_config(cf, root)
    if bad:
        print("FAIL: .clang-format: %s" % bad)
        return 1
    files = c_files(root)
    r = subprocess.run([cf, "--style=file", "--dry-run", "--Werror"] + files,
                       capture_output=True, text=True, cwd=root)
    sites = {}
    for line in r.stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(\d+): error: code should be clang-formatted", line)
        if m:
            sites.setdefault(os.path.relpath(m.group(1), root), []).append(int(m.group(2)))
    if r.returncode != 0 and not sites:
        print("FAIL: %s failed: %s" % (cf, r.stderr[-1000:]))
        return 1
    for f in sorted(sites):
        lines = sites[f]
        print("%s: %d site(s), line %s" % (f, len(lines), ", ".join(map(str, lines[:5]))))
    nsites = sum(len(v) for v in sites.values())
    summary = ("%d of %d files differ from .clang-format (%d sites; %s)" %
               (len(sites), len(files), nsites, version))
    if sites and mode == "enforce":
        print("FAIL: " + summary + ": run %s -i on them" % os.path.basename(cf))
        return 1
    if sites:
        print("not enforced yet (meson option format_check=report): " + summary)
    else:
        print("ok: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
