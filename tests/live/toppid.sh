#!/bin/sh
# COMM/PID names the pid with most hits of the stack, by the count on view,
# and how many more pids hit it (issue 8 #2): one long-running process hits a
# stack thousands of times while hundreds of short-lived ones hit it once.
. "$(dirname "$0")/lib.sh"

[ -n "${THREADS:-}" ] || THREADS=$(dirname "$STACKTOP")/tests/live/st-threads
[ -x "$THREADS" ] || fail "no st-threads helper at $THREADS"

"$THREADS" -1 &
WORKLOAD_PID=$!
HOT=$WORKLOAD_PID
# short-lived sleepers: the same nanosleep stack, one hit each, newer than HOT
sh -c 'while :; do sleep 0.001; done' &
EXTRA_PIDS=$!

check() {
	mode=$1
	shift
	"$STACKTOP" -b -n 3 -d 1 --top 30 --expand 0 "$@" > "$WORK/text" 2>&1 ||
		fail "stacktop $* failed"
	"$STACKTOP" -b -n 3 -d 1 --top 30 --json "$@" > "$WORK/json" 2>&1 ||
		fail "stacktop --json $* failed"
	python3 - "$WORK/json" "$HOT" "$mode" <<'PY' || fail "$mode: the JSON names the wrong pid"
import json, sys
hot = int(sys.argv[2])
snap = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
key = "delta" if sys.argv[3] == "delta" else "total"
best = None
for st in snap["stacks"]:
    mine = sum(b[key] for b in st["by"] if b["pid"] == hot)
    if best is None or mine > best[0]:
        best = (mine, st)
mine, st = best
pids = {b["pid"] for b in st["by"] if b[key]}
print("%s: hot stack %s: %d hits of %d by pid %d, %d pids; top %s" %
      (sys.argv[3], st["key"], mine, st[key], hot, len(pids), st["top"]))
assert mine > 0, "the hot pid hit nothing"
assert len(pids) > 64, "too few short-lived pids on the hot stack to tell (%d)" % len(pids)
assert st["top"]["pid"] == hot, "top is %s, not %d" % (st["top"], hot)
assert st["top"]["comm"] == "hotloop"
assert st["top"]["pids"] == len(pids), "pids %d, expected %d" % (st["top"]["pids"], len(pids))
PY
	grep -Eq "hotloop/$HOT \+[0-9]+ " "$WORK/text" || {
		cat "$WORK/text"
		fail "$mode: no row says hotloop/$HOT +N"
	}
}

check delta
check total --cumulative
echo "ok: toppid"
