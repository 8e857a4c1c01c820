#!/bin/sh
# Everything stacktop changes is undone: after a normal exit, SIGINT, SIGTERM,
# SIGHUP, a crash (SIGSEGV) and, through the next run's recovery, SIGKILL.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"

run_and_signal() {
	sig=$1
	"$STACKTOP" -b -d 0.2 > "$WORK/out.$sig" 2>&1 &
	pid=$!
	wait_for "$WORK/out.$sig" '^stacktop ' 100 || { kill -9 "$pid"; fail "no output before SIG$sig"; }
	[ -d "$T/instances/stacktop.$pid" ] || fail "no private instance while running"
	[ -f "/run/stacktop/$pid.journal" ] || fail "no journal while running"
	kill -"$sig" "$pid"
	wait "$pid"
	echo "$pid"
}

for sig in INT TERM HUP; do
	pid=$(run_and_signal $sig) || exit 1
	no_instance_of "$pid"
	snapshot "$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIG$sig"
	echo "ok: SIG$sig restores"
done

# a crash: the fatal-signal path restores, then dies of the signal
pid=$(run_and_signal SEGV) || exit 1
no_instance_of "$pid"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIGSEGV"
echo "ok: SIGSEGV restores"

# SIGKILL cannot be caught: the instance and journal stay until the next run
pid=$(run_and_signal KILL) || exit 1
[ -d "$T/instances/stacktop.$pid" ] || fail "expected the killed run's instance to remain"
"$STACKTOP" -b -n 1 -d 0.1 --top 1 --expand 0 > "$WORK/out.next" 2>&1 || fail "next run failed"
no_instance_of "$pid"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIGKILL recovery"
echo "ok: SIGKILL is undone by the next run"

# normal exit
"$STACKTOP" -b -n 1 -d 0.1 > /dev/null 2>&1 || fail "normal run failed"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after a normal exit"
echo "ok: normal exit restores"
