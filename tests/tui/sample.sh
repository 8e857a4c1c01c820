#!/bin/sh
# tui-sample: --sample on the screen says what is estimated: the header's
# exact count, and a CI95 column with each row's 95% half width (issue 29).
# A program making getpid() calls from three sites; the screen in tmux.
. "$(dirname "$0")/lib.sh"

command -v perf > /dev/null || skip "perf is not installed (scripts/deps.sh installs it)"
[ -x "${GETPID_LOOP:-}" ] || fail "no GETPID_LOOP helper"

T=$(tfs_root) || skip "no tracefs mounted"
tfs_snapshot "$T" "$TUI_WORK/before"
"$GETPID_LOOP" 2000000000 fixed > /dev/null &
LOOP=$!
TUI_PIDS="$TUI_PIDS $LOOP"
tui_start 120 30
tui_run --sample 100 -u -d 0.5 -e syscalls:sys_enter_getpid -p "$LOOP"
say "the rows are estimates, with their interval"
tui_wait ' CI95 ' 20
tui_wait 'exact [0-9]' 10
tui_wait '^[-+ ] +1 .* ±[0-9]' 10
tui_keys q
tui_quit_restored
kill "$LOOP" 2> /dev/null
wait "$LOOP" 2> /dev/null
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "tracefs state changed"
echo "PASS: --sample's rows carry their 95% interval on the screen"
