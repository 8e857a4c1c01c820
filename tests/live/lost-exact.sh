#!/bin/sh
# lost counts events, exactly (issue 35): the kernel counts ring-buffer
# records (an event and its stack are two), and stacktop once reported them
# as events, twice what was missing. Here a known workload (tests/truth/
# pingpong.c: two processes named after this test handing a byte to each
# other, a context switch at every hop) runs under stacktop with a 64 KiB
# buffer a CPU, and stacktop is stopped from 0.2 s in until it has ended,
# so that the buffer overflows for certain; perf stat counts the same event with the
# same filter (the workload's name: stacktop's own events and the rest of
# a busy machine are in neither count) over a window that holds stacktop's.
# The workload runs inside stacktop's tracing (-- CMD), so hits + lost
# must be perf's count: within 1%, with at least 5% of it lost (a count
# of records would be off by as much as was lost).
. "$(dirname "$0")/lib.sh"
command -v perf > /dev/null || fail "perf is not installed (scripts/deps.sh installs it)"
[ -x "${PINGPONG:-}" ] || fail "no PINGPONG helper"

NAME=stlost$$
FILTER="prev_comm == \"$NAME\""
ROUNDS=50000
perf stat -a -x, -e sched:sched_switch --filter "$FILTER" -o "$WORK/perf" -- \
	"$STACKTOP" --buffer-kb 64 -b --json -e "sched:sched_switch if $FILTER" -- \
	"$PINGPONG" "$NAME" "$ROUNDS" > "$WORK/s.json" 2> "$WORK/err" &
WORKLOAD_PID=$!

# stacktop (perf's child), then the ping-pong (stacktop's child, renamed)
ST=
PP=
n=500
while [ -z "$PP" ] && [ "$n" -gt 0 ]; do
	[ -n "$ST" ] || ST=$(pgrep -P "$WORKLOAD_PID" | head -n 1)
	[ -z "$ST" ] || PP=$(pgrep -P "$ST" -x "$NAME" | head -n 1)
	sleep 0.01
	n=$((n - 1))
done
[ -n "$PP" ] || { cat "$WORK/err"; fail "the ping-pong did not start under stacktop"; }
# read for a moment, then not at all until the ping-pong has ended: the
# buffer overflows whatever the machine's load lets the ping-pong run at
# (0.3 s stopped lost 1.9% on a loaded machine, 13% on a quieter one)
sleep 0.2
kill -STOP "$ST"
# (ended: a zombie, its parent stacktop stopped and not reaping it)
n=9000
state() { sed 's/.*) //' "/proc/$PP/stat" 2> /dev/null | cut -d ' ' -f 1; }
while [ -n "$(state)" ] && [ "$(state)" != Z ]; do
	[ "$n" -gt 0 ] || fail "the ping-pong did not end in 90 s"
	sleep 0.01
	n=$((n - 1))
done
kill -CONT "$ST"
wait "$WORKLOAD_PID" || { cat "$WORK/err"; fail "perf stat or stacktop failed"; }
WORKLOAD_PID=
python3 - "$WORK/s.json" "$WORK/perf" "$ROUNDS" <<'PY' || fail "hits + lost is not perf's count"
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
perf = [l.split(",") for l in open(sys.argv[2]) if "sched:sched_switch" in l]
assert perf and perf[0][0].isdigit(), "perf stat counted nothing: %s" % perf
want, rounds = int(perf[0][0]), int(sys.argv[3])
hits, lost = d["hits"], d["lost"]
print("perf stat %d; stacktop hits %d + lost %d = %d (%+.3f%%); overrun %d, dropped %d, "
      "records %d, events read %d" % (want, hits, lost, hits + lost,
      100.0 * (hits + lost - want) / want, d["overrun"], d["dropped"], d["records"],
      d.get("events_read", -1)))
assert want >= rounds, "perf stat counts %d switches of %d rounds" % (want, rounds)
assert lost >= want // 20, "%d lost of %d: the buffer did not overflow enough" % (lost, want)
assert abs(hits + lost - want) <= want // 100, "hits + lost %d, perf %d" % (hits + lost, want)
assert lost == d["overrun"] + d["dropped"], "lost is not overrun + dropped"
assert d.get("events_read") == hits, "events read %s, hits %d" % (d.get("events_read"), hits)
PY
echo "ok: hits + lost is the event's count, with a buffer that overflowed"
