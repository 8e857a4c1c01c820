#!/bin/sh
# The differential flame graph page (issue 28): --diff BEFORE AFTER -o
# d.html and -r AFTER --diff-base BEFORE on a constructed pair whose
# shares are known (X doubled, Y halved, Z the same, W gone, V new), checked in
# Debian's chromium, headless (tests/live/flame-diff.js). Needs no root.
# 77: skipped (no chromium, node or the npm test tools
# scripts/deps.sh installs; fails instead under CI=true).
set -eu
: "${STACKTOP:?}" "${SRCDIR:?}"
skip() {
	[ "${CI:-}" = true ] && { echo "FAIL: $1" >&2; exit 1; }
	echo "SKIP: $1"
	exit 77
}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "no $CHROMIUM (scripts/deps.sh test)"
command -v node > /dev/null || skip "no node"
. "$SRCDIR/tests/lib/npm-tools.sh"
MODULES=$(npm_modules) || skip "no npm test tools"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/stacktop-flamediff.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
python3 - "$OUT/before.json" "$OUT/after.json" << 'PY'
import json, sys
def snap(counts, shift, host):
    stacks = []
    for i, (name, n) in enumerate(sorted(counts.items(), key=lambda x: -x[1])):
        base = 0xffffffff81000000 + 0x1000 * (ord(name) - 64) + shift
        stacks.append({"key": "%016x" % (0x1000 + i), "total": n, "delta": n, "depth": 2,
            "ids": [], "more_ids": False, "fallback": False, "mapped": False,
            "merged64": False, "cut": False,
            "frames": ["0x%x" % (base + 0x10), "0x%x" % (base + 0x800)],
            "symbols": ["leaf_%s+0x10/0x100" % name, "caller_%s+0x0/0x80" % name],
            "by": [{"event": "sched:sched_switch", "cpu": 0, "pid": 100, "comm": "w",
                    "total": n, "delta": n}]})
    hits = sum(counts.values())
    return {"schema": "stacktop-snapshot", "version": 2, "stacktop": "0.1.0",
            "timestamp": 1.0, "time": "1970-01-01T00:00:01.000Z", "host": host,
            "kernel": "6.18.0", "source": "/sys/kernel/tracing", "iteration": 1,
            "mode": "stacks", "interval": 1.0, "events": ["sched:sched_switch"],
            "traced": "sched:sched_switch",
            "view": {"sort": "hits", "ascending": False, "counts": "delta", "event": None,
                     "pid": None, "cpu": None, "filter": None, "hide_idle": False, "top": 0},
            "hits": hits, "hits_delta": hits, "unique": len(counts), "matched": len(counts),
            "matched_total": hits, "matched_delta": hits, "lost": 0, "overrun": 0,
            "dropped": 0, "orphans": 0, "bad_pages": 0, "fallbacks": 0, "unresolved": 0,
            "generation": 0, "tracing_on": True, "stackmap_on": False, "stacks": stacks}
# BEFORE: X 20, Y 40, Z 30, W 10 (of 100); AFTER: X 80, Y 40, Z 60, V 20 (of
# 200): X's share doubled, Y's halved, Z's the same, W gone, V new
open(sys.argv[1], "w").write(json.dumps(snap({"X": 20, "Y": 40, "Z": 30, "W": 10}, 0, "one")) + "\n")
open(sys.argv[2], "w").write(json.dumps(snap({"X": 80, "Y": 40, "Z": 60, "V": 20}, 0x200000, "two")) + "\n")
PY
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
echo "PASS: the differential flame page colours, counts and lists what changed"
