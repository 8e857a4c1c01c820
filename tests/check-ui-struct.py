#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
check-ui-struct.py - the screen stays a set of views that read it (issues
26 and 37).

    check-ui-struct.py SOURCE_ROOT

struct ui (src/ui/tui.h) is what the views read: at most MAX_MEMBERS
members and MAX_FIELDS fields, counting the fields of the structs of
tui.h it nests (a sub-struct is no way around the cap); the screen's own
state is behind its @priv (src/ui/screen_state.h). A view holds it const
(struct ui_view's @ui); only the screen's files (SCREEN) include
screen_state.h or take the screen writable (ui_mut()): a view asks them
(ui_status(), ui_view_open(), ui_sort_by()...). No code of src/ui
dispatches on which view is shown by comparing ui->view (`ui->view ==` /
`!=`): it calls the view's ops.

Exit status: 0, or 1 with what is wrong.
"""
import os
import re
import sys

MAX_MEMBERS = 20
MAX_FIELDS = 30
# the screen's files: its state, its actions
SCREEN = {"screen.c", "actions.c", "overlay.c", "overlay.h", "header.c", "refresh.c", "save.c",
          "views.c", "draw.c", "screen_state.h"}


def struct_body(text, name):
    m = re.search(r"^struct %s \{\n(.*?)^\};" % name, text, re.M | re.S)
    return re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S) if m else None


def fields(body):
    """(struct type when a struct is nested by value, else None; name) each"""
    out = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        m = re.match(r"^(?:const )?(struct|enum|union)? ?(\w+)\s+(.*)$", decl)
        if not m:
            out.append((None, decl))
            continue
        for n in (x.strip() for x in m.group(3).split(",")):
            nested = m.group(2) if m.group(1) == "struct" and not n.startswith("*") else None
            out.append((nested, n.lstrip("*")))
    return out


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = argv[1]
    bad = []
    with open(os.path.join(root, "src/ui/tui.h")) as fh:
        text = fh.read()
    body = struct_body(text, "ui")
    nmembers = nfields = 0
    if body is None:
        bad.append("src/ui/tui.h: no struct ui")
    else:
        members = fields(body)
        nmembers = len(members)
        for typ, _ in members:
            sub = struct_body(text, typ) if typ else None
            nfields += len(fields(sub)) if sub is not None else 1
        if nmembers > MAX_MEMBERS:
            bad.append("struct ui has %d members (at most %d: a view's state goes in its "
                       "own struct, the screen's behind @priv)" % (nmembers, MAX_MEMBERS))
        if nfields > MAX_FIELDS:
            bad.append("struct ui has %d fields with those of the structs it nests (at most "
                       "%d)" % (nfields, MAX_FIELDS))
    view = struct_body(text, "ui_view") or ""
    if not re.search(r"\bconst struct ui \*ui\b", view):
        bad.append("struct ui_view's @ui is not const: a view reads the screen")
    uidir = os.path.join(root, "src/ui")
    for n in sorted(os.listdir(uidir)):
        if not n.endswith((".c", ".h")):
            continue
        with open(os.path.join(uidir, n), errors="replace") as fh:
            src = fh.read()
        if n not in SCREEN:
            if '"ui/screen_state.h"' in src:
                bad.append("src/ui/%s includes screen_state.h: only the screen's files do" % n)
            if re.search(r"\bui_mut\s*\(|\(struct ui \*\)", src):
                bad.append("src/ui/%s takes the screen writable: ask one of its actions" % n)
        for i, line in enumerate(src.split("\n"), 1):
            if re.search(r"(?<!->)\bui->view\s*[!=]=", line):
                bad.append("src/ui/%s:%d: tests which view is shown: call its ops "
                           "instead" % (n, i))
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        return 1
    print("ok: struct ui has %d members, %d fields with the structs it nests (at most %d and "
          "%d), views hold it const, no view tested by identity" %
          (nmembers, nfields, MAX_MEMBERS, MAX_FIELDS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
