#!/bin/sh
# sample-bias.sh BUILD [ROUNDS] [PERIOD] [system|cmd] - issue 35's mixed
# workload, traced at once by perf record -c PERIOD --no-period -g, stacktop
# --sample PERIOD, stacktop with every stack and perf stat
# (sched:sched_switch; system: every CPU, each collector on its own; cmd:
# nested, perf record -- stacktop -- stacktop --sample -- the workload, each
# following its command's tree, stacktop's own rows left out of the shares):
# per round the share of the switches whose first frame below schedule is
# io_schedule, and tar's share, in each, the sampled run's 95% interval,
# and its rows' hits against its exact count. Root. The workload: one perf
# bench sched pipe -l 150000, tar cf - /usr/share | wc -c, 100 x sleep 0.01
# and a dd oflag=dsync, all at once.
set -u
BUILD=${1:?usage: sample-bias.sh BUILD [ROUNDS] [PERIOD]}
ROUNDS=${2:-3}
N=${3:-100}
MODE=${4:-system}
ST=$BUILD/stacktop
E=sched:sched_switch
TMP=$(mktemp -d /tmp/sample-bias.XXXXXX)
PIDS=
trap 'for p in $PIDS; do kill -INT "$p" 2> /dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
HERE=$(cd "$(dirname "$0")" && pwd)

# the workload, on its own: sample-bias.sh BUILD x x workload
workload() {
	perf bench sched pipe -l 150000 > /dev/null 2>&1 &
	w1=$!
	(tar cf - /usr/share 2> /dev/null | wc -c > /dev/null) &
	w2=$!
	(i=0; while [ $i -lt 100 ]; do sleep 0.01; i=$((i + 1)); done) &
	w3=$!
	dd if=/dev/zero of="$TMP/dd.out" bs=4k count=400 oflag=dsync 2> /dev/null &
	w4=$!
	wait $w1 $w2 $w3 $w4
	rm -f "$TMP/dd.out"
}

if [ "$MODE" = workload ]; then
	workload
	exit 0
fi
r=1
while [ "$r" -le "$ROUNDS" ]; do
	sync
	echo 3 > /proc/sys/vm/drop_caches # tar reads the disk: io_schedule
	if [ "$MODE" = cmd ]; then
		perf stat -x, -e $E -o "$TMP/stat" -- perf record -g --no-period -c "$N" -e $E \
			-o "$TMP/p.data" -- "$ST" -e $E --buffer-kb 65536 -b --json -d 600 -o "$TMP/e.json" -- \
			"$ST" --sample "$N" -e $E -b --json -d 600 -o "$TMP/s.json" -- \
			sh "$0" "$BUILD" 0 "$N" workload > /dev/null 2> "$TMP/cmd.err"
		perf script -i "$TMP/p.data" -F comm,ip,sym > "$TMP/p.txt" 2> /dev/null
		# -o with more than one report: NAME.N.json, the last the whole run
		python3 "$HERE/sample-bias.py" "$(ls -v "$TMP"/s*.json | tail -1)" \
			"$(ls -v "$TMP"/e*.json | tail -1)" "$TMP/p.txt" "$TMP/stat" "$r" ${VERBOSE:+rows}
		[ -n "${KEEP:-}" ] || rm -f "$TMP"/*.json
		r=$((r + 1))
		continue
	fi
	perf record -a -g --no-period -c "$N" -e $E -o "$TMP/p.data" > /dev/null 2>&1 &
	pr=$!
	perf stat -a -x, -e $E -o "$TMP/stat" > /dev/null 2>&1 &
	ps=$!
	"$ST" --sample "$N" -e $E -b --json -d 600 -n 1 > "$TMP/s.json" 2> "$TMP/s.err" &
	s=$!
	"$ST" -e $E --buffer-kb 65536 -b --json -d 600 -n 1 > "$TMP/e.json" 2> "$TMP/e.err" &
	e=$!
	PIDS="$pr $ps $s $e"
	sleep 2
	workload
	sleep 0.5
	kill -INT $s $e $pr $ps
	wait $s $e $pr $ps
	PIDS=
	perf script -i "$TMP/p.data" -F comm,ip,sym > "$TMP/p.txt" 2> /dev/null
	python3 "$HERE/sample-bias.py" "$TMP/s.json" "$TMP/e.json" "$TMP/p.txt" "$TMP/stat" "$r" ${VERBOSE:+rows}
	r=$((r + 1))
done
