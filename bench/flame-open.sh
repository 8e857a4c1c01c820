#!/bin/sh
# bench/flame-open.sh BUILD [STACKS] [FRAMES] [USER]: the flame graph page
# (--format html, and the svg image) of a large synthetic snapshot (bench/snapshot-gen.py,
# default 100000 stacks of 24 kernel frames and 8 user frames on every
# second one): the cost of writing it, its size against the folded output
# of the same view, and how long Debian's chromium takes to open it (the
# page's own performance.now() from navigation start to its first drawing
# painted) and to hover, zoom, reset and search in it, and to build its
# derived views (inverted, sandwich, a function chosen, a filter by event:
# issue 28) (doc/performance.md, "The flame graph page"). Best of 3. Needs no root; needs chromium and
# node, and puppeteer-core (npm: scripts/deps.sh test installs it, once).
set -eu
build=${1:?usage: $0 BUILD [STACKS] [FRAMES] [USER]}
n=${2:-100000}
frames=${3:-24}
user=${4:-8}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
bin=$build/stacktop
work=$(mktemp -d "${TMPDIR:-/tmp}/stacktop-flamebench.XXXXXX")
trap 'rm -rf "$work"' EXIT
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "no $CHROMIUM (Debian's chromium: scripts/deps.sh test)" >&2; exit 1; }
SRCDIR=$here/..
. "$here/../tests/lib/npm-tools.sh"
modules=$(npm_modules) || exit 1

python3 "$here/snapshot-gen.py" "$work/big.json" "$n" "$frames" "$user"
echo "snapshot: $(wc -c < "$work/big.json") bytes, $n stacks of $frames frames (+$user user frames on half)"

best() { # best of 3: "seconds cpu-seconds KB"
	label=$1
	shift
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" > /dev/null
		cat "$work/t"
	done | sort -n | head -1 |
		awk -v l="$label" '{ printf "%-7s %6.2f s  cpu %6.2f s  peak RSS %7.1f MB\n", l, $1, $2 + $3, $4 / 1024 }'
}
best read "$bin" -r "$work/big.json" -b -n 1 --top 1 --expand 0
best html "$bin" -r "$work/big.json" -o "$work/big.html"
best svg "$bin" -r "$work/big.json" -o "$work/big.svg"
best folded "$bin" -r "$work/big.json" -o "$work/big.folded"
echo "html:   $(wc -c < "$work/big.html") bytes; svg: $(wc -c < "$work/big.svg") bytes;" \
	"folded: $(wc -c < "$work/big.folded") bytes"
for i in 1 2 3; do
	mkdir -p "$work/o$i"
	node "$here/../tests/live/flame-browser.js" "$modules" "$CHROMIUM" open \
		"$work/big.html" "$work/o$i"
done
