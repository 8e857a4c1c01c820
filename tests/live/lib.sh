# Shared helpers of the live tests (sourced). They run the real stacktop
# against the real kernel: root and tracefs are required; without them a test
# exits 77 (skipped) and says why. fail, skip, tfs_snapshot, wait_for,
# ms_now: tests/lib/common.sh.
. "$(dirname "$0")/../lib/common.sh"

need_stacktop
need_root "live tests"

T=$(tfs_root) || {
	T=/sys/kernel/tracing
	mount -t tracefs nodev "$T" 2>/dev/null || skip "no tracefs"
}
[ -d "$T/instances" ] || skip "tracefs without instances"

WORK=$(mktemp -d /tmp/stacktop-live.XXXXXX)
WORKLOAD_PID=
EXTRA_PIDS= # more processes a test started (killed by pid at exit)

cleanup() {
	# end only what this test started, by pid
	# shellcheck disable=SC2086 # one pid a word
	end_pids $WORKLOAD_PID $EXTRA_PIDS
	rm -rf "$WORK"
}
trap cleanup EXIT

# record_sched_switch NAME [few]: a trace-cmd recording of a second of
# sched_switch with stacks, made in a private instance "NAME.<pid>" (removed
# at exit), to $WORK/trace.dat, by extract_private. With "few" the
# recording's event formats are those of the sched and ftrace systems only
# (extract saves every format tracefs lists, some 2,000 here, and
# libtracecmd parses them all at each open of the file).
record_sched_switch() {
	command -v trace-cmd > /dev/null || fail "trace-cmd is not installed (scripts/deps.sh installs it)"
	REC_INSTANCE=$1.$$
	mkdir "$T/instances/$REC_INSTANCE" || fail "cannot create an instance"
	trap 'rmdir "$T/instances/$REC_INSTANCE" 2>/dev/null; cleanup' EXIT
	echo 1 > "$T/instances/$REC_INSTANCE/options/stacktrace"
	echo 1 > "$T/instances/$REC_INSTANCE/events/sched/sched_switch/enable"
	start_workload
	sleep 1
	echo 0 > "$T/instances/$REC_INSTANCE/tracing_on"
	extract_private "$REC_INSTANCE" "$WORK/trace.dat" "${2:-all}"
	# done with it: removed now, not by the EXIT trap, which a caller may
	# set again (rec-swap's did, and left an instance behind at each run)
	rmdir "$T/instances/$REC_INSTANCE" || fail "cannot remove the instance $REC_INSTANCE"
	trap cleanup EXIT
}

