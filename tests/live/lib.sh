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
# by trace-cmd extract -B, or at exit), to $WORK/trace.dat. With "few" the
# recording's event formats are those of the sched and ftrace systems only:
# trace-cmd extract saves every format tracefs lists (some 2,000 here), and
# libtracecmd parses them all at each open; extract then runs in a mount
# namespace of its own where tracefs' events directory is a copy of those
# two systems' formats (nothing changes outside it).
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
	if [ "${2:-}" = few ]; then
		mkdir "$WORK/events"
		cp "$T/events/header_page" "$T/events/header_event" "$WORK/events/" ||
			fail "cannot copy the event headers"
		for _e in "$T"/events/sched/*/format "$T"/events/ftrace/*/format; do
			_d=${_e%/format}
			mkdir -p "$WORK/events/${_d#"$T"/events/}"
			cp "$_e" "$WORK/events/${_d#"$T"/events/}/" || fail "cannot copy $_e"
		done
		# shellcheck disable=SC2016 # expanded by the inner shell
		(cd "$WORK" && unshare -m sh -c 'mount --bind "$1/events" "$2/events" &&
			exec trace-cmd extract -B "$3" -o "$1/trace.dat"' sh "$WORK" "$T" "$REC_INSTANCE" \
			> "$WORK/extract.log" 2>&1) || { cat "$WORK/extract.log"; fail "trace-cmd extract failed"; }
		rm -rf "$WORK/events"
		return
	fi
	(cd "$WORK" && trace-cmd extract -B "$REC_INSTANCE" -o "$WORK/trace.dat" > "$WORK/extract.log" 2>&1) ||
		{ cat "$WORK/extract.log"; fail "trace-cmd extract failed"; }
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
