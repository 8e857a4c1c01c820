#!/bin/sh
# The differential flame graph page (issue 28): --diff BEFORE AFTER -o
# d.html and -r AFTER --diff-base BEFORE on a constructed pair whose
# shares are known (X doubled, Y halved, Z the same, W gone, V new), checked in
# Debian's chromium, headless (tests/live/flame-diff.js). Needs no root.
# 77: skipped (no chromium, node or the npm test tools
# scripts/deps.sh installs; fails instead under CI=true).
set -eu
: "${STACKTOP:?}" "${SRCDIR:?}"
. "$SRCDIR/tests/lib/common.sh"
. "$SRCDIR/tests/lib/npm-tools.sh"
browser_tools
OUT=$(mktemp -d "${TMPDIR:-/tmp}/stacktop-flamediff.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
python3 "$SRCDIR/tests/fixtures/flame/gen-diff.py" "$OUT/before.json" "$OUT/after.json"
"$STACKTOP" --diff "$OUT/before.json" "$OUT/after.json" -o "$OUT/d.html"
"$STACKTOP" -r "$OUT/after.json" --diff-base "$OUT/before.json" -o "$OUT/d2.html"
# the same page either way, but for the time it was written
sed 's/"time":"[^"]*"//' "$OUT/d.html" > "$OUT/a"
sed 's/"time":"[^"]*"//' "$OUT/d2.html" > "$OUT/b"
cmp -s "$OUT/a" "$OUT/b" || { echo "FAIL: --diff-base wrote another page than --diff" >&2; exit 1; }
if "$STACKTOP" --diff "$OUT/before.json" "$OUT/after.json" -o "$OUT/d.folded" 2> "$OUT/err"; then
	echo "FAIL: --diff -o x.folded was accepted" >&2
	exit 1
fi
grep -q 'diff writes text, json or html' "$OUT/err" || { cat "$OUT/err"; exit 1; }
node "$SRCDIR/tests/live/flame-diff.js" "$MODULES" "$CHROMIUM" "$OUT/d.html" "$OUT"
cp "$OUT/diff.png" "${TMPDIR:-/tmp}/stacktop-flame-diff.png" 2> /dev/null || true
# a large pair (3,000 and 2,500 stacks of bench/snapshot-gen.py: both trees
# as binary columns): each frame's two counts are its path's in the folded
# outputs of the two sides
python3 "$SRCDIR/bench/snapshot-gen.py" "$OUT/big-a.json" 3000 24 8 > /dev/null
python3 "$SRCDIR/bench/snapshot-gen.py" "$OUT/big-b.json" 2500 24 8 > /dev/null
"$STACKTOP" --diff "$OUT/big-b.json" "$OUT/big-a.json" -o "$OUT/big.html"
"$STACKTOP" -r "$OUT/big-b.json" --format folded > "$OUT/big-b.folded"
"$STACKTOP" -r "$OUT/big-a.json" --format folded > "$OUT/big-a.folded"
node "$SRCDIR/tests/live/flame-diff.js" "$MODULES" "$CHROMIUM" "$OUT/big.html" "$OUT" \
	"$OUT/big-b.folded" "$OUT/big-a.folded" > "$OUT/big.out"
cat "$OUT/big.out"
grep -q '"form":"cols"' "$OUT/big.out" || { echo "FAIL: the large pair is not columns" >&2; exit 1; }
# a small AFTER against the large BEFORE: its JSON (BEFORE's tree) gzip'd
"$STACKTOP" --diff "$OUT/big-b.json" "$OUT/after.json" -o "$OUT/mixed.html"
"$STACKTOP" -r "$OUT/after.json" --format folded > "$OUT/after.folded"
node "$SRCDIR/tests/live/flame-diff.js" "$MODULES" "$CHROMIUM" "$OUT/mixed.html" "$OUT" \
	"$OUT/big-b.folded" "$OUT/after.folded" > "$OUT/mixed.out"
cat "$OUT/mixed.out"
grep -q '"form":"gzip"' "$OUT/mixed.out" || { echo "FAIL: the mixed pair is not gzip'd JSON" >&2; exit 1; }
# --oncpu without -u: each command's user time is its own [user space] box
# under its command (issue 35: one red +69% box for every process): alpha's
# share grew, beta's shrank, each frame's two counts its path's
python3 - "$OUT/user-a.json" "$OUT/user-b.json" << 'PY'
import json, sys
def snap(counts):
    stacks = []
    for i, (name, n) in enumerate(sorted(counts.items(), key=lambda x: -x[1])):
        if name == "kernel":
            frames, syms = ["0xffffffff81001010", "0xffffffff81002000"], \
                ["leaf_K+0x10/0x100", "caller_K+0x0/0x80"]
        else:
            frames = ["0x7ffffffe", "0x%x" % (0xc03300000000 + i)]
            syms = ["[user space]", name]
        stacks.append({"key": "%016x" % (0x2000 + i), "total": n, "delta": n, "depth": 2,
            "ids": [], "more_ids": False, "fallback": False, "mapped": False,
            "merged64": False, "cut": False, "frames": frames, "symbols": syms,
            "by": [{"event": "perf:cpu-clock", "cpu": 0, "pid": 100 + i,
                    "comm": "swapper" if name == "kernel" else name, "total": n, "delta": n}]})
    hits = sum(counts.values())
    return {"schema": "stacktop-snapshot", "version": 2, "stacktop": "0.1.0",
            "timestamp": 1.0, "time": "2026-12-06T00:00:00Z", "host": "h", "kernel": None,
            "source": "/sys/kernel/tracing", "iteration": 1, "mode": "oncpu", "interval": 1.0,
            "events": ["perf:cpu-clock"], "traced": "perf:cpu-clock",
            "view": {"sort": "hits", "ascending": False, "counts": "delta", "event": None,
                     "pid": None, "cpu": None, "filter": None, "hide_idle": False, "top": 0},
            "hits": hits, "hits_delta": hits, "unique": len(counts), "matched": len(counts),
            "matched_total": hits, "matched_delta": hits, "lost": 0, "overrun": 0,
            "dropped": 0, "orphans": 0, "bad_pages": 0, "fallbacks": 0, "unresolved": 0,
            "generation": 0, "tracing_on": True, "stackmap_on": False, "stacks": stacks}
open(sys.argv[1], "w").write(json.dumps(snap({"alpha": 30, "beta": 30, "kernel": 40})) + "\n")
open(sys.argv[2], "w").write(json.dumps(snap({"alpha": 60, "beta": 10, "kernel": 30})) + "\n")
PY
"$STACKTOP" --diff "$OUT/user-a.json" "$OUT/user-b.json" -o "$OUT/user.html"
"$STACKTOP" -r "$OUT/user-a.json" --format folded > "$OUT/user-a.folded"
"$STACKTOP" -r "$OUT/user-b.json" --format folded > "$OUT/user-b.folded"
for c in alpha beta; do
	grep -qx "$c;\[user_space\] [0-9]*" "$OUT/user-b.folded" ||
		{ echo "FAIL: no $c;[user_space] line: $(cat "$OUT/user-b.folded")" >&2; exit 1; }
done
node "$SRCDIR/tests/live/flame-diff.js" "$MODULES" "$CHROMIUM" "$OUT/user.html" "$OUT" \
	"$OUT/user-a.folded" "$OUT/user-b.folded" any > "$OUT/user.out"
cat "$OUT/user.out"
"$STACKTOP" --diff "$OUT/user-a.json" "$OUT/user-b.json" > "$OUT/user.txt"
cat "$OUT/user.txt"
grep -q '\[user space\] < alpha' "$OUT/user.txt" && grep -q '\[user space\] < beta' "$OUT/user.txt" ||
	{ echo "FAIL: the text diff does not tell the commands' [user space] apart" >&2; exit 1; }
echo "PASS: the differential flame page colours, counts and lists what changed"
