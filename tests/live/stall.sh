#!/bin/sh
# No user's file may stall root's run (issue 36, item 1), for real: nobody
# mounts blockfs (a FUSE daemon that never answers a process of root's)
# with the setuid fusermount3, without allow_other, so root's own requests
# never reach it; then, in a user + mount namespace of their own
# (unshare -Urm), an overlay over it (xino=on: the mapping's device and
# inode are the overlay's, on a mount stacktop does not refuse), and maps
# lib.so from the overlay into the victim. Root's reads of lib.so go
# through the overlay to the daemon with nobody's credentials, from root's
# process: the daemon reads them and never answers. Before issue 36 the run
# waited in request_wait_answer for good (state D: no report, SIGTERM and
# SIGKILL did nothing).
#
# With --user=dwarf and --user=fp, root's stacktop -u on the victim:
#   - ends with its reports (-n 2), the lib.so frame shown by its offset,
#     the header saying a read stalled; the daemon's log shows root's
#     request (the attack was real), made by a reader process, not stacktop;
#   - a long run ends within 1.5 s of SIGTERM, tracefs restored;
#   - the reader left waiting in the kernel (state D) holds neither the
#     shell's wait nor a pipe's end: `stacktop -b -n 1 | cat` ends;
#   - the screen (tmux): q ends it within 1.5 s.
# /dev/fuse is made 0666 for the mount (nobody opens it), put back at once
# and in the exit trap.
. "$(dirname "$0")/lib.sh"

