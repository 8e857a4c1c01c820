#!/bin/sh
# Kernel filters on the real kernel: 'sched:sched_switch if prev_state & 3'
# keeps the switches of tasks that block (a sleeper) and drops those of a
# task that is only preempted (a spinner); a counted stacktrace trigger; a refused filter shows the
# kernel's error_log text; --function and --kprobe fail clearly where the
# kernel cannot do them (this kernel: no function tracer rights, no kprobes).
. "$(dirname "$0")/lib.sh"

SPIN_PIDS=
cleanup_spin() {
	for p in $SPIN_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	cleanup
}
trap cleanup_spin EXIT

start_workload
# one spinner more than there are CPUs: each of them gets preempted (R)
n=$(($(nproc) + 1))
while [ "$n" -gt 0 ]; do
	( while :; do :; done ) &
	SPIN_PIDS="$SPIN_PIDS $!"
	n=$((n - 1))
done
pids=$WORKLOAD_PID
for p in $SPIN_PIDS; do pids="$pids,$p"; done

count_pid() { # FILE PID: hits of PID in the JSON snapshot
	python3 -c '
import json, sys
rep = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
print(sum(b["total"] for s in rep["stacks"] for b in s["by"] if b["pid"] == int(sys.argv[2])))
' "$1" "$2"
}

cat "$T/dynamic_events" > "$WORK/dyn"
# without the filter the spinners are there: the check below can fail
"$STACKTOP" -b -n 1 -d 2 --json -p "$pids" > "$WORK/plain" 2> "$WORK/plain.err" ||
	fail "plain run failed: $(cat "$WORK/plain.err")"
spin=0
for p in $SPIN_PIDS; do spin=$((spin + $(count_pid "$WORK/plain" "$p"))); done
[ "$spin" -gt 0 ] || fail "the spinners were never switched out (no preemption seen)"

"$STACKTOP" -b -n 1 -d 2 --json -p "$pids" -e 'sched:sched_switch if prev_state & 3' \
	> "$WORK/blocked" 2> "$WORK/blocked.err" & me=$!
wait_for "$T/instances/stacktop.$me/events/sched/sched_switch/filter" 'prev_state & 3' 50 ||
	fail "the filter is not in the instance's filter file"
wait $me || fail "filtered run failed: $(cat "$WORK/blocked.err")"
sleeper=$(count_pid "$WORK/blocked" "$WORKLOAD_PID")
spin=0
for p in $SPIN_PIDS; do spin=$((spin + $(count_pid "$WORK/blocked" "$p"))); done
echo "blocked switches: sleeper $sleeper, spinners $spin"
[ "$sleeper" -gt 0 ] || fail "the sleeper's blocked switches are missing"
[ "$spin" = 0 ] || fail "the spinners' preemptions passed 'prev_state & 3' ($spin)"
no_instance_of "$me"

# --trigger on the real kernel: stacktrace:20 gives exactly 20 stacks, each
# after its event (the sleeper switches ~100 times a second)
"$STACKTOP" -b -n 1 -d 2 --json --show-self --trigger 'sched:sched_switch:20' \
	> "$WORK/trig" 2> "$WORK/trig.err" || fail "--trigger run failed: $(cat "$WORK/trig.err")"
python3 -c '
import json, sys
rep = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
assert rep["hits"] == 20 and rep["orphans"] == 0, (rep["hits"], rep["orphans"])
' "$WORK/trig" || fail "stacktrace:20 did not give 20 attributed stacks"

# refused: the kernel's own words, exit 1
"$STACKTOP" -b -n 1 -e 'sched:sched_switch if prev_state &&& 3' > /dev/null 2> "$WORK/bad" &&
	fail "a bad filter was accepted"
grep -q 'Invalid value (did you forget quotes)?' "$WORK/bad" ||
	fail "no error_log text: $(cat "$WORK/bad")"

# what this kernel cannot do: a clear error, nothing left behind
if ! [ -e "$T/kprobe_events" ]; then
	"$STACKTOP" -b -n 1 --kprobe vfs_read > /dev/null 2> "$WORK/kp" & me=$!
	wait $me && fail "--kprobe worked?"
	no_instance_of "$me"
	grep -q 'kprobe' "$WORK/kp" || fail "unclear --kprobe error: $(cat "$WORK/kp")"
	cat "$WORK/kp"
fi
# (where the kernel allows it, the run just works)
"$STACKTOP" -b -n 1 -d 0.2 --function schedule > /dev/null 2> "$WORK/fn" & me=$!
if ! wait $me; then
	no_instance_of "$me"
	grep -q 'function tracer' "$WORK/fn" || fail "unclear --function error: $(cat "$WORK/fn")"
	cat "$WORK/fn"
fi
# (the top level is not compared: other tests may run; stacktop only used
# private instances here, checked above)
[ "$(cat "$T/dynamic_events")" = "$(cat "$WORK/dyn")" ] || fail "dynamic_events changed"
echo "ok: kfilter"
