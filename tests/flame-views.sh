#!/bin/sh
# The flame graph page's views (issue 28) on a known workload
# (tests/fixtures/flame/gen-known.py, read back with -r): left-heavy,
# inverted, the sandwich and its function table, focus and merge with undo,
# the filters by event, process and CPU, the tooltip, the URL fragment
# across a reload; in Debian's chromium, headless, driven by puppeteer-core
# (tests/live/flame-browser.js views). Needs no root. 77: skipped (no
# chromium, node or the npm test tools scripts/deps.sh installs; a
# failure under CI=true, scripts/test.sh says).
set -eu
: "${STACKTOP:?}" "${SRCDIR:?}"
. "$SRCDIR/tests/lib/common.sh"
. "$SRCDIR/tests/lib/npm-tools.sh"
browser_tools
OUT=${FLAME_VIEWS_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/stacktop-flameviews.XXXXXX")}
mkdir -p "$OUT"
python3 "$SRCDIR/tests/fixtures/flame/gen-known.py" "$OUT/known.json"
"$STACKTOP" -r "$OUT/known.json" -o "$OUT/known.html"
node "$SRCDIR/tests/live/flame-browser.js" "$MODULES" "$CHROMIUM" views \
	"$OUT/known.html" "$OUT"
echo "screenshots in $OUT"
