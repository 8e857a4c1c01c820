# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers the live and tui tests share (sourced by tests/live/lib.sh and
# tests/tui/lib.sh, POSIX sh). What they promise, on a busy or hostile host
# too: a test ends only the processes it started, by pid; it skips (exit
# 77, meson's SKIP) saying why, and only when a precondition is missing;
# nothing here assumes the rest of the machine is quiet or named in ASCII.
set -u

# fail MSG: the test failed; COMMON_FAIL_HOOK (a command) prints more first
fail() {
	echo "FAIL: $*" >&2
	if [ -n "${COMMON_FAIL_HOOK:-}" ]; then
		$COMMON_FAIL_HOOK >&2
	fi
	exit 1
}

# skip MSG: a precondition is missing (meson counts exit 77 as a skip;
# scripts/test.sh under CI=true counts it as a failure)
skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# need_root WHAT: skip unless root
need_root() {
	[ "$(id -u)" = 0 ] || skip "$1 need root"
}

# need_stacktop: $STACKTOP, or the checkout's build/stacktop; fails without one
need_stacktop() {
	[ -n "${STACKTOP:-}" ] || STACKTOP=$(cd "$(dirname "$0")/../.." && pwd)/build/stacktop
	[ -x "$STACKTOP" ] || fail "no stacktop binary at $STACKTOP (set STACKTOP)"
}

# tfs_root: the mounted tracefs (prints its path; status 1 when none)
tfs_root() {
	for _t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		grep -qs " $_t tracefs " /proc/mounts && { echo "$_t"; return 0; }
	done
	return 1
}

# tfs_snapshot ROOT FILE: the top-level state stacktop must leave as it found it
tfs_snapshot() {
	{
		for _f in "$1"/options/*; do printf '%s=%s\n' "${_f##*/}" "$(cat "$_f")"; done
		printf 'tracing_on=%s\n' "$(cat "$1/tracing_on")"
		printf 'current_tracer=%s\n' "$(cat "$1/current_tracer")"
		printf 'buffer_percent=%s\n' "$(cat "$1/buffer_percent" 2> /dev/null)"
		# "7 (expanded: 1408)" until the buffer is first used: the same size
		printf 'buffer_size_kb=%s\n' "$(sed 's/^[0-9]* (expanded: \([0-9]*\))$/\1/' "$1/buffer_size_kb")"
		echo "set_event:"
		cat "$1/set_event"
	} > "$2"
}

# end_pids PID...: end processes this test started, by pid, and reap them
end_pids() {
	for _p in "$@"; do
		kill "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	return 0
}

# start_sleeper: a workload of ours that context-switches (sleeps in a
# loop); its pid in SLEEPER_PID (the caller ends it)
start_sleeper() {
	( while :; do sleep 0.01; done ) > /dev/null 2>&1 &
	SLEEPER_PID=$!
}

# ms_now: milliseconds of a monotonic-enough clock (date's nanoseconds)
ms_now() {
	echo $(($(date +%s%N) / 1000000))
}

# wait_for FILE PATTERN [TRIES]: until FILE has a line matching PATTERN
# (grep), every 0.1 s, TRIES times at most (default 100)
wait_for() {
	_wf_file=$1 _wf_pat=$2 _wf_tries=${3:-100}
	while [ "$_wf_tries" -gt 0 ]; do
		grep -q -- "$_wf_pat" "$_wf_file" 2>/dev/null && return 0
		sleep 0.1
		_wf_tries=$((_wf_tries - 1))
	done
	return 1
}
