#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
check-design.py - doc/design.md against the code (issue 37: the guidance
had drifted a week after it was written).

    check-design.py SOURCE_ROOT

What is checked:

  Layers      every .c file of a layer's folder (src/LAYER/) is named on
              its line of the "Layers" list, and every file named there
              exists in that folder;
  flame page  every module of src/output/flame/ is named in "The flame
              page", and every module named there exists;
  recipes     in "Where do I add X", every file a recipe names (in
              backquotes: a path, or a file name the tree has once)
              exists, and every identifier it names (`name()`, `name[]`,
              `struct name`, a NAME_LIKE_THIS macro, a snake_case name)
              is in one of the files the same recipe names, or, when it
              names none, somewhere in src/; and each recipe of RECIPES
              names the files and rows the code needs for it.

Exit status: 0, or 1 with each mismatch.
"""
import os
import re
import sys

# what a recipe must name: the rows without which the thing added does
# nothing; each is also checked to be in the code (an identifier in the
# file given with it), so a rename fails here until the recipe follows
RECIPES = {
    "A screen view": [("ui/screen.c", "ui_view_list"), ("ui/actions.c", "act_open"),
                      ("ui/keys.c", None), ("ui/tui.h", "ui_view_ops")],
    "A key": [("ui/keys.c", None), ("ui/keys.h", "ACT_"), ("ui/actions.c", "act_open")],
    "An option": [("cli/option_row.h", "OPT_"), ("cli/args_set.c", "args_take_code"),
                  ("tests/test-args.c", None)],
    "A header counter": [("core/counters.h", "SESSION_COUNTERS"),
                         ("output/counters.c", "counter_words")],
    "An output format": [("output/export.c", "export_fmt"), ("output/export.h", "EXPORT_"),
                         ("output/formats.h", None)],
    "A source": [("source/source.h", "source_ops"), ("session/open.c", None)],
}

EXTS = (".c", ".h", ".py", ".sh", ".js", ".json", ".build", ".md", ".8")


def section(text, title, level="## "):
    """the text of the section @title, up to the next heading of its level"""
    m = re.search(r"^%s%s\n(.*?)(?=^%s|\Z)" % (re.escape(level), re.escape(title),
                                            re.escape(level)), text, re.M | re.S)
    return m.group(1) if m else None


def layers(text):
    """{layer: the text of its line(s)} of the indented list of "Layers" """
    out, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^    (\w+)/\s+(.*)$", line)
        if m:
            cur = m.group(1)
            out[cur] = m.group(2)
        elif cur and re.match(r"^ {8,}\S", line):
            out[cur] += " " + line.strip()
        elif cur and not line.strip():
            cur = None
    return out


def named_files(text):
    """the file names a text names: NAME.c, NAME.h (a word of its own)"""
    return set(re.findall(r"(?<![\w/.-])([\w-]+\.[ch])\b", text))


def bullets(text):
    """the recipes of "Where do I add X": (title, text)"""
    out = []
    for m in re.finditer(r"^- \*\*(.+?)\*\*(.*?)(?=^- \*\*|\Z)", text, re.M | re.S):
        out.append((re.sub(r"\s*\(.*", "", m.group(1)).strip(), m.group(2)))
    return out


def all_files(root):
    """every file of the tree (src/, tests/, doc/, ...), by basename too"""
    paths, by_base = set(), {}
    for top in ("src", "tests", "doc", "scripts", "man", "bench", "completion", "debian"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "node_modules"]
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), root)
                paths.add(rel)
                by_base.setdefault(f, []).append(rel)
    return paths, by_base


def resolve(tok, paths, by_base):
    """a backquoted file of a recipe as a path of the tree, None when none,
    '' when it is not a file (a template such as <view>.c, a directory)"""
    tok = tok.split()[0].rstrip(",;:")
    if "<" in tok or "*" in tok or tok.endswith("/"):
        return ""
    if not tok.endswith(EXTS):
        return ""
    for cand in (tok, "src/" + tok):
        if cand in paths:
            return cand
    hits = by_base.get(os.path.basename(tok), [])
    if "/" not in tok and len(hits) == 1:
        return hits[0]
    return None


def identifiers(tok):
    """the identifiers a backquoted token names, when it names code"""
    tok = tok.strip()
    m = re.match(r"^struct (\w+)$", tok)
    if m:
        return [m.group(1)]
    m = re.match(r"^(\w+)(\(\)|\[\])$", tok)
    if m:
        return [m.group(1)]
    if re.match(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]$", tok):
        return [tok]
    if re.match(r"^[a-z][a-z0-9]*_[a-z0-9_]+$", tok):
        return [tok]
    return []


def grep(root, rels, word):
    for rel in rels:
        try:
            with open(os.path.join(root, rel), errors="replace") as fh:
                if re.search(r"\b%s" % re.escape(word), fh.read()):
                    return True
        except OSError:
            pass
    return False


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    root = argv[1]
    bad = []
    with open(os.path.join(root, "doc", "design.md")) as fh:
        text = fh.read()
    paths, by_base = all_files(root)
    src_files = sorted(p for p in paths if p.startswith("src/") and p.endswith((".c", ".h")))

    # Layers
    lay_text = section(text, "Layers")
    if lay_text is None:
        bad.append('doc/design.md: no "## Layers"')
        lay_text = ""
    lay = layers(lay_text)
    nfiles = 0
    for layer in sorted({p.split("/")[1] for p in src_files if p.count("/") == 2}):
        have = {os.path.basename(p) for p in paths
                if p.startswith("src/%s/" % layer) and p.count("/") == 2}
        if layer not in lay:
            bad.append('Layers: no line for src/%s/' % layer)
            continue
        named = named_files(lay[layer])
        for f in sorted(x for x in have if x.endswith(".c")):
            nfiles += 1
            if f not in named:
                bad.append("Layers: src/%s/%s is not named on the %s/ line" % (layer, f, layer))
        for f in sorted(named - have):
            bad.append("Layers: the %s/ line names %s, which src/%s/ does not have" %
                       (layer, f, layer))

    # the flame page's modules
    flame = section(text, "The flame page", "### ") or ""
    have = {f for f in os.listdir(os.path.join(root, "src", "output", "flame")) if f.endswith(".js")}
    named = set(re.findall(r"^    ([\w]+\.js)\b", flame, re.M))
    for f in sorted(have - named):
        bad.append('"The flame page": src/output/flame/%s is not named' % f)
    for f in sorted(named - have):
        bad.append('"The flame page" names %s, which src/output/flame/ does not have' % f)

    # the recipes
    add = section(text, "Where do I add X")
    if add is None:
        bad.append('doc/design.md: no "## Where do I add X"')
        add = ""
    recipes = bullets(add)
    titles = [t for t, _ in recipes]
    nids = 0
    for title, body in recipes:
        toks = re.findall(r"`([^`]+)`", body)
        files = []
        for tok in toks:
            r = resolve(tok, paths, by_base)
            if r is None:
                bad.append('"%s": `%s` names no file of the tree' % (title, tok))
            elif r:
                files.append(r)
        for tok in toks:
            for ident in identifiers(tok):
                nids += 1
                where = files or src_files
                if not grep(root, where, ident) and not grep(root, src_files, ident):
                    bad.append('"%s": `%s` is in none of %s, nor in src/' %
                               (title, ident, ", ".join(files) or "src/"))
                elif files and not grep(root, where, ident):
                    bad.append('"%s": `%s` is in none of the files it names (%s)' %
                               (title, ident, ", ".join(files)))
        for rel, ident in RECIPES.get(title, []):
            path = rel if rel.startswith("tests/") else "src/" + rel
            if rel not in body:
                bad.append('"%s" does not name %s' % (title, rel))
            if ident and ident.rstrip("_") not in body.replace("`", ""):
                bad.append('"%s" does not name %s (in %s)' % (title, ident, rel))
            if path not in paths:
                bad.append("check-design.py: %s is gone (RECIPES)" % path)
            elif ident and not grep(root, [path], ident):
                bad.append("check-design.py: %s has no %s any more (RECIPES)" % (path, ident))
    for title in RECIPES:
        if title not in titles:
            bad.append('"Where do I add X" has no recipe "%s"' % title)

    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        print("FAIL: %d mismatch(es) between doc/design.md and the code" % len(bad),
              file=sys.stderr)
        return 1
    print("ok: %d .c files in the Layers list, %d flame modules, %d recipes (%d identifiers) "
          "match the code" % (nfiles, len(have), len(recipes), nids))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
