#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
check-ui-struct.py - the screen stays a set of views (issue 26).

    check-ui-struct.py SOURCE_ROOT

struct ui (src/ui/tui.h) keeps only what every view shares: at most
MAX_MEMBERS members (a view's own state is in its own file, behind its
struct ui_view_ops); and no code of src/ui dispatches on which view is
shown by comparing ui->view (`ui->view ==` / `!=`): it calls the view's ops.

Exit status: 0, or 1 with what is wrong.
"""
import os
import re
import sys

MAX_MEMBERS = 25


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = argv[1]
    bad = []
    with open(os.path.join(root, "src/ui/tui.h")) as fh:
        text = fh.read()
    m = re.search(r"^struct ui \{\n(.*?)^\};", text, re.M | re.S)
    if not m:
        bad.append("src/ui/tui.h: no struct ui")
    else:
        body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
        members = [l for l in body.split(";") if l.strip()]
        if len(members) > MAX_MEMBERS:
            bad.append("struct ui has %d members (at most %d: a view's state goes in its "
                       "own struct)" % (len(members), MAX_MEMBERS))
        nmembers = len(members)
    uidir = os.path.join(root, "src/ui")
    for n in sorted(os.listdir(uidir)):
        if not n.endswith((".c", ".h")):
            continue
        with open(os.path.join(uidir, n), errors="replace") as fh:
            for i, line in enumerate(fh, 1):
                if re.search(r"(?<!->)\bui->view\s*[!=]=", line):
                    bad.append("src/ui/%s:%d: tests which view is shown: call its ops "
                               "instead" % (n, i))
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        return 1
    print("ok: struct ui has %d members (at most %d), no view tested by identity" %
          (nmembers, MAX_MEMBERS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
