#!/bin/sh
# The kernel's ring buffer overflows (a 4 KiB per-CPU buffer, two processes
# on CPU 0 handing a byte to each other: a context switch at every hop, far
# more sched_switch records than the buffer holds between two reads): every
# export says what it misses. Folded: a note on stderr and, with
# --folded-lost, the stack [lost_events] at the share the counters give;
# JSON: the counters of the interval (events: lost = overrun + dropped)
# and the records and events read; pprof: the
# comments go tool pprof prints and the [lost events] sample.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/export-tools.sh"
command -v taskset > /dev/null || fail "taskset is not installed (util-linux)"

# the workload: ping-pong over two pipes (tests/truth/pingpong.c), both ends
# on CPU 0, until ended (a python ping-pong starved on a busy machine: 3,057
# events in 2 s, and the buffer did not overflow)
[ -x "${PINGPONG:-}" ] || fail "no PINGPONG helper"
pingpong() {
	taskset -c 0 "$PINGPONG" stlosses 100000000 &
	WORKLOAD_PID=$!
}

run() {
	pingpong
	sleep 0.3
	"$STACKTOP" -b -n 1 -d 2 --buffer-kb 4 -e sched:sched_switch "$@" \
		> "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "stacktop $* exited $?"; }
	end_pids "$WORKLOAD_PID"
	WORKLOAD_PID=
}

# --- folded: the note, and the lost events' stack at the counters' share -----------
run --folded --folded-lost
cat "$WORK/err"
tail -n 1 "$WORK/out"
note=$(grep '^stacktop: folded refresh 1: lost ' "$WORK/err") ||
	fail "no note of the losses on stderr"
set -- $(echo "$note" | sed -n 's/.* lost \([0-9]*\) events in the last interval (overrun \([0-9]*\), dropped \([0-9]*\); \([0-9]*\) read): [0-9.]*% of the events are missing from the counts$/\1 \2 \3 \4/p')
[ $# = 4 ] || fail "note not understood: $note"
lost=$1 overrun=$2 dropped=$3 read=$4
[ "$overrun" -gt 0 ] || fail "a 4 KiB buffer under a ping-pong overran nothing: the test is void"
[ "$lost" = $((overrun + dropped)) ] || fail "lost $lost is not overrun $overrun + dropped $dropped"
est=$(sed -n 's/^\[lost_events\] \([0-9]*\)$/\1/p' "$WORK/out")
[ -n "$est" ] || fail "no [lost_events] line in the folded output"
hits=$(grep -v '^\[lost_events\] ' "$WORK/out" | awk 'NF { h += $NF } END { print h + 0 }')
# hits * lost / events read whole, as the writer rounds it
want=$(awk -v h="$hits" -v l="$lost" -v r="$read" 'BEGIN { printf "%.0f", h * l / r }')
[ "$est" -ge $((want - 1)) ] && [ "$est" -le $((want + 1)) ] ||
	fail "[lost_events] $est: the counters give $hits * $lost / $read = $want"
echo "folded: $hits hits, [lost_events] $est"

# --- json: the interval's counters and the records read ----------------------------
run --json
python3 - "$WORK/out" <<'PY' || fail "the snapshot does not carry the losses"
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print({k: j[k] for k in ("hits", "lost", "lost_delta", "overrun", "overrun_delta", "dropped",
                         "records", "records_delta", "events_read", "events_read_delta")})
c = {k: j[k] for k in ("lost", "overrun", "dropped", "records", "events_read")}
assert j["overrun_delta"] > 0 and j["overrun"] >= j["overrun_delta"], c
assert j["records_delta"] > 0 and j["records"] >= j["records_delta"], c
assert j["lost_delta"] > 0, c
# events, not records: an event and its stack are two records
assert j["lost"] == j["overrun"] + j["dropped"], c
assert j["events_read"] <= j["records"] // 2 + 1, c
PY

# --- text: the losses, and what to do about them in words -------------------------
run
grep -Eq '^note: lost events: the ring buffer \([0-9]+ KiB a CPU\) filled before stacktop read it; give it more room: --buffer-kb [0-9]+$' "$WORK/out" ||
	fail "the text report does not say how to lose less: $(grep -E '^(hits|note)' "$WORK/out")"
kb=$(sed -n 's/^note: lost events: the ring buffer (\([0-9]*\) KiB a CPU).*/\1/p' "$WORK/out")
[ "$kb" -ge 4 ] && [ "$kb" -le 16 ] || fail "--buffer-kb 4 gave a ring buffer of $kb KiB a CPU, says the note"

# --- pprof: the comments go tool pprof -top prints, and the lost sample ------------
go_tool
run -o "$WORK/out.pb.gz" --folded-lost
go tool pprof -top "$WORK/out.pb.gz" > "$WORK/top" 2>&1 || { cat "$WORK/top"; fail "pprof -top failed"; }
head -n 12 "$WORK/top"
grep -Eq '^losses: lost [1-9][0-9]* events in the last interval \(overrun [1-9][0-9]*, dropped [0-9]+; [0-9]+ read\): [0-9.]+% of the events are missing from the counts$' "$WORK/top" ||
	fail "no losses comment in pprof -top"
grep -Eq '^ +[1-9][0-9]* +[0-9.]+% .* \[lost events\]$' "$WORK/top" || fail "no [lost events] row in pprof -top"
echo "ok: the losses of an overflowing ring buffer reach folded, json and pprof"
