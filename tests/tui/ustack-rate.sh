#!/bin/sh
# tui-ustack-rate: -u dwarf on a program writing 50,000 times a second, as a
# user sees it. With a perf ring too small (--user-buffer 64K) the events
# whose user stack was lost are a row that starts with the mark that says
# so, and the header's user segment gives the share and the reason in the
# alert colour; with --user-sample 10 it says "dwarf 1/10" and the events
# not sampled are a row of their own.
. "$(dirname "$0")/lib.sh"

[ -n "${UPROG:-}" ] && [ -x "$UPROG" ] || fail "no UPROG test program"
[ "$(uname -m)" = x86_64 ] || skip "the dwarf mode unwinds x86-64 only"
"$STACKTOP" --user=dwarf -e syscalls:sys_enter_write -b -n 1 -d 0.1 > "$TUI_WORK/probe" 2>&1 ||
	{
		cat "$TUI_WORK/probe"
		grep -q 'built without libunwind\|perf_event_open' "$TUI_WORK/probe" && skip "no dwarf mode here"
		fail "--user=dwarf does not start"
	}

"$UPROG" 60 rate 50000 > /dev/null &
UPROG_PID=$!
TUI_PIDS="$TUI_PIDS $UPROG_PID"

tui_start 160 30
say "a ring too small: the lost user stacks' row says so, first"
tui_run -u --user-buffer 64K -d 0.5 -e syscalls:sys_enter_write -p "$UPROG_PID"
tui_wait 'user dwarf [0-9]+% \([0-9]+% sample lost\)' 15
tui_wait '^[-+ ] +[0-9]+ .*uprog\([0-9]+\) +\[user stack lost: perf ring full\] ' 10
tui_wait '^[-+ ] +[0-9]+ .*uprog\([0-9]+\) .*-- < __write \(libc' 10
tui_keys q
tui_wait '__RC=0__' 10

say "one event in ten: the segment says so"
tui_run -u --user-sample 10 -d 0.5 -e syscalls:sys_enter_write -p "$UPROG_PID"
tui_wait 'user dwarf 1/10 (9|10|11)%' 15
tui_wait '^[-+ ] +[0-9]+ .*uprog\([0-9]+\) +\[user stack not sampled\] ' 10
tui_keys q
tui_wait '__RC=0__' 10
echo "ok: tui-ustack-rate"
