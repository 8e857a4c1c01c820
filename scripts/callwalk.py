#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
callwalk.py - follow one function through the code, as a reader would:
every function it can reach (direct calls, and functions whose address is
taken, as action tables are), and how often the walk changes file, climbs
to a higher layer, or runs inside a circle of files (a file that calls
one that calls it back). doc/design.md quotes it for a keystroke.

    scripts/callwalk.py BUILDDIR [FUNCTION]      (default: ui_key)

BUILDDIR must be a build without LTO (the ASan developer build is one):
the calls are read with objdump -dr from its objects. The layers are the
folders of src/, bottom first, as tests/layering.py has them.
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from layering import LAYERS  # noqa: E402


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    build = argv[1]
    start = argv[2] if len(argv) > 2 else "ui_key"
    src = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    with open(os.path.join(build, "compile_commands.json")) as fh:
        cc = json.load(fh)
    objs = {}
    for e in cc:
        p = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if p.startswith(src + os.sep):
            objs.setdefault(os.path.relpath(p, src), os.path.join(e["directory"], e["output"]))

    def layer(f):
        top = f.split("/", 1)[0]
        return LAYERS.index(top) if top in LAYERS else len(LAYERS)

    funcs, local, glob = {}, defaultdict(set), {}
    for f, o in objs.items():
        for line in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "Tt":
                if p[1] == "T":
                    glob[p[2]] = f
                else:
                    local[f].add(p[2])
        cur = None
        out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", o], capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
            if m:
                cur = (f, m.group(1))
                funcs.setdefault(cur, set())
                continue
            if cur is None:
                continue
            m = re.search(r"R_X86_64_\w+\s+([A-Za-z_][\w.]*)", line)
            if m:
                funcs[cur].add(m.group(1))
                continue
            m = re.search(r"\bcall\s+[0-9a-f]+ <([A-Za-z_][\w.]*)>", line)
            if m:
                funcs[cur].add(m.group(1))

    def resolve(f, name):
        if name in local[f] and (f, name) in funcs:
            return (f, name)
        if name in glob:
            return (glob[name], name)
        return None

    if start not in glob:
        sys.exit("callwalk: no function %s in %s" % (start, build))
    first = (glob[start], start)
    seen, todo, edges = {first}, [first], set()
    while todo:
        n = todo.pop()
        for t in funcs.get(n, ()):
            r = resolve(n[0], t)
            if not r:
                continue
            edges.add((n, r))
            if r not in seen:
                seen.add(r)
                todo.append(r)
    files = {n[0] for n in seen}
    cross = [(a, b) for a, b in edges if a[0] != b[0]]
    fe = defaultdict(set)
    for a, b in cross:
        fe[a[0]].add(b[0])

    def reach(x):
        r, st = set(), [x]
        while st:
            for z in fe[st.pop()]:
                if z not in r:
                    r.add(z)
                    st.append(z)
        return r

    reachable = {f: reach(f) for f in files}
    up = [(a, b) for a, b in cross if layer(b[0]) > layer(a[0])]
    circ = [(a, b) for a, b in cross if a[0] in reachable[b[0]]]
    print("%s: reaches %d functions in %d files over %d calls between files: %d go up a "
          "layer, %d run inside a circle of files" % (start, len(seen), len(files), len(cross),
                                                     len(up), len(circ)))
    for a, b in sorted(up):
        print("  up: %s %s() -> %s %s()" % (a[0], a[1], b[0], b[1]))
    for a, b in sorted(circ):
        print("  circle: %s %s() -> %s %s()" % (a[0], a[1], b[0], b[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
