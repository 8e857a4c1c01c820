#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-kerneldoc.py - every function a header of src/ declares is documented.

    check-kerneldoc.py SOURCE_ROOT [ALLOWLIST]

The rule (issue 26; doc/design.md "Tests"): each function declared in a
src/**/*.h (a prototype, or a static inline defined there) has a comment
block (/* ... */, kernel-doc's /** ... */ by convention) ending on the line
right before its declaration, or right before its definition in a .c of
src/ (where a header groups a family under one comment, the definition
says it). A function-like macro is not a function.

ALLOWLIST: lines "HEADER" (every function it declares) or "HEADER:NAME",
# comments: functions left to another change (src/ui's, documented on
the branch that reworks the views); the lead empties it after that merge.
An entry no longer needed is said (not a failure).

Exit status: 0, or 1 with one line per undocumented function.
"""
import os
import re
import sys

# a declaration at file scope: "type name(" ... ");" or "... {" (static inline)
DECL = re.compile(r"^(?!typedef\b)(?:[A-Za-z_][\w\s\*]*?[\s\*])(\w+)\s*\(")
FILE_TAG = re.compile(r"^[\s*]*[\w/.-]+\.[ch]:?[\s*]*$")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def strip_strings(line):
    return re.sub(r'"(\\.|[^"\\])*"', '""', line)


def statements(path):
    """(first line, last line, text) of each file-scope statement of a C file,
    and the lines on which a comment block ends"""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    out, comment_end = [], set()
    depth, in_comment, cur, start, in_macro = 0, False, "", None, False
    ctext = ""
    for no, raw in enumerate(lines, 1):
        line = strip_strings(raw)
        if in_macro:
            in_macro = line.rstrip().endswith("\\")
            continue
        if not in_comment and depth == 0 and not cur and line.lstrip().startswith("#"):
            in_macro = line.rstrip().endswith("\\")
            continue
        code = ""
        i = 0
        while i < len(line):
            if in_comment:
                j = line.find("*/", i)
                if j < 0:
                    ctext += line[i:] + " "
                    i = len(line)
                    break
                ctext += line[i:j]
                in_comment = False
                i = j + 2
                # a comment that only names a file ("/* usym.c */") documents nothing
                if not line[i:].strip() and not code.strip() and not FILE_TAG.match(ctext):
                    comment_end.add(no)
                continue
            if line.startswith("/*", i):
                in_comment = True
                ctext = ""
                i += 2
                continue
            if line.startswith("//", i):
                break
            code += line[i]
            i += 1
        for ch in code:
            if depth == 0 and not ch.isspace() and start is None:
                start = no
            if depth == 0:
                cur += ch
            if ch == "{":
                if depth == 0:
                    out.append((start, no, cur))
                    cur, start = "", None
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == ";" and depth == 0:
                out.append((start, no, cur))
                cur, start = "", None
        if depth == 0 and cur:
            cur += " "
    return out, comment_end


def header_functions(path):
    stmts, ends = statements(path)
    funcs = []
    for first, last, text in stmts:
        t = " ".join(text.split())
        if t.startswith(("typedef", "struct", "enum", "union", "extern \"C\"")) and "(" not in \
                t.split("{")[0]:
            continue
        m = DECL.match(t)
        if not m or m.group(1) in KEYWORDS:
            continue
        # a function pointer variable "int (*f)(...)" or a struct holding them is not one
        if re.match(r"^(struct|union|enum)\s+\w+\s*\{", t):
            continue
        funcs.append((m.group(1), first, first - 1 in ends))
    return funcs


def definitions(root):
    """name -> (file, whether a comment block ends right before it)"""
    defs = {}
    for d, _, names in os.walk(os.path.join(root, "src")):
        for n in names:
            if not n.endswith(".c"):
                continue
            path = os.path.join(d, n)
            stmts, ends = statements(path)
            for first, last, text in stmts:
                t = " ".join(text.split())
                if not t.endswith("{") or t.startswith(("static ", "struct", "enum", "union")):
                    continue
                m = DECL.match(t)
                if m and m.group(1) not in KEYWORDS:
                    prev = defs.get(m.group(1))
                    defs[m.group(1)] = (path, (first - 1 in ends) or bool(prev and prev[1]))
    return defs


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = sys.argv[1]
    allow_headers, allow_funcs = set(), set()
    if len(sys.argv) == 3:
        for line in open(sys.argv[2]):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if ":" in line:
                allow_funcs.add(tuple(line.split(":", 1)))
            else:
                allow_headers.add(line)
    defs = definitions(root)
    missing, allowed, total = [], [], 0
    used_allow = set()
    for d, _, names in os.walk(os.path.join(root, "src")):
        for n in sorted(names):
            if not n.endswith(".h"):
                continue
            path = os.path.join(d, n)
            rel = os.path.relpath(path, root)
            for name, line, doc in header_functions(path):
                total += 1
                if doc or (name in defs and defs[name][1]):
                    continue
                if rel in allow_headers or (rel, name) in allow_funcs:
                    allowed.append("%s:%d: %s" % (rel, line, name))
                    used_allow.add(rel if rel in allow_headers else (rel, name))
                    continue
                missing.append("%s:%d: %s()" % (rel, line, name))
    stale = [a for a in sorted(allow_headers) if a not in used_allow] + \
        ["%s:%s" % a for a in sorted(allow_funcs) if a not in used_allow]
    for a in stale:
        print("note: allowlist entry %s is no longer needed: remove it" % a)
    if allowed:
        print("allowlisted, not documented yet: %d function(s) (%s)" %
              (len(allowed), ", ".join(sorted({a.split(":")[0] for a in allowed}))))
    for m in missing:
        print("undocumented: " + m)
    if missing:
        print("FAIL: %d of %d functions declared in src/ headers have no comment block "
              "right before their declaration or definition" % (len(missing), total))
        return 1
    print("ok: %d functions declared in src/ headers, each with a comment block (%d allowlisted)"
          % (total, len(allowed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
