#!/bin/sh
# A process may make the reads of its own /proc files wait for good (issue
# 36): nobody's mmlock maps "hold" from blockfs (a FUSE file whose reads
# are never answered, whoever asks), one thread reads that page through
# /proc/self/mem (the fault waits for the daemon with the process's mmap
# lock held: a remote access does not drop it), another mmap()s (a writer
# queues behind it): every later reader of that lock - /proc/PID/mem, the
# vdso's copy, cmdline, map_files - waits until the daemon dies. (A real
# attacker mounts with the setuid fusermount3, as live-stall does; the
# daemon here is root's, in a mount namespace of its own, so that no other
# process of the machine walks into it.)
#
# With --user=dwarf and --user=fp, root's stacktop -u on that process:
#   - the attack is real: root's own read of its cmdline still waits at 2 s;
#   - the run ends with its 4 reports, the process's row counted, the
#     header counting the stalled reads (the reader process waits,
#     abandoned, not the run);
#   - a long run ends within 1.5 s of SIGTERM.
# Before: the run waited in __access_remote_vm (its vdso copy) for good.
. "$(dirname "$0")/lib.sh"

if [ -z "${BLOCKFS:-}" ] || [ -z "${MMLOCK:-}" ] || [ ! -c /dev/fuse ] ||
	! command -v nsenter > /dev/null; then
	[ "${CI:-}" = true ] && fail "no blockfs (fuse3), mmlock, /dev/fuse or nsenter"
	skip "no blockfs (fuse3), mmlock, /dev/fuse or nsenter"
fi
command -v setpriv > /dev/null || fail "setpriv is not installed"
id nobody > /dev/null 2>&1 && getent group nogroup > /dev/null || skip "no user nobody / group nogroup"
[ -n "${HOSTILE_LIB:-}" ] && [ -f "$HOSTILE_LIB" ] || fail "no HOSTILE_LIB test library"

FUSE_PID= ST_PID= ATT_PID=
mm_cleanup() {
	# the daemon first: what waits on it is freed
	[ -n "$FUSE_PID" ] && kill -KILL "$FUSE_PID" 2> /dev/null && wait "$FUSE_PID" 2> /dev/null
	[ -n "$ST_PID" ] && kill -KILL "$ST_PID" 2> /dev/null
	[ -n "$ATT_PID" ] && kill -KILL "$ATT_PID" 2> /dev/null
	cleanup
}
trap mm_cleanup EXIT

# before the attack: a run over every process would meet it
MODES=fp
"$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -b -n 1 -d 0.1 > /dev/null 2>&1 && MODES="dwarf fp"
[ "$MODES" = fp ] && [ "${CI:-}" = true ] && fail "--user=dwarf does not work here"

chmod 711 "$WORK"
mkdir "$WORK/mnt" && chmod 755 "$WORK/mnt"
unshare --mount --propagation private sleep 600 &
NS_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $NS_PID"
sleep 0.2
nsenter -t "$NS_PID" -m -- "$BLOCKFS" "$WORK/mnt" "$HOSTILE_LIB" "$WORK/fuse.log" \
	-o allow_other > "$WORK/blockfs.err" 2>&1 &
FUSE_PID=$!
tries=0
until grep -qs " $WORK/mnt fuse" "/proc/$NS_PID/mounts" || [ $tries -ge 100 ]; do
	sleep 0.05
	tries=$((tries + 1))
done
[ $tries -lt 100 ] || { cat "$WORK/blockfs.err"; fail "blockfs did not mount"; }

mkfifo "$WORK/in"
nsenter -t "$NS_PID" -m -- setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$MMLOCK" mem "$WORK/mnt/hold" < "$WORK/in" > "$WORK/att.out" 2>&1 &
exec 8> "$WORK/in"
wait_for "$WORK/att.out" '^ready ' 150 || { cat "$WORK/att.out"; fail "mmlock did not start"; }
ATT_PID=$(awk '/^ready / {print $2; exit}' "$WORK/att.out")
grep -q '^read [0-9]* [0-9]* /hold ' "$WORK/fuse.log" || fail "the fault never reached the daemon"

# the attack is real: root's own read of the process's memory waits
t0=$(ms_now)
timeout -s KILL 2 cat "/proc/$ATT_PID/cmdline" > /dev/null 2>&1
rc=$?
[ $rc = 137 ] || fail "root's read of /proc/$ATT_PID/cmdline did not wait (status $rc)"
echo "ok: root's own read of its cmdline still waited at $(($(ms_now) - t0)) ms (killed)"

for mode in $MODES; do
	t0=$(ms_now)
	"$STACKTOP" --user=$mode -e syscalls:sys_enter_write -p "$ATT_PID" -b -n 4 -d 0.5 \
		--expand 1 > "$WORK/run.$mode" 2> "$WORK/run.$mode.err" &
	ST_PID=$!
	while kill -0 "$ST_PID" 2> /dev/null && [ $(($(ms_now) - t0)) -lt 20000 ]; do
		sleep 0.05
	done
	if kill -0 "$ST_PID" 2> /dev/null; then
		echo "stacktop waits in $(cat "/proc/$ST_PID/wchan")"
		fail "$mode: hung (20 s)"
	fi
	wait "$ST_PID" || { cat "$WORK/run.$mode.err"; fail "$mode: exit status $?"; }
	ST_PID=
	ms=$(($(ms_now) - t0))
	n=$(grep -c '^stacktop .* iteration ' "$WORK/run.$mode")
	[ "$n" = 4 ] || { cat "$WORK/run.$mode"; fail "$mode: $n reports, not 4"; }
	# its writes are counted (its frames by offset: after 2 stalls no file is read)
	awk -v p="mmlock/$ATT_PID" '$8 == p && $4 > 0 { f = 1 } END { exit !f }' "$WORK/run.$mode" ||
		{ cat "$WORK/run.$mode"; fail "$mode: no row of the process with hits"; }
	grep -q "reads of other users' files stalled" "$WORK/run.$mode" ||
		{ cat "$WORK/run.$mode"; fail "$mode: the header does not count the stalled reads"; }
	echo "ok: $mode: 4 reports in $ms ms, $(grep -o "[0-9]* reads of other users' files stalled" "$WORK/run.$mode" | head -1)"

	"$STACKTOP" --user=$mode -e syscalls:sys_enter_write -p "$ATT_PID" -b -d 0.5 \
		> "$WORK/term.$mode" 2>&1 &
	ST_PID=$!
	sleep 1.5
	t0=$(ms_now)
	kill -TERM "$ST_PID"
	while kill -0 "$ST_PID" 2> /dev/null && [ $(($(ms_now) - t0)) -lt 10000 ]; do
		sleep 0.02
	done
	ms=$(($(ms_now) - t0))
	kill -0 "$ST_PID" 2> /dev/null && fail "$mode: still running 10 s after SIGTERM"
	wait "$ST_PID"
	ST_PID=
	[ $ms -le 1500 ] || fail "$mode: SIGTERM ended the run after $ms ms"
	echo "ok: $mode: SIGTERM ended it in $ms ms"
done
echo "PASS: a process holding its own mmap lock does not hold root's run"
