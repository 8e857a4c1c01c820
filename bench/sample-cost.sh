#!/bin/sh
# sample-cost.sh BUILD [ROUNDS] - what a hot event's stacks cost its
# workload (issue 29; doc/performance.md), in interleaved rounds of one run:
# dd copying /dev/zero to /dev/null one byte at a time (two system calls a
# byte), one per CPU, for 3 s; raw_syscalls:sys_enter traced system-wide by:
# nothing, stacktop with a stack for every event, stacktop --sample 100 and
# --sample 1000, bpftrace counting kstack, perf stat (counting only: the
# limit for exact counts). Prints each round, then per collector the median
# share of the baseline the workload kept. Root.
set -u
BUILD=${1:?usage: sample-cost.sh BUILD [ROUNDS]}
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
		timeout -s INT "$SECS" dd if=/dev/zero of=/dev/null bs=1 2> "$TMP/dd.$i" &
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
	for c in none every sample100 sample1000 bpftrace perfstat; do
		E=raw_syscalls:sys_enter
		case $c in
		none) out=$(run none) ;;
		every) out=$(run every "$ST" -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		sample100) out=$(run sample100 "$ST" --sample 100 -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		sample1000) out=$(run sample1000 "$ST" --sample 1000 -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		bpftrace) out=$(run bpftrace bpftrace -e "tracepoint:raw_syscalls:sys_enter { @[kstack] = count(); }") ;;
		perfstat) out=$(run perfstat perf stat -a -e $E) ;;
		esac
		echo "round $r $c $out"
	done
	r=$((r + 1))
done | tee "$TMP/rounds"
python3 - "$TMP/rounds" << 'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
base = {int(r[1]): float(r[3]) for r in rows if r[2] == "none"}
for c in ("every", "sample100", "sample1000", "bpftrace", "perfstat"):
    keep = [100 * float(r[3]) / base[int(r[1])] for r in rows if r[2] == c and base.get(int(r[1]))]
    own = [float(r[4]) for r in rows if r[2] == c]
    if keep:
        print("%-9s keeps %5.1f%% of the baseline (median of %d rounds, %.1f-%.1f), own CPU %5.1f%%"
              % (c, statistics.median(keep), len(keep), min(keep), max(keep), statistics.median(own)))
PY
