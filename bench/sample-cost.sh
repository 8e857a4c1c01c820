#!/bin/sh
# sample-cost.sh BUILD [ROUNDS] [WORKLOAD] - what a hot event's stacks cost
# its workload (issue 29; doc/performance.md), in interleaved rounds of one
# run. WORKLOAD read (default): dd copying /dev/zero to /dev/null one byte
# at a time (two system calls a byte), one per CPU, for 3 s, the event
# raw_syscalls:sys_enter; pingpong: perf bench sched pipe -T (two threads
# passing a byte, a context switch each way), the event sched:sched_switch.
# The event is traced system-wide by: nothing, stacktop with a stack for
# every event, stacktop --sample 10/100/1000, --overhead 5, bpftrace
# counting kstack, perf record -g, perf record --no-period -c 100 -g, perf
# stat (counting only: the limit for exact counts); COLLECTORS='none ...'
# picks some (none first); BEFORE=path/to/stacktop adds before10/before100,
# another build's --sample side by side in the same rounds. Prints each
# round, then
# per collector the median share of the baseline the workload kept and the
# collector's own CPU. Root.
set -u
BUILD=${1:?usage: sample-cost.sh BUILD [ROUNDS]}
ROUNDS=${2:-5}
WORKLOAD=${3:-read}
ST=$BUILD/stacktop
SECS=3
NCPU=$(nproc)
TMP=$(mktemp -d /tmp/oncpu-cost.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# the workload's rate over $SECS seconds: bytes a second of $NCPU dd's, or
# ping-pong round trips a second
load() {
	if [ "$WORKLOAD" = pingpong ]; then
		# a fixed number of round trips (interrupted, perf bench prints
		# nothing): ~3 s untraced here
		perf bench sched pipe -T -l 100000 > "$TMP/pp" 2>&1
		awk '/ops\/sec/ { print $1; f = 1 } END { if (!f) print 0 }' "$TMP/pp"
		return
	fi
	i=0
	# --foreground: the signal to dd alone; timeout's second one, to its
	# group, could reach dd after its handler was reset (SA_RESETHAND) and
	# end it before it printed its count (about 1 round in 3 read 0)
	while [ "$i" -lt "$NCPU" ]; do
		timeout --foreground -s INT "$SECS" dd if=/dev/zero of=/dev/null bs=1 2> "$TMP/dd.$i" &
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
	t0=$(date +%s.%N)
	bps=$(load)
	t1=$(date +%s.%N)
	c1=$(cpu_of "$pid")
	kill -INT "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	echo "$bps $(echo "$c0 $c1 $t0 $t1" | awk '{ printf "%.1f", 100 * ($2 - $1) / ($4 - $3) }')"
}

COLLECTORS=${COLLECTORS:-"none every sample10 sample100 sample1000 overhead5 bpftrace perfrecord perfc100 perfstat"}
E=raw_syscalls:sys_enter
BE=raw_syscalls:sys_enter
if [ "$WORKLOAD" = pingpong ]; then
	E=sched:sched_switch
	BE=sched:sched_switch
fi
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $COLLECTORS; do
		case $c in
		none) out=$(run none) ;;
		every) out=$(run every "$ST" -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		sample*) out=$(run $c "$ST" --sample "${c#sample}" -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		before*) out=$(run $c "$BEFORE" --sample "${c#before}" -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		overhead5) out=$(run $c "$ST" --overhead 5 -e $E -b -d 30 -n 1 -o "$TMP/st.json") ;;
		bpftrace) out=$(run bpftrace bpftrace -e "tracepoint:$BE { @[kstack] = count(); }") ;;
		perfrecord) out=$(run $c perf record -a -g -e $E -o "$TMP/p.data") ;;
		perfc100) out=$(run $c perf record -a -g --no-period -c 100 -e $E -o "$TMP/p.data") ;;
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
stat = {int(r[1]): float(r[3]) for r in rows if r[2] == "perfstat"}
for c in ("every", "sample10", "sample100", "sample1000", "before10", "before100", "overhead5",
          "bpftrace", "perfrecord", "perfc100", "perfstat"):
    keep = [100 * float(r[3]) / base[int(r[1])] for r in rows if r[2] == c and base.get(int(r[1]))]
    own = [float(r[4]) for r in rows if r[2] == c]
    # its rate over perf stat's in the same round (the rounds' baselines move)
    of = [float(r[3]) / stat[int(r[1])] for r in rows if r[2] == c and stat.get(int(r[1]))]
    if keep:
        print("%-9s keeps %5.1f%% of the baseline (median of %d rounds, %.1f-%.1f), own CPU %5.1f%%%s"
              % (c, statistics.median(keep), len(keep), min(keep), max(keep), statistics.median(own),
                 ", %.2f of perf stat's" % statistics.median(of) if of else ""))
PY