[ -n "${HOSTILE_VICTIM:-}" ] && [ -x "$HOSTILE_VICTIM" ] || fail "no HOSTILE_VICTIM test program"
[ -n "${HOSTILE_LIB:-}" ] && [ -f "$HOSTILE_LIB" ] || fail "no HOSTILE_LIB test library"
if [ -z "${BLOCKFS:-}" ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 > /dev/null ||
	! command -v unshare > /dev/null; then
	[ "${CI:-}" = true ] && fail "no blockfs (fuse3), /dev/fuse, fusermount3 or unshare"
	skip "no blockfs (fuse3), /dev/fuse, fusermount3 or unshare"
fi
for t in setpriv tmux; do
	command -v $t > /dev/null || fail "$t is not installed (scripts/deps.sh test installs it)"
done
id nobody > /dev/null 2>&1 && getent group nogroup > /dev/null || skip "no user nobody / group nogroup"

att() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

chmod 711 "$WORK"
A=$WORK/att # the attacker's directory
mkdir "$A" && chown nobody:nogroup "$A" && chmod 755 "$A" || fail "cannot make the attacker's directory"
att mkdir "$A/fuse" "$A/ov" "$A/empty" || fail "mkdir as nobody"
att cp "$HOSTILE_LIB" "$A/lib.so" || fail "cp as nobody"
# the user may not run a second user namespace here (sysctls): then there is no attack
if ! att unshare -Urm true 2> /dev/null; then
	[ "${CI:-}" = true ] && fail "nobody cannot make a user namespace (unshare -Urm)"
	skip "nobody cannot make a user namespace here: no overlay of their own"
fi

FUSE_MODE= FUSE_PID= VICTIM_SH= HOLD_PID= ST_PID= TMUX_SOCK="stacktop-stall-$$"
stall_cleanup() {
	[ -n "$FUSE_MODE" ] && chmod "$FUSE_MODE" /dev/fuse
	# the daemon first: what waits on it (the readers) is freed
	[ -n "$FUSE_PID" ] && kill -KILL "$FUSE_PID" 2> /dev/null && wait "$FUSE_PID" 2> /dev/null
	umount -l "$A/fuse" 2> /dev/null
	[ -n "$ST_PID" ] && kill -KILL "$ST_PID" 2> /dev/null
	[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2> /dev/null
	[ -n "$VICTIM_SH" ] && kill "$VICTIM_SH" 2> /dev/null
	tmux -L "$TMUX_SOCK" kill-server 2> /dev/null
	cleanup
}
trap stall_cleanup EXIT

# the FUSE mount, by nobody (fusermount3 opens /dev/fuse as the caller)
FUSE_MODE=$(stat -c %a /dev/fuse)
chmod 666 /dev/fuse
# (setpriv itself in the background, not a subshell: $! is the daemon's pid)
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$BLOCKFS" "$A/fuse" "$A/lib.so" "$A/fuse.log" > "$WORK/blockfs.err" 2>&1 &
FUSE_PID=$!
tries=0
until grep -qs " $A/fuse fuse" /proc/mounts || [ $tries -ge 100 ]; do
	sleep 0.05
	tries=$((tries + 1))
done
chmod "$FUSE_MODE" /dev/fuse
FUSE_MODE=
[ $tries -lt 100 ] || { cat "$WORK/blockfs.err"; fail "blockfs did not mount"; }
grep " $A/fuse fuse" /proc/mounts | grep -q allow_other && fail "the FUSE mount allows others"

# the overlay in nobody's namespace, and the victim mapping lib.so from it
mkfifo "$WORK/vin"
chmod 644 "$WORK/vin"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- unshare -Urm sh -c "ls '$A/fuse' > /dev/null &&
	mount -t overlay overlay -o 'lowerdir=$A/fuse:$A/empty,xino=on' '$A/ov' &&
	exec '$HOSTILE_VICTIM' lib '$A/ov/lib.so'" < "$WORK/vin" > "$WORK/victim.out" 2>&1 &
VICTIM_SH=$!
sleep 100000 > "$WORK/vin" &
HOLD_PID=$!
wait_for "$WORK/victim.out" '^ready ' 100 || { cat "$WORK/victim.out"; fail "the victim did not start"; }
VICTIM_PID=$(awk '/^ready / {print $2; exit}' "$WORK/victim.out")
grep -q " $A/ov/lib.so\$" "/proc/$VICTIM_PID/maps" || fail "the victim does not map lib.so from the overlay"
grep -qs " $A/ov " /proc/mounts && fail "the overlay is not private to nobody's namespace"
ovdev=$(awk -v p="$A/ov/lib.so" '$6 == p {print $4; exit}' "/proc/$VICTIM_PID/maps")
echo "ok: nobody's overlay over their FUSE mount: lib.so mapped from device $ovdev"

MODES=fp
if "$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -b -n 1 -d 0.1 > "$WORK/probe" 2>&1; then
	MODES="dwarf fp"
elif [ "${CI:-}" = true ]; then
	cat "$WORK/probe"
	fail "--user=dwarf does not work here"
fi

# the pids of root's processes the daemon holds (the log's 5th field: their real uid)
held() { awk '$5 == 0 {print $2}' "$A/fuse.log" | sort -u; }

for mode in $MODES; do
	# the reports, on time, whatever the daemon does
	t0=$(ms_now)
	"$STACKTOP" --user="$mode" -e syscalls:sys_enter_write -p "$VICTIM_PID" -b -n 2 -d 0.5 \
		--expand 1 --top 3 > "$WORK/run.$mode" 2> "$WORK/run.$mode.err" &
	ST_PID=$!
	while kill -0 "$ST_PID" 2> /dev/null && [ $(($(ms_now) - t0)) -lt 30000 ]; do
		sleep 0.05
	done
	if kill -0 "$ST_PID" 2> /dev/null; then
		grep -H . /proc/"$ST_PID"/task/*/wchan
		fail "$mode: root's run still there after 30 s"
	fi
	wait "$ST_PID"
	rc=$?
	ST_PID=
	ms=$(($(ms_now) - t0))
	[ $rc = 0 ] || { cat "$WORK/run.$mode.err"; fail "$mode: status $rc"; }
	[ "$(grep -c '^stacktop ' "$WORK/run.$mode")" = 2 ] || { cat "$WORK/run.$mode"; fail "$mode: not 2 reports"; }
	grep -q '\[unknown\] (lib.so+0x[0-9a-f]*)\|\[unknown\] 0x[0-9a-f]* (lib.so+0x' "$WORK/run.$mode" ||
		{ cat "$WORK/run.$mode"; fail "$mode: no lib.so frame"; }
	grep -q "reads of other users' files stalled" "$WORK/run.$mode" ||
		{ cat "$WORK/run.$mode"; fail "$mode: the header does not say a read stalled"; }
	# the attack was real: root's request reached the daemon, from a reader, not stacktop
	pids=$(held)
	[ -n "$pids" ] || { cat "$A/fuse.log"; fail "$mode: no request of root's reached the daemon"; }
	for p in $pids; do
		if [ -e "/proc/$p" ]; then
			[ "$(cat "/proc/$p/comm")" = stacktop-files ] || fail "$mode: $p held by the daemon is not a reader"
			state=$(awk '{print $3}' "/proc/$p/stat")
			echo "$mode: reader $p waits for the daemon (state $state, $(cat "/proc/$p/wchan"))"
		fi
	done
	echo "ok: $mode: 2 reports in $ms ms; the read that stalled abandoned"
	# a long run and SIGTERM
	"$STACKTOP" --user="$mode" -e syscalls:sys_enter_write -p "$VICTIM_PID" -b -d 0.5 \
		> "$WORK/term.$mode" 2>&1 &
	ST_PID=$!
	# a report with the victim's stack first (a loaded machine starts slowly)
	wait_for "$WORK/term.$mode" '^#1 ' 300 || { cat "$WORK/term.$mode"; fail "$mode: no report with a stack"; }
	[ -d "$T/instances/stacktop.$ST_PID" ] || { cat "$WORK/term.$mode"; fail "$mode: no instance"; }
	n=$(grep -c '^stacktop ' "$WORK/term.$mode")
	t0=$(ms_now)
	kill -TERM "$ST_PID"
	while kill -0 "$ST_PID" 2> /dev/null && [ $(($(ms_now) - t0)) -lt 10000 ]; do
		sleep 0.02
	done
	ms=$(($(ms_now) - t0))
	kill -0 "$ST_PID" 2> /dev/null && fail "$mode: still running 10 s after SIGTERM"
	wait "$ST_PID"
	rc=$?
	no_instance_of "$ST_PID"
	ST_PID=
	[ $ms -le 1500 ] || fail "$mode: SIGTERM ended the run after $ms ms"
	[ $rc = 0 ] || { tail -5 "$WORK/term.$mode"; fail "$mode: status $rc after SIGTERM"; }
	[ "$(grep -c '^stacktop ' "$WORK/term.$mode")" -gt "$n" ] ||
		{ cat "$WORK/term.$mode"; fail "$mode: no final report after SIGTERM"; }
	echo "ok: $mode: SIGTERM ended the run in $ms ms with its report"
done

# a pipe's reader and the shell: neither waits for a reader stuck in the kernel
t0=$(ms_now)
timeout 30 sh -c "'$STACKTOP' --user=fp -e syscalls:sys_enter_write -p $VICTIM_PID -b -n 1 -d 0.3 | cat > '$WORK/pipe.out'"
rc=$?
ms=$(($(ms_now) - t0))
[ $rc = 0 ] || fail "the pipeline ended with status $rc (124: it waited for the reader)"
grep -q '^stacktop ' "$WORK/pipe.out" || fail "no report through the pipe"
stuck=0
for p in $(held); do
	[ "$(awk '{print $3}' "/proc/$p/stat" 2> /dev/null)" = D ] && stuck=$((stuck + 1))
done
[ $stuck -ge 1 ] || fail "no reader waits in the kernel: the case proves nothing"
echo "ok: stacktop -b | cat ended in $ms ms while $stuck reader(s) wait for the daemon (state D)"

# the screen: q ends it
tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s stall -x 160 -y 40 \
	"env TERM=screen '$STACKTOP' --user=fp -e syscalls:sys_enter_write -p $VICTIM_PID -d 0.5; echo EXITED \$?; sleep 100" ||
	fail "cannot start tmux"
pane() { tmux -L "$TMUX_SOCK" capture-pane -p -t stall; }
tries=0
until pane | grep -q 'hostile-victim' || [ $tries -ge 150 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
[ $tries -lt 150 ] || { pane; fail "the screen shows no row of the victim"; }
sleep 1
t0=$(ms_now)
tmux -L "$TMUX_SOCK" send-keys -t stall q
until pane | grep -q '^EXITED' || [ $(($(ms_now) - t0)) -ge 10000 ]; do
	sleep 0.02
done
ms=$(($(ms_now) - t0))
pane | grep -q '^EXITED 0' || { pane; fail "q did not end the screen (or not with status 0)"; }
[ $ms -le 1500 ] || fail "q ended the screen after $ms ms"
tmux -L "$TMUX_SOCK" kill-server 2> /dev/null
echo "ok: q ended the screen in $ms ms"

# the daemon gone, the readers it held end (a SIGKILL was pending)
readers=$(held)
kill -KILL "$FUSE_PID"
wait "$FUSE_PID" 2> /dev/null
FUSE_PID=
for p in $readers; do
	tries=0
	while [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2> /dev/null)" != Z ] &&
		[ $tries -lt 100 ]; do
		sleep 0.05
		tries=$((tries + 1))
	done
	[ $tries -lt 100 ] || fail "reader $p still there after the daemon ended"
done
echo "ok: the readers held by the daemon ended with it"
echo "ok: stall"
