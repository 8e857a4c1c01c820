#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flame-check.py - the flame graph on screen against folded stacks.

    flame-check.py layout PANE FOLDED LINE LEVEL WIDTH [ZOOM-FRAME...]
        The boxes of level LEVEL (1: the roots; under the zoomed frames
        when given, root first) drawn on screen line LINE of PANE (tmux
        capture-pane -e of a --no-color screen: boxes in reverse video, a
        blank column after each) are exactly those the folded stacks give:
        siblings in the order of their names, each box's edges the counts
        left of it and at its end scaled to WIDTH columns and rounded, so
        its width is within one column of its share; its name at its
        first column (cut with '~'). Narrow siblings (each under half a
        column) side by side are one "+N" marker, nothing below it.

    flame-check.py share FOLDED TERM [FRAME]
        Prints the share in % (one decimal, as the screen prints it) of
        the stacks with a frame whose name contains TERM (case folded),
        or, with FRAME, the count of the stacks whose first frame is FRAME.

    flame-check.py selected PANE
        Prints "LINE X W" of the selected box: the one bold run that is not
        in reverse video below the title (W counts its blank column).
"""
import re
import sys

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def pane_cells(path):
    """every line's characters with their (reverse, bold) state; tmux
    carries the state of one line's end into the next"""
    rows = open(path, encoding="utf-8", errors="replace").read().split("\n")
    while rows and rows[-1] == "":
        rows.pop()
    state = [False, False]
    return rows, [cells(r, state) for r in rows]


def cells(line, state=None):
    """the characters of a captured line with their (reverse, bold) state"""
    out = []
    rev, bold = state if state else (False, False)
    pos = 0
    for m in SGR.finditer(line):
        for ch in line[pos:m.start()]:
            out.append((ch, rev, bold))
        params = [p for p in m.group(1).split(";") if p != ""] or ["0"]
        for p in params:
            p = int(p)
            if p == 0:
                rev = bold = False
            elif p == 7:
                rev = True
            elif p == 27:
                rev = False
            elif p == 1:
                bold = True
            elif p == 22:
                bold = False
        pos = m.end()
    for ch in line[pos:]:
        out.append((ch, rev, bold))
    if state is not None:
        state[0], state[1] = rev, bold
    return out


def folded(path):
    lines = []
    for l in open(path):
        l = l.rstrip("\n")
        if not l:
            continue
        fr, n = l.rsplit(" ", 1)
        frames = [f[:-4] if f.endswith("_[k]") else f for f in fr.split(";")]
        lines.append((frames, int(n)))
    return lines


def edge(off, total, width):
    if total == 0:
        return 0
    if off >= total:
        return width
    return (off * width + total // 2) // total


def boxes(lines, level, zoom, width):
    """the boxes of @level under the frames @zoom: (name, x, w), left to right"""
    sub = [(f, n) for f, n in lines if f[:len(zoom)] == zoom]
    total = sum(n for f, n in sub)
    if level <= len(zoom):
        raise SystemExit("level %d is at or above the zoom" % level)
    # the tree of paths up to @level, each node's children by name
    tree = {}
    for f, n in sub:
        if len(f) < level:
            raise SystemExit("a stack ends above level %d: %s" % (level, ";".join(f)))
        for d in range(len(zoom), level):
            key = tuple(f[:d + 1])
            tree[key] = tree.get(key, 0) + n

    out = []

    def walk(prefix, off):
        kids = sorted(k for k in tree if len(k) == len(prefix) + 1 and k[:len(prefix)] == prefix)
        # the boxes of this parent's children, as flame_layout.c makes them:
        # (frame or None for a marker, name, first count, end count)
        made, run = [], []

        def flush():
            if len(run) == 1:
                made.append((run[0][0], run[0][0][-1], run[0][1], run[0][2]))
            elif run:
                made.append((None, "+%d" % len(run), run[0][1], run[-1][2]))
            del run[:]
        for k in kids:
            c = tree[k]
            if 2 * c * width < total:  # under half a column: narrow
                run.append((k, off, off + c))
            else:
                flush()
                made.append((k, k[-1], off, off + c))
            off += c
        flush()
        for k, name, a, b in made:
            x0, x1 = edge(a, total, width), edge(b, total, width)
            if x1 <= x0:
                continue  # rounded away: neither it nor its callees
            if len(prefix) + 1 == level:
                out.append((name, x0, x1 - x0))
            elif k is not None:
                walk(k, a)
    walk(tuple(zoom), 0)
    return out, total


def layout(pane, fold, line, level, width, zoom):
    rows, all_cells = pane_cells(pane)
    row = all_cells[line]
    want, total = boxes(folded(fold), level, zoom, width)
    exp = set()
    for name, x, w in want:
        exp.update(range(x, x + (w - 1 if w >= 2 else 1)))
    got = {i for i, (ch, rev, bold) in enumerate(row) if rev and i < width}
    text = "".join(c[0] for c in row)
    if exp != got:
        raise SystemExit("level %d: reversed columns differ\n  screen: %s\n  wanted: %s\n  line:   %s\n  boxes:  %s\n  raw:    %r"
                         % (level, sorted(got - exp), sorted(exp - got), text, want, rows[line]))
    for name, x, w in want:
        if w < 3:
            continue
        shown = text[x:x + w - 1].rstrip()
        # "name [module]" on screen, "name" in folded; a cut name ends in '~'
        if shown.endswith("~"):
            ok = name.startswith(shown[:-1]) or (name + " [").startswith(shown[:-1])
        else:
            ok = shown == name or shown.startswith(name + " [")
        if not ok:
            raise SystemExit("box at %d (%d wide) reads '%s', wanted '%s'" % (x, w, shown, name))
    print("ok: level %d, %d boxes at %d columns match the folded stacks (%d hits)"
          % (level, len(want), width, total))


def share(fold, term, frame=None):
    lines = folded(fold)
    total = sum(n for f, n in lines)
    if frame is not None:
        print(sum(n for f, n in lines if f and f[0] == frame))
        return
    t = term.lower()
    hit = sum(n for f, n in lines if any(t in x.lower() for x in f))
    print("%.1f" % (100.0 * hit / total) if total else "0.0")


def selected(pane):
    rows, all_cells = pane_cells(pane)
    start = next(i for i, r in enumerate(rows) if "FLAME GRAPH" in r) + 1
    # the boxes' lines: the selected box's line and the key bar are the last two
    for y in range(start, len(rows) - 2):
        row = all_cells[y]
        xs = [i for i, (ch, rev, bold) in enumerate(row) if bold and not rev]
        if xs and all(not c[1] for c in row[xs[0]:xs[-1] + 1]):
            # the run, plus its blank column
            if xs == list(range(xs[0], xs[-1] + 1)):
                print(y, xs[0], len(xs) + 1)
                return
    raise SystemExit("no selected box on screen")


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "layout":
        layout(a[1], a[2], int(a[3]), int(a[4]), int(a[5]), a[6:])
    elif a[0] == "share":
        share(a[1], a[2], a[3] if len(a) > 3 else None)
    elif a[0] == "selected":
        selected(a[1])
    else:
        raise SystemExit(__doc__)
