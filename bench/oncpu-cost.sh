#!/bin/sh
# oncpu-cost.sh BUILD [ROUNDS] - what on-CPU profiling at 999 Hz costs a
# CPU-bound workload, beside the peers, in interleaved rounds of one run
# (issue 27; doc/performance.md). The workload: dd copying /dev/zero to
# /dev/null in 4 KiB blocks for 3 s, one per CPU; its bytes a second are
# the measure. Each round runs, in turn: nothing, stacktop --oncpu (999 Hz,
# every CPU), perf record -F 999 -g -a, bpftrace profile:hz:999 counting
# kstack. Prints each round, then per collector the median share of the
# baseline the workload kept and the collector's own CPU (utime + stime of
# its process over the round, % of one CPU). Root.
set -u
BUILD=${1:?usage: oncpu-cost.sh BUILD [ROUNDS]}
ROUNDS=${2:-5}
ST=$BUILD/stacktop
SECS=3
NCPU=$(nproc)
TMP=$(mktemp -d /tmp/oncpu-cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# bytes a second of $NCPU dd's over $SECS seconds
load() {
	i=0
	while [ "$i" -lt "$NCPU" ]; do
		timeout -s INT "$SECS" dd if=/dev/zero of=/dev/null bs=4k 2> "$TMP/dd.$i" &
		i=$((i + 1))
	done
	wait
	cat "$TMP"/dd.* | awk '/bytes/ { b += $1 } END { printf "%.0f\n", b / '"$SECS"' }'
}

# CPU seconds (utime + stime) of pid $1
cpu_of() {
	awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat" 2> /dev/null || echo 0
}

run() { # name, command...
	name=$1
	shift
	if [ "$name" = none ]; then
		echo "$(load) 0"
		return
	fi
	"$@" > /dev/null 2>&1 &
	pid=$!
	sleep 1 # set up
	c0=$(cpu_of "$pid")
	bps=$(load)
	c1=$(cpu_of "$pid")
	kill -INT "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	echo "$bps $(echo "$c0 $c1" | awk '{ printf "%.1f", 100 * ($2 - $1) / '"$SECS"' }')"
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in none stacktop perf bpftrace; do
		case $c in
		none) out=$(run none) ;;
		stacktop) out=$(run stacktop "$ST" --oncpu -b -d 30 -n 1 -o "$TMP/st.json") ;;
		perf) out=$(run perf perf record -F 999 -g -a -o "$TMP/perf.data") ;;
		bpftrace) out=$(run bpftrace bpftrace -e 'profile:hz:999 { @[kstack] = count(); }') ;;
		esac
		echo "round $r $c $out"
	done
	r=$((r + 1))
done | tee "$TMP/rounds"
python3 - "$TMP/rounds" << 'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
base = {int(r[1]): float(r[3]) for r in rows if r[2] == "none"}
for c in ("stacktop", "perf", "bpftrace"):
    keep = [100 * float(r[3]) / base[int(r[1])] for r in rows if r[2] == c and base.get(int(r[1]))]
    own = [float(r[4]) for r in rows if r[2] == c]
    if keep:
        print("%-9s keeps %5.1f%% of the baseline (median of %d rounds, %.1f-%.1f), own CPU %5.1f%%"
              % (c, statistics.median(keep), len(keep), min(keep), max(keep), statistics.median(own)))
PY
