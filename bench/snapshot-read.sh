#!/bin/sh
# bench/snapshot-read.sh BUILD [STACKS] [FRAMES]: the cost of reading a JSON
# snapshot back (-r) against the cost of writing it (doc/performance.md,
# "Reading a snapshot"). Generates a synthetic snapshot (bench/snapshot-gen.py,
# default 80000 stacks of 24 frames: about 118 MB), then reports for
#   read   stacktop -r big.json -b -n 1 --top 1 --expand 0   (read, rank, one row)
#   rw     stacktop -r big.json -b -n 1 --json -o out.json   (read, then write it all)
# the elapsed and CPU time and peak RSS (/usr/bin/time, best of 3). Writing
# costs about rw - read. Needs no root. (valgrind refuses stacktop's signal
# setup: the reader's instructions were counted through a small driver of
# snapshot_load(), see doc/performance.md.)
set -eu
build=${1:?usage: $0 BUILD [STACKS] [FRAMES]}
n=${2:-80000}
frames=${3:-24}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)/stacktop
work=$(mktemp -d "${TMPDIR:-/tmp}/stacktop-snapbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$here/snapshot-gen.py" "$work/big.json" "$n" "$frames"
echo "snapshot: $(wc -c < "$work/big.json") bytes, $n stacks of $frames frames"

best() { # best of 3: "seconds cpu-seconds KB"
	label=$1
	shift
	for i in 1 2 3; do
		rm -f "$work/out.json"
		/usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" > /dev/null
		cat "$work/t"
	done | sort -n | head -1 |
		awk -v l="$label" '{ printf "%-5s %6.2f s  cpu %6.2f s  peak RSS %7.1f MB\n", l, $1, $2 + $3, $4 / 1024 }'
}
best read "$bin" -r "$work/big.json" -b -n 1 --top 1 --expand 0
best rw "$bin" -r "$work/big.json" -b -n 1 --json -o "$work/out.json"
