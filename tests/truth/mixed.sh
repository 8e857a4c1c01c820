#!/bin/sh
# truth-mixed: issue 35's mixed workload (one perf bench sched pipe, tar cf
# - /usr/share | wc -c, 100 x sleep 0.01, a dd oflag=dsync), traced at once
# by perf stat -a (the exact count), perf record -a -c 100 -g (a peer),
# stacktop --sample 100 and stacktop with every stack (the truth), all on
# sched:sched_switch. The sampled run's header hits are its exact count and
# its rows add up to it; the shares of io_schedule (the first frame below
# schedule: tar's reads) and of tar lie within their stated intervals of
# the every-stack run's (tests/truth/mixed.py says how).
. "$(dirname "$0")/../live/lib.sh"
command -v perf > /dev/null || skip "perf is not installed (scripts/deps.sh installs it)"
E=sched:sched_switch
HERE=$(cd "$(dirname "$0")" && pwd)

# tar reads the disk (io_schedule) only what is not cached: the page cache
# of /usr/share dropped (clean pages only; nothing is lost, a later read
# reads the disk again)
sync
echo 1 > /proc/sys/vm/drop_caches
perf record -a -g --no-period -c 100 -e $E -o "$WORK/p.data" > /dev/null 2> "$WORK/p.err" &
PR=$!
perf stat -a -x, -e $E -o "$WORK/stat" > /dev/null 2>&1 &
PS=$!
"$STACKTOP" --sample 100 -e $E -b --json -d 600 -n 1 > "$WORK/s.json" 2> "$WORK/s.err" &
S=$!
"$STACKTOP" -e $E --buffer-kb 65536 -b --json -d 600 -n 1 > "$WORK/e.json" 2> "$WORK/e.err" &
A=$!
EXTRA_PIDS="$PR $PS $S $A"
sleep 2
perf bench sched pipe -l 150000 > /dev/null 2>&1 &
w1=$!
(tar cf - /usr/share 2> /dev/null | wc -c > /dev/null) &
w2=$!
(i=0; while [ $i -lt 100 ]; do sleep 0.01; i=$((i + 1)); done) &
w3=$!
dd if=/dev/zero of="$WORK/dd.out" bs=4k count=400 oflag=dsync 2> /dev/null &
w4=$!
EXTRA_PIDS="$EXTRA_PIDS $w1 $w2 $w3 $w4"
wait $w1 $w2 $w3 $w4
sleep 0.5
kill -INT $S $A $PR $PS
wait $S || { cat "$WORK/s.err"; fail "stacktop --sample failed"; }
wait $A || { cat "$WORK/e.err"; fail "stacktop (every stack) failed"; }
wait $PR $PS
EXTRA_PIDS=
perf script -i "$WORK/p.data" -F comm,ip,sym > "$WORK/p.txt" 2> /dev/null ||
	fail "perf script failed"
python3 "$HERE/mixed.py" "$WORK/s.json" "$WORK/e.json" "$WORK/p.txt" "$WORK/stat" ||
	fail "--sample 100 on the mixed workload: other numbers than every stack"
echo "PASS: --sample 100 on the mixed workload: the exact count, io_schedule and tar inside"
