#!/bin/sh
# Every signal whose default action ends the process restores tracefs first,
# then stacktop dies of it (the status a shell sees stays 128+signal). And in
# a sanitizer build, a crash still shows AddressSanitizer's report, after the
# restore.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"

# a signal's number: shells disagree on names (dash has no STKFLT)
signum() {
	case $1 in
	[0-9]*) echo "$1" ;;
	*) python3 -c "import signal,sys; print(int(getattr(signal, 'SIG' + sys.argv[1])))" "$1" ;;
	esac
}

# run stacktop, send @sig once it is tracing; prints "pid status"
run_and_signal() {
	sig=$1
	"$STACKTOP" -b -d 0.2 > "$WORK/out.$sig" 2> "$WORK/err.$sig" &
	pid=$!
	wait_for "$WORK/out.$sig" '^stacktop ' 100 || { kill -9 "$pid"; fail "no output before SIG$sig"; }
	[ -d "$T/instances/stacktop.$pid" ] || fail "no private instance while running"
	kill "-$(signum "$sig")" "$pid" || { kill -9 "$pid"; fail "cannot send $sig"; }
	wait "$pid"
	echo "$pid $?"
}


# SIGRTMIN+1 as a number: shells disagree on the names of real-time signals
rt=$(python3 -c 'import signal; print(int(signal.SIGRTMIN) + 1)')
for sig in USR1 USR2 ALRM PROF VTALRM XCPU XFSZ PWR STKFLT IO "$rt"; do
	set -- $(run_and_signal "$sig")
	[ $# = 2 ] || exit 1
	pid=$1 st=$2
	# what stacktop said (an undo that failed names its file)
	[ -s "$WORK/err.$sig" ] && sed "s/^/  SIG$sig: /" "$WORK/err.$sig" >&2
	no_instance_of "$pid"
	snapshot "$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIG$sig"
	n=$(signum "$sig")
	[ "$st" = $((128 + n)) ] || { cat "$WORK/err.$sig"; fail "SIG$sig: exit status $st, expected $((128 + n))"; }
	echo "ok: SIG$sig restores and ends stacktop as the signal would"
done

# an ignored signal stays ignored (nohup-style): stacktop keeps running
(
	trap '' USR1
	exec "$STACKTOP" -b -d 0.2 > "$WORK/out.ign" 2> "$WORK/err.ign"
) &
pid=$!
wait_for "$WORK/out.ign" '^stacktop ' 100 || { kill -9 "$pid"; fail "no output (ignored USR1)"; }
kill -USR1 "$pid"
n=$(grep -c '^stacktop ' "$WORK/out.ign")
# alive until it printed one more report after the signal
tries=100
while [ "$(grep -c '^stacktop ' "$WORK/out.ign")" -le "$n" ] && [ $tries -gt 0 ]; do
	kill -0 "$pid" 2>/dev/null || fail "an ignored SIGUSR1 ended stacktop"
	sleep 0.1
	tries=$((tries - 1))
done
kill -0 "$pid" 2>/dev/null || fail "an ignored SIGUSR1 ended stacktop"
kill -TERM "$pid"
wait "$pid"
no_instance_of "$pid"
echo "ok: an ignored SIGUSR1 stays ignored"

# AddressSanitizer's own report survives our fatal handler (sanitizer builds)
if grep -q __asan_init "$STACKTOP" 2>/dev/null; then
	export ASAN_OPTIONS=handle_segv=1:allow_user_segv_handler=1:detect_leaks=0
	set -- $(run_and_signal SEGV)
	[ $# = 2 ] || exit 1
	pid=$1 st=$2
	[ "$st" = 139 ] || { cat "$WORK/err.SEGV"; fail "SIGSEGV (ASan): exit status $st, expected 139"; }
	no_instance_of "$pid"
	snapshot "$WORK/after"
	diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIGSEGV (ASan)"
	grep -q "ERROR: AddressSanitizer: SEGV" "$WORK/err.SEGV" ||
		{ cat "$WORK/err.SEGV"; fail "ASan's report is hidden by stacktop's SIGSEGV handler"; }
	echo "ok: a crash in an ASan build restores and shows ASan's report"
else
	echo "ok: not a sanitizer build, the ASan case does not apply"
fi
