#!/bin/sh
# tests/busy-host.sh CMD [ARG...]: run CMD on a busy, unfriendly host, the
# way users run stacktop and CI machines are not always quiet (issue 25):
# a CPU hog on every core, a process whose comm is five CJK characters, one
# whose comm carries an escape sequence, a tab and a backslash, and a
# process that forks short-lived children doing a spread of system calls
# (many small stacks from many entry points). Ends only its own processes,
# by pid, and exits with CMD's status.
#   BUSY_HOGS=N   hogs (default: the number of online CPUs)
set -u
[ $# -ge 1 ] || { echo "usage: tests/busy-host.sh CMD [ARG...]" >&2; exit 2; }
pids=
stop() {
	for p in $pids; do kill "$p" 2> /dev/null; done
	for p in $pids; do wait "$p" 2> /dev/null; done
}
trap stop EXIT INT TERM

n=${BUSY_HOGS:-$(getconf _NPROCESSORS_ONLN)}
i=0
while [ "$i" -lt "$n" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
# hostile comms: set with prctl(PR_SET_NAME) (what ps, /proc/PID/comm and
# the kernel's sched_switch prev_comm show); they sleep and wake 200 times
# a second so that their stacks are in every trace
for name in '漢字テスト' "$(printf 'evil\033[31m\t\\x')"; do
	python3 -c '
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode()[:15], 0, 0, 0)
while True:
    time.sleep(0.005)
' "$name" &
	pids="$pids $!"
done
# many small stacks: short-lived children, each a few system calls
sh -c 'while :; do ls / > /dev/null; cat /proc/self/stat > /dev/null; sleep 0.02; done' &
pids="$pids $!"
echo "busy-host: $n CPU hogs, two hostile comms, a forking loop (pids$pids)" >&2
"$@"
rc=$?
stop
trap - EXIT INT TERM
exit $rc
