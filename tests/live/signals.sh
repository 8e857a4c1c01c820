#!/bin/sh
# Every signal whose default action ends the process restores tracefs first,
# then stacktop dies of it (the status a shell sees stays 128+signal). And in
# a sanitizer build, a crash still shows AddressSanitizer's report, after the
# restore. The guardian (which would restore after any death) is killed
# first: what is tested is stacktop's own restore.
. "$(dirname "$0")/lib.sh"

snapshot "$WORK/before"

# a signal's number: shells disagree on names (dash has no STKFLT)
signum() {
	case $1 in
	[0-9]*) echo "$1" ;;
	*) python3 -c "import signal,sys; print(int(getattr(signal, 'SIG' + sys.argv[1])))" "$1" ;;
	esac
}

# run stacktop, send @sig once it is tracing (its guardian gone); prints "pid status"
run_and_signal() {
	sig=$1
	"$STACKTOP" -b -d 0.2 > "$WORK/out.$sig" 2> "$WORK/err.$sig" &
	pid=$!
	wait_for "$WORK/out.$sig" '^stacktop ' 100 || { kill -9 "$pid"; fail "no output before SIG$sig"; }
	[ -d "$T/instances/stacktop.$pid" ] || fail "no private instance while running"
	kill_guardian "$pid" >&2
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

# SIGTERM while a report waits on a full pipe (batch | a slow reader): the
# report is not cut midway by EINTR ("cannot write the report"); a reader
# that drains it, even slowly, gets it whole and stacktop ends normally (the
# watchdog sees the writes move on); a reader that never reads cannot hold
# stacktop: it ends within a second all the same.
python3 - "$STACKTOP" "$T" <<'PY' || fail "SIGTERM during a blocked report"
import fcntl, json, os, signal, subprocess, sys, time
stacktop, t = sys.argv[1], sys.argv[2]
F_SETPIPE_SZ, FIONREAD = 1031, 0x541B

def blocked_run(drain, slow=False):
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    size = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
    # --top 3: a report of ~10 KB whatever the machine runs (all its
    # stacks made 60 KB a report on a busy host: 6 s at 10 KiB/s, past the
    # watchdog's 15 s with a few more processes), still larger than the pipe
    p = subprocess.Popen([stacktop, "-b", "-d", "0.2", "--top", "3", "--format", "json"], stdout=w,
                         stderr=subprocess.PIPE, text=True)
    os.close(w)
    # wait until stacktop sits in its write: the pipe full, or its main
    # thread asleep in the pipe's write with bytes in it (a pipe of one
    # page does not always fill to the byte: a write that does not fit the
    # page's rest waits for a slot; seen under a busy host's load)
    for _ in range(600):
        n = bytearray(4)
        fcntl.ioctl(r, FIONREAD, n)
        queued = int.from_bytes(n, "little")
        try:
            wchan = open("/proc/%d/wchan" % p.pid).read()
        except OSError:
            wchan = ""
        if queued >= size or (queued and "pipe_write" in wchan):
            break
        time.sleep(0.05)
    else:
        p.kill()
        sys.exit("the pipe never filled")
    time.sleep(0.3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    data = b""
    if drain:
        time.sleep(0.2)  # the signal arrives while the write is blocked
        while True:
            b = os.read(r, 2048 if slow else 65536)
            if not b:
                break
            data += b
            if slow:
                time.sleep(0.2)  # 10 KiB/s: longer than a 700 ms window
    st = p.wait(timeout=10)
    took = time.monotonic() - t0
    err = p.stderr.read()
    os.close(r)
    if os.path.isdir("%s/instances/stacktop.%d" % (t, p.pid)):
        sys.exit("instance stacktop.%d left behind" % p.pid)
    return st, took, err, data, p.pid

st, took, err, data, pid = blocked_run(True)
if "cannot write" in err or st not in (0, 128 + signal.SIGTERM, -signal.SIGTERM):
    sys.exit("a drained report was cut: status %d, %r" % (st, err[-300:]))
for line in data.decode().splitlines():
    json.loads(line)  # every report whole
print("ok: SIGTERM during a blocked report: status %d, %d whole reports, no error" %
      (st, len(data.decode().splitlines())))
# a slow reader that keeps reading: the report goes on past the watchdog's
# first 700 ms window (progress), whole
st, took, err, data, pid = blocked_run(True, True)
if "cannot write" in err or st != 0:
    # how long and how much: the watchdog lets a report read at 10 KiB/s go
    # on while it progresses, for 15 s at most
    sys.exit("a slowly read report was cut: status %d after %.1f s, %d bytes read, %r" %
             (st, took, len(data), err[-300:]))
for line in data.decode().splitlines():
    json.loads(line)
print("ok: SIGTERM with a slow reader: %d bytes read whole in %.1f s, status 0" % (len(data), took))
st, took, err, data, pid = blocked_run(False)
if took > 3:
    sys.exit("a reader that never reads held stacktop %.1f s after SIGTERM" % took)
print("ok: SIGTERM with a reader that never reads: ended in %.2f s (status %d)" % (took, st))
PY
snapshot "$WORK/after"
diff -u "$WORK/before" "$WORK/after" || fail "state changed after SIGTERM on a full pipe"
