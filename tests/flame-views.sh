#!/bin/sh
# The flame graph page's views (issue 28) on a known workload
# (tests/fixtures/flame/gen-known.py, read back with -r): left-heavy,
# inverted, the sandwich and its function table, focus and merge with undo,
# the filters by event, process and CPU, the tooltip, the URL fragment
# across a reload; in Debian's chromium, headless, driven by puppeteer-core
# (tests/live/flame-browser.js views). Needs no root. 77: skipped (no
# chromium, node or npm; fails instead under CI=true).
set -eu
: "${STACKTOP:?}" "${SRCDIR:?}" "${TOOLS:?}"
skip() {
	[ "${CI:-}" = true ] && { echo "FAIL: $1" >&2; exit 1; }
	echo "SKIP: $1"
	exit 77
}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || skip "no $CHROMIUM (scripts/deps.sh test)"
command -v node > /dev/null || skip "no node"
V=$(sed -n 's/^PUPPETEER_VERSION=//p' "$SRCDIR/tests/live/export-tools.sh")
if [ ! -f "$TOOLS/browser/node_modules/puppeteer-core/package.json" ]; then
	command -v npm > /dev/null || skip "no npm"
	mkdir -p "$TOOLS/browser"
	PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$TOOLS/browser" --no-audit --no-fund \
		--loglevel=error "puppeteer-core@$V" > /dev/null || skip "npm install puppeteer-core failed"
fi
OUT=${FLAME_VIEWS_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/stacktop-flameviews.XXXXXX")}
mkdir -p "$OUT"
python3 "$SRCDIR/tests/fixtures/flame/gen-known.py" "$OUT/known.json"
"$STACKTOP" -r "$OUT/known.json" -o "$OUT/known.html"
node "$SRCDIR/tests/live/flame-browser.js" "$TOOLS/browser/node_modules" "$CHROMIUM" views \
	"$OUT/known.html" "$OUT"
echo "screenshots in $OUT"
