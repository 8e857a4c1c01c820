#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
check-testlib.py - one test library for every shell test (issue 37).

    check-testlib.py SOURCE_ROOT

The shell tests under tests/ say a failure and a skip with
tests/lib/common.sh's fail and skip (exit 1; exit 77, meson's SKIP,
which scripts/test.sh counts as a failure under CI=true), and find a
browser with tests/lib/npm-tools.sh's browser_tools: none defines its own
fail() or skip(), none exits 77 by hand, none copies the browser's
bootstrap. ALLOWED: the scripts that are not tests of the suite's shape.

Exit status: 0, or 1 with each script that does.
"""
import os
import re
import sys

# run-fuzz.sh: a bash runner with its own report format for meson's fuzz
# suite (a harness's skip names the harness)
ALLOWED = {"tests/fuzz/run-fuzz.sh"}
LIB = "tests/lib/common.sh"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = argv[1]
    bad, n = [], 0
    for d, dirs, files in os.walk(os.path.join(root, "tests")):
        dirs[:] = [x for x in dirs if x not in ("node_modules", "fixtures")]
        for f in sorted(files):
            if not f.endswith(".sh"):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)
            if rel.startswith("tests/lib/") or rel in ALLOWED:
                continue
            n += 1
            with open(os.path.join(root, rel), errors="replace") as fh:
                text = fh.read()
            if re.search(r"^\s*(fail|skip)\s*\(\)", text, re.M):
                bad.append("%s defines its own fail() or skip(): source %s" % (rel, LIB))
            if re.search(r"\bexit 77\b", text):
                bad.append("%s exits 77 by hand: skip (%s) says why" % (rel, LIB))
            if re.search(r"^\s*CHROMIUM=", text, re.M):
                bad.append("%s finds chromium itself: browser_tools (tests/lib/npm-tools.sh)" % rel)
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        return 1
    print("ok: %d shell tests use %s" % (n, LIB))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
