#!/bin/sh
# -p is a process: every thread of it, also one started after stacktop
# (issue 8 #5); --tid is one thread; --comm an exact name or a glob; a -p
# of a pid that does not exist is an error.
. "$(dirname "$0")/lib.sh"

[ -n "${THREADS:-}" ] || THREADS=$(dirname "$STACKTOP")/tests/live/st-threads
[ -x "$THREADS" ] || fail "no st-threads helper at $THREADS"

"$THREADS" "$WORK/tids" &
WORKLOAD_PID=$!
wait_for "$WORK/tids" worker-b || fail "the threads did not start"
wait_for "$WORK/tids" worker-a || fail "the threads did not start"
tid_of() { awk -v n="$1" '$1 == n { print $2 }' "$WORK/tids"; }
A=$(tid_of worker-a)
B=$(tid_of worker-b)
echo "process $WORKLOAD_PID: worker-a $A, worker-b $B"

# -p <tgid>: every thread, and the one started once stacktop runs
"$STACKTOP" -b --json -n 6 -d 0.5 --top 1000 -p "$WORKLOAD_PID" > "$WORK/p.json" 2> "$WORK/p.err" &
st=$!
# stacktop is running once its instance has a pid filter
tries=100
while [ $tries -gt 0 ] && ! grep -qs . "$T/instances/stacktop.$st/set_event_pid"; do
	sleep 0.1
	tries=$((tries - 1))
done
[ $tries -gt 0 ] || { wait $st; cat "$WORK/p.err"; fail "stacktop -p did not start"; }
kill -USR1 "$WORKLOAD_PID"
wait_for "$WORK/tids" late-c || fail "the late thread did not start"
C=$(tid_of late-c)
wait $st || { cat "$WORK/p.err"; fail "stacktop -p $WORKLOAD_PID failed"; }
by=$(grep -o '"pid":[0-9]*,"comm":"[^"]*"' "$WORK/p.json" | sort -u)
echo "$by"
for t in "$A:worker-a" "$B:worker-b"; do
	echo "$by" | grep -qx "\"pid\":${t%%:*},\"comm\":\"${t#*:}\"" ||
		fail "-p $WORKLOAD_PID shows no hits of thread ${t#*:} (${t%%:*})"
done
# (the late thread may be named before its prctl if stacktop first saw it then)
echo "$by" | grep -q "^\"pid\":$C," ||
	fail "-p $WORKLOAD_PID shows no hits of the thread started later ($C)"
others=$(echo "$by" | grep -v "\"pid\":\($WORKLOAD_PID\|$A\|$B\|$C\),")
[ -z "$others" ] || fail "-p $WORKLOAD_PID shows other tasks: $others"

# --tid: that thread alone
"$STACKTOP" -b --json -n 2 -d 0.5 --top 1000 --tid "$A" > "$WORK/t.json" 2>&1 ||
	fail "stacktop --tid failed"
by=$(grep -o '"pid":[0-9]*,"comm":"[^"]*"' "$WORK/t.json" | sort -u)
[ "$by" = "\"pid\":$A,\"comm\":\"worker-a\"" ] || fail "--tid $A shows: $by"

# --comm: an exact name, or a glob; a name that is only part of one matches nothing
comms() {
	"$STACKTOP" -b --json -n 2 -d 0.5 --top 1000 -p "$WORKLOAD_PID" "$@" > "$WORK/c.json" 2>&1 ||
		fail "stacktop --comm $* failed"
	grep -o '"comm":"[^"]*","total"' "$WORK/c.json" | sort -u | sed 's/"comm":"//; s/","total"//' |
		tr '\n' ' '
}
got=$(comms --comm worker-b)
[ "$got" = "worker-b " ] || fail "--comm worker-b shows: $got"
got=$(comms --comm 'worker-*')
[ "$got" = "worker-a worker-b " ] || fail "--comm 'worker-*' shows: $got"
got=$(comms --comm worker)
[ -z "$got" ] || fail "--comm worker (exact) shows: $got"
"$STACKTOP" -b -n 2 -d 0.5 --top 100 --expand 0 -p "$WORKLOAD_PID" --comm worker-a > "$WORK/c.txt" 2>&1 ||
	fail "stacktop --comm worker-a failed"
grep -E '^ +[0-9]+ ' "$WORK/c.txt" | grep -v " worker-a/$A " && fail "--comm worker-a: rows of others"
grep -Eq "^ +[0-9]+ .* worker-a/$A " "$WORK/c.txt" || fail "--comm worker-a: no row"

# a pid that is not a process, a thread id given to -p, a list too long
for args in "-p 999999" "--tid 999999" "-p $B" "-p 1-2000"; do
	# shellcheck disable=SC2086 # the words are options
	"$STACKTOP" -b -n 1 -d 0.2 $args > "$WORK/bad" 2>&1 && fail "'$args' did not fail"
	cat "$WORK/bad"
done
"$STACKTOP" -b -n 1 -d 0.2 -p 999999 2>&1 | grep -q "999999: no such process" ||
	fail "-p 999999: no clear error"
"$STACKTOP" -b -n 1 -d 0.2 -p "$B" 2>&1 | grep -q "is a thread of process $WORKLOAD_PID" ||
	fail "-p $B: the error does not name the process"
"$STACKTOP" -b -n 1 -d 0.2 -p 1-2000 2>&1 | grep -q "at most 1024" ||
	fail "-p 1-2000: the error does not state the limit"
echo "ok: pids"