# extract_private INSTANCE OUT [few]: trace-cmd extract -B INSTANCE -o OUT
# without touching anything outside the instance. extract -B also "resets"
# the top level: it writes 0 to its tracing_on (restored at the end: two
# extracts at once, or one killed, leave it off), 0 to events/enable and to
# every system's filter, nop to current_tracer, truncates its trace, sets
# /proc/sys/kernel/kptr_restrict and puts it back: on a machine where other
# tools (and other test runs) trace, that is their state changed. Here it
# runs in a mount namespace of its own where tracefs and /proc/sys are read
# only, the instance writable, and what extract insists on writing at the
# top level is a scratch file: tracing_on, trace, current_tracer,
# set_ftrace_pid, kptr_restrict, and events/, a copy of the formats (all, or
# the sched and ftrace systems' with "few") with enable and filter files of
# its own. A write anywhere else fails (EROFS) and so does the extract.
extract_private() {
	_x=$WORK/extract-ns
	rm -rf "$_x"
	mkdir -p "$_x/events" || fail "cannot make $_x"
	python3 - "$T/events" "$_x/events" "${3:-all}" << 'PY' || fail "cannot copy the event formats"
import os, sys
src, dst, which = sys.argv[1:4]
def copy(rel):
    with open(os.path.join(src, rel)) as f, open(os.path.join(dst, rel), "w") as g:
        g.write(f.read())
copy("header_page")
copy("header_event")
open(os.path.join(dst, "enable"), "w").close()
for sysname in sorted(os.listdir(src)):
    if not os.path.isdir(os.path.join(src, sysname)):
        continue
    if which == "few" and sysname not in ("sched", "ftrace"):
        continue
    os.mkdir(os.path.join(dst, sysname))
    for f in ("enable", "filter"):
        open(os.path.join(dst, sysname, f), "w").close()
    try:
        evs = sorted(os.listdir(os.path.join(src, sysname)))
    except FileNotFoundError:
        evs = []  # another tool's dynamic events (uprobes, kprobes) come and go
    for ev in evs:
        try:
            with open(os.path.join(src, sysname, ev, "format")) as f:
                text = f.read()
        except (FileNotFoundError, NotADirectoryError):
            continue  # not an event (enable, filter), or one gone since
        os.mkdir(os.path.join(dst, sysname, ev))
        with open(os.path.join(dst, sysname, ev, "format"), "w") as g:
            g.write(text)
PY
	cat "$T/tracing_on" > "$_x/tracing_on"
	: > "$_x/trace"
	echo nop > "$_x/current_tracer"
	: > "$_x/set_ftrace_pid"
	cat /proc/sys/kernel/kptr_restrict > "$_x/kptr_restrict"
	# shellcheck disable=SC2016 # expanded by the inner shell
	(cd "$_x" && unshare -m sh -c '
		set -e
		T=$1 X=$2
		mount --bind "$T" "$T"
		mount -o remount,bind,ro "$T"
		mount --bind "$T/instances/$3" "$T/instances/$3"
		mount -o remount,bind,rw "$T/instances/$3"
		for f in tracing_on trace current_tracer set_ftrace_pid; do
			mount --bind "$X/$f" "$T/$f"
		done
		mount --bind "$X/events" "$T/events"
		mount --bind /proc/sys /proc/sys
		mount -o remount,bind,ro /proc/sys
		mount --bind "$X/kptr_restrict" /proc/sys/kernel/kptr_restrict
		exec trace-cmd extract -B "$3" -o "$4"' sh "$T" "$_x" "$1" "$2" > "$WORK/extract.log" 2>&1) ||
		{ cat "$WORK/extract.log"; fail "trace-cmd extract failed"; }
	rm -rf "$_x"
}

# A workload that context-switches: sleeps in a loop (ended at exit).
start_workload() {
	start_sleeper
	WORKLOAD_PID=$SLEEPER_PID
}

# snapshot FILE: the top-level state stacktop must leave as it found it
snapshot() {
	tfs_snapshot "$T" "$1"
}

no_instance_of() {
	[ ! -e "$T/instances/stacktop.$1" ] || fail "instance stacktop.$1 left behind"
	[ ! -e "/run/stacktop/$1.journal" ] || fail "journal of $1 left behind"
}

# guardian_of PID: the pid of stacktop PID's guardian process (kernel/guard.h)
guardian_of() {
	pgrep -f "^stacktop-guard --guardian $1( |\$)"
}

# kill_guardian PID: stacktop PID's guardian killed, by its pid, waited for
# until gone (what is tested then is stacktop's own restore)
kill_guardian() {
	_g=$(guardian_of "$1")
	[ -n "$_g" ] || { kill -9 "$1"; fail "no guardian of $1 to kill"; }
	kill -9 "$_g"
	_tries=100
	while kill -0 "$_g" 2>/dev/null && [ $_tries -gt 0 ]; do
		sleep 0.01
		_tries=$((_tries - 1))
	done
}

# wait_gone MS PATH...: wait until none of the paths exists, at most MS
# milliseconds from now; prints the milliseconds it took, fails past MS
wait_gone() {
	_limit=$1
	shift
	_t0=$(ms_now)
	while :; do
		_left=
		for _p in "$@"; do
			[ -e "$_p" ] && _left=$_p
		done
		_el=$(($(ms_now) - _t0))
		[ -z "$_left" ] && break
		[ "$_el" -lt "$_limit" ] || { echo "$_left still there after $_el ms" >&2; return 1; }
		sleep 0.005
	done
	echo "$_el"
}
