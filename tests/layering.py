#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
layering.py - the layer rule of doc/design.md, checked on the code itself.

    layering.py SRCDIR [BUILDDIR] [--report] [--layers FILE] [--left-out=A.c,B.c]

Each folder of src/ is a layer; LAYERS below lists them bottom first. Three
graphs between files are built:

  includes  from the #include "..." lines of every .c and .h under src/;
  calls     from the object files of BUILDDIR (compile_commands.json says
            which object a .c became): a file that leaves a symbol
            undefined calls (or reads) the file that defines it
            (gcc-nm, so that LTO objects are read too);
  modules   a .c and the .h of the same name in the same folder are one
            node (the header is the module's interface), with its private
            header X_priv.h if it has one: include and call edges
            together.

and the rules checked are:

  1. an include names its layer ("core/stack_table.h", never a bare
     "stack_table.h" that resolves only next to the includer);
  2. a file includes headers of its own layer and of the layers below it;
  3. no call runs from a lower layer to a higher one;
  4. no circle: the module graph (includes and calls) has no strongly
     connected component of two or more modules, inside a layer or across;
  5. no .c file over MAX_LINES lines (issue 37): one concern a file;
     split along concerns, not at a line count
  6. no header of a module is included by more than a quarter of the .c
     files (UTILITY_HEADERS aside): a hub that half the tree includes
     makes every change to it a rebuild and a review of everything.

Without BUILDDIR only the source rules (1, 2, the include part of 4, 5)
run. --report prints the numbers (circles, upward edges, long files) and
exits 0 whatever they are; otherwise each violation is printed and the exit
status is 1. --layers FILE reads "PREFIX LAYER" lines (a path prefix under
src/ and a layer name) instead of the folders, to measure a tree laid out
differently (doc/design.md's before/after numbers). A .c file BUILDDIR did
not compile fails under CI=true (CI builds every file) unless --left-out
names it (paths under src/): the files a configuration leaves out on
purpose (meson passes the libunwind ones to a build without libunwind).
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

# bottom first; a layer may include and call its own files and the layers
# before it in this list, never the ones after it
LAYERS = ["core", "sym", "kernel", "ingest", "source", "session", "output", "ui", "cli"]

# one concern per file (issue 37: enforced; issue 26 met it by splitting
# files, not concerns: split along what the code does); --report lists
# every .c file over it
MAX_LINES = 700

# headers of small utilities every layer uses, exempt from rule 6
UTILITY_HEADERS = {"core/format.h", "core/log.h", "core/array.h", "core/hmap.h"}
HUB_SHARE = 0.25

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(rel, prefixes):
    """the layer of a path relative to src/, or None"""
    if prefixes:
        best = None
        for p, lay in prefixes:
            if rel.startswith(p) and (best is None or len(p) > len(best[0])):
                best = (p, lay)
        return best[1] if best else None
    top = rel.split("/", 1)[0]
    return top if top in LAYERS and "/" in rel else None


def module_of(rel):
    """a .c and the .h of the same stem in the same folder are one module,
    and so is the stem's private header (X_priv.h: what X's files share)"""
    stem = os.path.splitext(rel)[0]
    return stem[:-len("_priv")] if stem.endswith("_priv") else stem


def sources(src):
    out = []
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, f), src))
    return sorted(out)


def scc(nodes, graph):
    """Tarjan, iterative: the strongly connected components of @graph"""
    index, low, onstack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        onstack.add(root)
        while work:
            n, it = work[-1]
            advanced = False
            for m in it:
                if m not in index:
                    index[m] = low[m] = counter
                    counter += 1
                    stack.append(m)
                    onstack.add(m)
                    work.append((m, iter(sorted(graph.get(m, ())))))
                    advanced = True
                    break
                if m in onstack:
                    low[n] = min(low[n], index[m])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[n])
            if low[n] == index[n]:
                comp = []
                while True:
                    m = stack.pop()
                    onstack.discard(m)
                    comp.append(m)
                    if m == n:
                        break
                comps.append(sorted(comp))
    return comps


