#!/bin/sh
# tui-cmd: stacktop -- CMD on the screen (the command's output kept off
# the screen, its last view kept after it exits until q, its exit status
# stacktop's), the guardian after a kill -9 of the screen, and the next
# run's word on the status line when the guardian was killed too.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

# a killed screen leaves the terminal raw: a line feed still ends a line;
# what is typed next waits until the shell has made it sane again
term_sane() {
	TM send-keys -t tui "stty sane; tput rmcup; clear; echo __SANE__" C-j
	tui_wait '^__SANE__' 10
}

tfs_snapshot "$T" "$TUI_WORK/before"
tui_start 120 40

say "-- CMD: where its output goes, said at start"
tui_run -d 0.5 -- sh -c "'echo GARBLE-THE-SCREEN; sleep 3; echo GARBLE-AGAIN >&2; exit 3'"
APP=$(tui_app_pid)
tui_wait 'sh: its input is /dev/null, its output goes to a pty of its own, not shown \(2>FILE keeps it\)' 5
tui_wait '^[-+ ] +1 ' 10

say "the command exits: its last view stays, the header says how it ended"
tui_wait 'cmd +sh exited with status 3' 10
tui_wait 'sh exited with status 3: this is its last view, the whole run by its totals; q quits' 2
rows=$(tui_rows | wc -l)
[ "$rows" -gt 0 ] || fail "no rows in the last view"
# the whole run, not its last (partial) interval: cumulative, by TOTAL
tui_wait 'sort +TOTAL desc' 2
sleep 2
[ "$(tui_flag alternate_on)" = 1 ] || fail "the screen left after the command exited"
kill -0 "$APP" 2>/dev/null || fail "stacktop ended without q"
tui_capture | grep -q GARBLE && fail "the command's output reached the screen"
tui_wait 'cmd +sh exited with status 3' 1
# nothing is read any more: a second look shows the same rows
before=$(tui_rows | md5sum)
sleep 1.2
[ "$(tui_rows | md5sum)" = "$before" ] || fail "the last view changed after the command exited"

say "q: stacktop's exit status is the command's"
tui_keys q
tui_quit_restored 3
tui_capture | grep -q GARBLE && fail "the command's output reached the terminal"

say "2>FILE keeps the command's output"
TM send-keys -t tui "clear; $STACKTOP -d 0.5 -- sh -c 'echo kept-output; sleep 3' 2>$TUI_WORK/cmd.err; echo __RC=\$?__" Enter
tui_wait "its output goes to stacktop's stderr" 5
tui_wait 'cmd +sh exited with status 0' 10
tui_keys q
tui_quit_restored 0
grep -q -x kept-output "$TUI_WORK/cmd.err" || fail "the command's output is not in stacktop's stderr file"

say "kill -9 of the screen: its guardian restores within a second"
tui_run -d 0.5
APP=$(tui_app_pid)
tui_wait '^[-+ ] +1 ' 10
[ -d "$T/instances/stacktop.$APP" ] || fail "no instance stacktop.$APP while running"
G=$(pgrep -f "^stacktop-guard --guardian $APP( |\$)")
[ -n "$G" ] || fail "no guardian process"
kill -9 "$APP"
t0=$(($(date +%s%N) / 1000000))
while [ -e "$T/instances/stacktop.$APP" ] || [ -e "/run/stacktop/$APP.journal" ]; do
	el=$(($(date +%s%N) / 1000000 - t0))
	[ "$el" -lt 1000 ] || fail "the instance of the killed screen is still there after $el ms"
	sleep 0.005
done
el=$(($(date +%s%N) / 1000000 - t0))
echo "restored $el ms after the kill"
tui_wait '__RC=137__' 5
term_sane

say "the guardian killed too: the next screen says what it removed"
tui_run -d 0.5
APP=$(tui_app_pid)
tui_wait '^[-+ ] +1 ' 10
G=$(pgrep -f "^stacktop-guard --guardian $APP( |\$)")
[ -n "$G" ] || fail "no guardian process"
kill -9 "$G"
while kill -0 "$G" 2>/dev/null; do sleep 0.01; done
kill -9 "$APP"
tui_wait '__RC=137__' 5
[ -d "$T/instances/stacktop.$APP" ] || fail "the instance should remain (guardian killed too)"
term_sane
tui_run -d 0.5
tui_wait "stacktop $APP ended without restoring tracing: removed instance stacktop\\.$APP" 5
[ ! -e "$T/instances/stacktop.$APP" ] || fail "instance stacktop.$APP left behind"
tui_keys q
tui_quit_restored 0

tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "tracefs state changed"
echo "PASS"
