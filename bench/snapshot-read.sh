#!/bin/sh
# bench/snapshot-read.sh BUILD [STACKS] [FRAMES]: the cost of reading a JSON
# snapshot back (-r) against the cost of writing it (doc/performance.md,
# "Reading a snapshot"). Generates a synthetic snapshot (bench/snapshot-gen.py,
# default 80000 stacks of 24 frames: about 118 MB), then reports for
#   read   stacktop -r big.json -b -n 1 --top 1 --expand 0   (read, rank, one row)
#   rw     stacktop -r big.json -b -n 1 --json -o out.json   (read, then write it all)
# the elapsed time and peak RSS (/usr/bin/time, best of 3), and instructions
# (callgrind, on a tenth of the stacks: valgrind is slow) when valgrind is
# there. Writing costs about rw - read. Needs no root.
set -eu
build=${1:?usage: $0 BUILD [STACKS] [FRAMES]}
n=${2:-80000}
frames=${3:-24}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$build" && pwd)/stacktop
work=$(mktemp -d "${TMPDIR:-/tmp}/stacktop-snapbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$here/snapshot-gen.py" "$work/big.json" "$n" "$frames"
python3 "$here/snapshot-gen.py" "$work/small.json" "$((n / 10))" "$frames"
echo "snapshot: $(wc -c < "$work/big.json") bytes, $n stacks of $frames frames"

best() { # best of 3: "seconds KB"
	label=$1
	shift
	for i in 1 2 3; do
		rm -f "$work/out.json"
		/usr/bin/time -f "%e %M" -o "$work/t" "$@" > /dev/null
		cat "$work/t"
	done | sort -n | head -1 | awk -v l="$label" '{ printf "%-5s %6.2f s  peak RSS %7.1f MB\n", l, $1, $2 / 1024 }'
}
best read "$bin" -r "$work/big.json" -b -n 1 --top 1 --expand 0
best rw "$bin" -r "$work/big.json" -b -n 1 --json -o "$work/out.json"
if command -v valgrind > /dev/null; then
	for what in read rw; do
		rm -f "$work/out.json" "$work/cg.out"
		if [ "$what" = read ]; then
			set -- -r "$work/small.json" -b -n 1 --top 1 --expand 0
		else
			set -- -r "$work/small.json" -b -n 1 --json -o "$work/out.json"
		fi
		valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" "$@" \
			> /dev/null 2> "$work/vg.log"
		awk -v l="$what" '/^summary:|^totals:/ { printf "%-5s %.3g instructions (%d stacks)\n", l, $2, '"$((n / 10))"'; exit }' "$work/cg.out"
	done
fi
