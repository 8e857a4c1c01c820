#!/bin/sh
# Everything stacktop changes is undone: after a normal exit, SIGINT,
# SIGTERM, SIGHUP and a crash (SIGSEGV) by stacktop itself (its guardian
# killed first, so that the run's own restore is what is tested); after a
# SIGKILL, of stacktop or of its whole process group, by its guardian
# within a second; with the guardian killed too, by the next run (which
# says what it removed) or by --cleanup.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"
RUN=$WORK/run
mkdir -m 0700 "$RUN"

# start_run NAME [ARG...]: a batch stacktop tracing, with its guardian; its pid in $pid
start_run() {
	name=$1
	shift
	"$STACKTOP" -b -d 0.2 "$@" > "$WORK/out.$name" 2> "$WORK/err.$name" &
	pid=$!
	wait_for "$WORK/out.$name" '^stacktop ' 100 || { kill -9 "$pid"; cat "$WORK/err.$name" >&2; fail "no output ($name)"; }
	[ -d "$T/instances/stacktop.$pid" ] || fail "no private instance while running ($name)"
	[ -n "$(guardian_of "$pid")" ] || fail "no guardian process ($name)"
}

# run_and_signal SIG: its guardian killed first, the run's own restore alone; its pid in $pid
run_and_signal() {
	start_run "$1"
	[ -f "/run/stacktop/$pid.journal" ] || fail "no journal while running"
	kill_guardian "$pid"
	kill -"$1" "$pid"
	wait "$pid"
}

for sig in INT TERM HUP; do
	run_and_signal $sig
	no_instance_of "$pid"
	snapshot "$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIG$sig"
	echo "ok: SIG$sig restores"
done

# a crash: the fatal-signal path restores, then dies of the signal
run_and_signal SEGV
no_instance_of "$pid"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIGSEGV"
echo "ok: SIGSEGV restores"

# SIGKILL: nothing in stacktop runs; its guardian restores within a second
start_run kill
kill -9 "$pid"
ms=$(wait_gone 1000 "$T/instances/stacktop.$pid" "/run/stacktop/$pid.journal") ||
	fail "SIGKILL: the guardian did not restore within 1 s"
wait "$pid" 2> /dev/null
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIGKILL"
for i in $(seq 100); do [ -z "$(guardian_of "$pid")" ] && break; sleep 0.01; done
[ -z "$(guardian_of "$pid")" ] || fail "the guardian of $pid still runs after restoring"
echo "ok: SIGKILL: the guardian removed the instance and the journal $ms ms after the kill"

# kill -9 of stacktop's whole process group (a job's ^C, a group kill): the
# guardian, in a session of its own, is not in it
python3 -c 'import os, sys; os.setsid(); os.execv(sys.argv[1], sys.argv[1:])' \
	"$STACKTOP" -b -d 0.2 > "$WORK/out.pg" 2> "$WORK/err.pg" &
pid=$!
wait_for "$WORK/out.pg" '^stacktop ' 100 || { kill -9 "$pid"; fail "no output (process group)"; }
[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "stacktop does not lead its process group"
g=$(guardian_of "$pid")
[ -n "$g" ] || fail "no guardian (process group)"
[ "$(ps -o pgid= -p "$g" | tr -d ' ')" != "$pid" ] || fail "the guardian is in stacktop's process group"
kill -9 "-$pid"
ms=$(wait_gone 1000 "$T/instances/stacktop.$pid" "/run/stacktop/$pid.journal") ||
	fail "kill -9 of the process group: not restored within 1 s"
wait "$pid" 2> /dev/null
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after killing the process group"
echo "ok: kill -9 of the process group: restored $ms ms after"

# the guardian killed too: the next run undoes it, and says what it removed
start_run both --rundir "$RUN"
kill_guardian "$pid"
kill -9 "$pid"
wait "$pid" 2> /dev/null
sleep 0.2
[ -d "$T/instances/stacktop.$pid" ] || fail "expected the instance to remain (guardian killed too)"
"$STACKTOP" -b -n 1 -d 0.1 --top 1 --expand 0 --rundir "$RUN" > "$WORK/out.next" 2> "$WORK/err.next" ||
	{ cat "$WORK/err.next"; fail "next run failed"; }
grep -q "stacktop $pid ended without restoring tracing: removed instance stacktop\.$pid" "$WORK/err.next" ||
	{ cat "$WORK/err.next"; fail "the next run did not say what it removed"; }
[ ! -e "$T/instances/stacktop.$pid" ] || fail "instance stacktop.$pid left behind"
[ ! -e "$RUN/$pid.journal" ] || fail "journal of $pid left behind"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after the recovery"
echo "ok: guardian killed too: the next run said: $(grep -o "stacktop $pid ended.*" "$WORK/err.next")"

# --cleanup: undoes it, says so, and its status says whether there was something
start_run cleanup --rundir "$RUN"
kill_guardian "$pid"
kill -9 "$pid"
wait "$pid" 2> /dev/null
sleep 0.2
[ -d "$T/instances/stacktop.$pid" ] || fail "expected the instance to remain (guardian killed too)"
"$STACKTOP" --cleanup --rundir "$RUN" > "$WORK/out.clean" 2>&1
st=$?
cat "$WORK/out.clean"
[ "$st" = 1 ] || fail "--cleanup after a leftover: status $st, expected 1"
grep -q "stacktop $pid had left tracing changed: removed instance stacktop\.$pid" "$WORK/out.clean" ||
	fail "--cleanup did not say what it removed"
[ ! -e "$T/instances/stacktop.$pid" ] || fail "instance stacktop.$pid left after --cleanup"
[ ! -e "$RUN/$pid.journal" ] || fail "journal of $pid left after --cleanup"
"$STACKTOP" --cleanup --rundir "$RUN" > "$WORK/out.clean2" 2>&1
st=$?
if [ "$st" = 1 ]; then
	# another program's killed run (the machine is shared): never ours again
	! grep -q "stacktop $pid " "$WORK/out.clean2" || fail "a second --cleanup undid $pid again"
else
	[ "$st" = 0 ] || { cat "$WORK/out.clean2"; fail "--cleanup with nothing left: status $st"; }
	grep -q "nothing to clean up" "$WORK/out.clean2" || fail "--cleanup did not say there was nothing"
fi
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after --cleanup"
echo "ok: --cleanup undoes a killed run (status 1), then finds nothing (status $st)"

# normal exit: the run restores, and its guardian ends with it
"$STACKTOP" -b -n 1 -d 0.1 > /dev/null 2>&1 &
pid=$!
wait "$pid" || fail "normal run failed"
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after a normal exit"
for i in $(seq 100); do [ -z "$(guardian_of "$pid")" ] && break; sleep 0.01; done
[ -z "$(guardian_of "$pid")" ] || fail "the guardian of a run that exited still runs"
echo "ok: normal exit restores; the guardian ends with it"