def read_includes(src, files, by_basename=False):
    """{file: [(line, text as written, resolved file or None, named)]}"""
    known = set(files)
    base = defaultdict(list)
    for f in files:
        base[os.path.basename(f)].append(f)
    inc = {}
    for f in files:
        with open(os.path.join(src, f), errors="replace") as fh:
            text = fh.read()
        lst = []
        for m in INCLUDE_RE.finditer(text):
            name = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            here = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if name in known:
                lst.append((line, name, name, True))
            elif here in known:
                lst.append((line, name, here, False))
            elif by_basename and len(base[os.path.basename(name)]) == 1:
                lst.append((line, name, base[os.path.basename(name)][0], True))
            else:
                lst.append((line, name, None, False))
        inc[f] = lst
    return inc


def read_calls(src, build, files):
    """{(caller .c, callee .c): set of symbols}, from the objects of @build"""
    cc_path = os.path.join(build, "compile_commands.json")
    with open(cc_path) as fh:
        cc = json.load(fh)
    srcabs = os.path.realpath(src)
    objs = {}
    for e in cc:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if not path.startswith(srcabs + os.sep):
            continue
        rel = os.path.relpath(path, srcabs)
        obj = os.path.join(e["directory"], e["output"])
        # the same file may be built for several targets: any one will do
        if rel in files and os.path.exists(obj):
            objs.setdefault(rel, obj)
    built = set()
    for e in cc:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if path.startswith(srcabs + os.sep):
            built.add(os.path.relpath(path, srcabs))
    # in compile_commands.json but no object: not built yet (an error);
    # not there at all: not part of this configuration (no libunwind)
    missing = [f for f in files if f.endswith(".c") and f in built and f not in objs]
    unbuilt = [f for f in files if f.endswith(".c") and f not in built]
    nm = "gcc-nm" if subprocess.run(["sh", "-c", "command -v gcc-nm"],
                                    capture_output=True).returncode == 0 else "nm"
    defined, undefined = {}, defaultdict(set)
    for rel, obj in sorted(objs.items()):
        res = subprocess.run([nm, "-P", obj], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("layering: %s -P %s failed: %s" % (nm, obj, res.stderr.strip()))
        for line in res.stdout.splitlines():
            p = line.split()
            if len(p) < 2:
                continue
            sym, kind = p[0], p[1]
            if kind == "U":
                undefined[rel].add(sym)
            elif kind in "TDBRGSVWC" and kind != "":
                # a symbol two files define (a weak one) belongs to neither
                defined[sym] = None if sym in defined and defined[sym] != rel else rel
    edges = defaultdict(set)
    for rel, syms in undefined.items():
        for sym in syms:
            to = defined.get(sym)
            if to and to != rel:
                edges[(rel, to)].add(sym)
    return edges, missing, unbuilt


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    report = "--report" in argv
    left_out = set()
    for a in argv[1:]:
        if a.startswith("--left-out="):
            left_out.update(f for f in a.split("=", 1)[1].split(",") if f)
    prefixes = None
    if "--layers" in argv:
        fn = argv[argv.index("--layers") + 1]
        args.remove(fn)
        prefixes = []
        with open(fn) as fh:
            for line in fh:
                line = line.split("#", 1)[0].split()
                if len(line) == 2:
                    prefixes.append((line[0], line[1]))
    if not args:
        sys.exit(__doc__)
    src = args[0]
    build = args[1] if len(args) > 1 else None
    files = sources(src)
    if prefixes:
        files = [f for f in files if layer_of(f, prefixes)]
    rank = {lay: i for i, lay in enumerate(LAYERS)}
    bad = []

    # the layer of every file; a file in no layer is an error of its own
    layer = {}
    for f in files:
        lay = layer_of(f, prefixes)
        if lay is None and not prefixes and f not in ("main.c",):
            bad.append("%s: in no layer (put it in one of %s)" % (f, ", ".join(LAYERS)))
        layer[f] = lay if lay is not None else "cli"

    # includes
    inc = read_includes(src, files, by_basename=bool(prefixes))
    up_inc = []
    graph = defaultdict(set)
    inc_graph = defaultdict(set)
    for f, lst in inc.items():
        for line, name, to, named in lst:
            if to is None:
                continue
            if not named and not prefixes:
                bad.append('%s:%d: #include "%s": name its layer ("%s")' % (f, line, name, to))
            if rank[layer[to]] > rank[layer[f]]:
                up_inc.append("%s:%d: #include \"%s\": %s includes %s (a higher layer)" %
                              (f, line, name, layer[f], layer[to]))
            if module_of(f) != module_of(to):
                graph[module_of(f)].add(module_of(to))
                inc_graph[module_of(f)].add(module_of(to))

    # calls
    up_call = []
    call_graph = defaultdict(set)
    missing = []
    unbuilt = []
    if build:
        if not os.path.exists(os.path.join(build, "compile_commands.json")):
            sys.exit("layering: no compile_commands.json in %s" % build)
        edges, missing, unbuilt = read_calls(src, build, files)
        for f in missing:
            bad.append("%s: no object file in %s (build it first)" % (f, build))
        for f in sorted(left_out - set(files)):
            bad.append("%s: --left-out names a file that is not in %s" % (f, src))
        for f in unbuilt:
            if os.environ.get("CI") == "true" and f not in left_out:
                bad.append("%s: not built in %s (CI builds every file)" % (f, build))
            else:
                print("note: %s is not built in this configuration: its calls are not checked" % f)
        for (a, b), syms in sorted(edges.items()):
            graph[module_of(a)].add(module_of(b))
            call_graph[module_of(a)].add(module_of(b))
            if rank[layer[b]] > rank[layer[a]]:
                for sym in sorted(syms):
                    up_call.append("%s calls %s() of %s: %s calls %s (a higher layer)" %
                                   (a, sym, b, layer[a], layer[b]))

    modules = {module_of(f) for f in files}
    circles = [c for c in scc(modules, graph) if len(c) > 1]
    inc_circles = [c for c in scc(modules, inc_graph) if len(c) > 1]
    call_circles = [c for c in scc(modules, call_graph) if len(c) > 1]

    long_files = []
    for f in files:
        if not f.endswith(".c"):
            continue
        with open(os.path.join(src, f), errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES and f.endswith(".c"):
            long_files.append("%s: %d lines (over %d: split it along its concerns)" %
                              (f, n, MAX_LINES))

    # rule 6: hubs
    nc = sum(f.endswith(".c") for f in files)
    users = defaultdict(set)
    for f, lst in inc.items():
        if f.endswith(".c"):
            for line, name, to, named in lst:
                if to is not None and to.endswith(".h"):
                    users[to].add(f)
    hubs = ["%s: included by %d of %d .c files (over %d%%: split it)" %
            (h, len(u), nc, HUB_SHARE * 100)
            for h, u in sorted(users.items(), key=lambda kv: -len(kv[1]))
            if h not in UTILITY_HEADERS and len(u) > HUB_SHARE * nc and not prefixes]

    if report:
        print("headers included by the most .c files: " +
              ", ".join("%s %d" % (h, len(u)) for h, u in
                        sorted(users.items(), key=lambda kv: -len(kv[1]))[:5]))
        print("files: %d (%d .c), modules: %d" % (len(files), sum(f.endswith(".c") for f in files),
                                                  len(modules)))
        print("circles (includes and calls): %d" % len(circles))
        for c in circles:
            print("  %d: %s" % (len(c), " ".join(c)))
        print("circles of calls alone: %d" % len(call_circles))
        for c in call_circles:
            print("  %d: %s" % (len(c), " ".join(c)))
        print("circles of includes alone: %d" % len(inc_circles))
        for c in inc_circles:
            print("  %d: %s" % (len(c), " ".join(c)))
        pairs = sorted({tuple(u.split(" calls ")[0:1] + [u.split(" of ")[1].split(":")[0]])
                        for u in up_call})
        print("upward calls: %d (functions), %d (file pairs)" % (len(up_call), len(pairs)))
        for u in up_call:
            print("  " + u)
        print("upward includes: %d" % len(up_inc))
        for u in up_inc:
            print("  " + u)
        print(".c files over %d lines: %d" % (MAX_LINES, len(long_files)))
        for u in long_files:
            print("  " + u)
        return 0

    for c in circles:
        how = "calls" if c in call_circles else "includes" if c in inc_circles else \
            "includes and calls"
        bad.append("circle (%s) between %s" % (how, ", ".join(c)))
    bad += up_inc + up_call + hubs + long_files
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        print("FAIL: %d layering violation(s): see doc/design.md \"Layers\"" % len(bad),
              file=sys.stderr)
        return 1
    print("ok: %d files in %d layers: includes and calls go down, no circle, no .c over %d "
          "lines%s" % (len(files), len(LAYERS), MAX_LINES,
                       "" if build else " (no build dir: calls not checked)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
