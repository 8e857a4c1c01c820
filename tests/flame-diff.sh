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
echo "PASS: the differential flame page colours, counts and lists what changed"
