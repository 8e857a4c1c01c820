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

# SIGTERM between reads, while the last report waits for a slow reader (a
# 4 KiB pipe read 2 s later, as a slow machine writes a big report): the
# main thread is leaving, not stuck, so the watchdog (700 ms for a stuck
# run) lets it finish: status 0 and the whole last report. Before
# sig_leaving(), status 143 and the report cut at 4 KiB.
python3 - "$STACKTOP" "$WORK/err.slow" > "$WORK/out.slow" <<'PY' || fail "slow reader: $(cat "$WORK/out.slow")"
import fcntl, json, os, signal, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ
with open(sys.argv[2], "w") as err:
    p = subprocess.Popen([sys.argv[1], "-b", "--json", "-d", "1.5", "--top", "100000"], stdout=w,
                         stderr=err)
os.close(w)
buf = b""
while b"\n" not in buf:
    chunk = os.read(r, 65536)
    if not chunk:
        sys.exit("no report before EOF: %r" % buf[-300:])
    buf += chunk
first, buf = buf.split(b"\n", 1)
p.send_signal(signal.SIGTERM)
time.sleep(2)
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    buf += chunk
rc = p.wait()
last = buf.split(b"\n")[-2] if buf.count(b"\n") else buf
try:
    rep = json.loads(last)
except ValueError as e:
    sys.exit("status %d; the last report (%d bytes) is cut: %s" % (rc, len(buf), e))
if rc != 0:
    sys.exit("status %d after SIGTERM with the last report in a slow pipe" % rc)
if len(last) <= 4096:
    sys.exit("the last report is %d bytes: it fit in the pipe, the case is void" % len(last))
print("%d bytes, %d stacks" % (len(last), len(rep.get("stacks", []))))
PY
echo "ok: SIGTERM with the last report waiting for a slow reader: status 0, the report whole ($(cat "$WORK/out.slow"))"

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
