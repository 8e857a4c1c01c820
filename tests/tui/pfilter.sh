#!/bin/sh
# tui-pfilter: the p filter matches comms containing the text, or with
# =NAME that name only (or a glob); --comm starts with =NAME; COMM(PID)
# names the pid with most hits among those the filter keeps (issue 8).
. "$(dirname "$0")/lib.sh"

[ -n "${THREADS:-}" ] || THREADS=$(dirname "$STACKTOP")/tests/live/st-threads
[ -x "$THREADS" ] || fail "no st-threads helper at $THREADS"
T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

"$THREADS" "$TUI_WORK/tids" &
W=$!
TUI_PIDS="$TUI_PIDS $W"
_n=100
until grep -q worker-b "$TUI_WORK/tids" 2>/dev/null && grep -q worker-a "$TUI_WORK/tids"; do
	_n=$((_n - 1))
	[ "$_n" -gt 0 ] || fail "the threads did not start"
	sleep 0.1
done

# every ranked row's COMM(PID) is one of the names in $1 (a regex)
rows_only() {
	tui_rows > "$TUI_WORK/rows"
	[ -s "$TUI_WORK/rows" ] || fail "no rows ($2)"
	grep -v -E " ($1)\([0-9]+\)" "$TUI_WORK/rows" && fail "$2: rows of other comms"
	return 0
}

tui_start 140 30
tui_run --mode stacks -d 0.5 -p "$W"
tui_wait 'mode stacks' 10
# the three threads nap in one loop: one stack, and COMM(PID) names the one
# with most hits in the interval, whichever it is (waiting for each name
# there was a draw that failed now and then); the filters below name each
tui_wait '(main-thre|worker-[ab]).*\([0-9]+\)' 10

say "p text: comms containing it"
tui_keys p
tui_wait 'Pid or comm' 3
tui_type worker
tui_keys Enter
tui_wait "containing 'worker'" 3
sleep 1.2 # two refreshes: the ranking uses the new filter
rows_only 'worker-a|worker-b' "p worker"

say "p =name: that name only"
tui_keys p C-u
tui_type '=worker-a'
tui_keys Enter
tui_wait "only hits of comm 'worker-a'" 3
tui_wait_gone 'worker-b\(' 5
rows_only 'worker-a' "p =worker-a"

say "p =name that only a longer name contains: nothing"
tui_keys p C-u
tui_type '=worker'
tui_keys Enter
tui_wait 'No stack matches the filters' 5

say "p glob"
tui_keys p C-u
tui_type 'worker-[b]'
tui_keys Enter
tui_wait "only hits of comm 'worker-\[b\]'" 3
tui_wait 'worker-b\([0-9]+\)' 5
tui_wait_gone 'worker-a\(' 5
rows_only 'worker-b' "p worker-[b]"
tui_keys q
tui_quit_restored

say "--comm NAME"
tui_run --mode stacks -d 0.5 --comm worker-b
tui_wait 'worker-b\([0-9]+\)' 10
sleep 1.2
rows_only 'worker-b' "--comm worker-b"
tui_keys q
tui_quit_restored
echo "ok: tui-pfilter"
