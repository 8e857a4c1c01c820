#!/bin/sh
# tui-live: the real stacktop in tmux on the real kernel (stacks mode):
# every key of the issue, as a user sees it, and a clean exit.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"
[ -e "$T/events/sched/sched_wakeup" ] || skip "no sched:sched_wakeup event"

tfs_snapshot "$T" "$TUI_WORK/before"
start_workload

tui_start 120 40
tui_run --mode stacks -d 0.5 -e sched:sched_switch -e sched:sched_wakeup
APP=$(tui_app_pid)

say "start: header and ranked rows"
tui_wait 'mode stacks' 10
tui_wait 'events/s [0-9]' 5
tui_wait '^\+ +1 ' 15
tui_wait 'FUNCTION (\[module\] )?< CALLERS' 2
# symbolized sched_switch stacks: through __schedule, which every switch
# row shares and leaves out as "..." (the breakdown names the row's own
# first frame, not that shared leaf)
tui_wait '__schedule|\.\.\. [a-z_]*sched[a-z_]* <' 10
[ -d "$T/instances/stacktop.$APP" ] || fail "no instance stacktop.$APP while running"
[ "$(tui_flag alternate_on)" = 1 ] || fail "not on the alternate screen"
[ "$(tui_flag mouse_any_flag)" = 1 ] || fail "mouse reporting is off (no -M given)"

say "help lists every key of the table"
tui_resize 160 70
tui_keys h
tui_wait 'help - keys' 5
tui_wait 'lines 1-[0-9]+ of [0-9]+' 5
"$PRINT_KEYS" > "$TUI_WORK/keys" || fail "print-keys failed"
grep -E '^  ' "$TUI_WORK/keys" | sed 's/^ *//; s/  */ /g' > "$TUI_WORK/keylines"
[ "$(wc -l < "$TUI_WORK/keylines")" -ge 30 ] || fail "key table looks short"
tui_capture | sed 's/^ *//; s/  */ /g' > "$TUI_WORK/helppane"
while IFS= read -r line; do
	grep -q -F -x -- "$line" "$TUI_WORK/helppane" || fail "help screen lacks: $line"
done < "$TUI_WORK/keylines"
tui_wait 'Mouse: a click selects' 1
tui_keys q
tui_wait_gone 'help - keys' 5
tui_wait '^[-+ ] +1 ' 5
tui_resize 120 40

say "expand and collapse"
tui_keys Home Enter
tui_wait '#0 +trace_event_raw_event_sched_' 5
tui_wait '#2 +[a-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+' 2
tui_keys Left
tui_wait_gone '#0 +trace_event_raw' 5
# E expands every stack: the first two must both show their frames. The
# real kernel's stacks are as deep as the machine's work makes them (a
# wakeup from a block-I/O interrupt inside a syscall runs past 30 frames),
# and on a busy host a deep first stack filled the 40 lines and hid the
# second one's frames (issue 35). Paused, the rows stay put: the pane grows
# to hold both stacks' depths (DEP), the header, the breakdown and the keys.
tui_keys Z
tui_wait ' PAUSED ' 3
DEPS=$(tui_column DEP | head -n 2 | tr '\n' ' ')
set -- $DEPS
[ $# = 2 ] || fail "no two ranked rows with a depth: '$DEPS'"
TALL=$(($1 + $2 + 2 + 20))
[ "$TALL" -ge 40 ] || TALL=40
tui_resize 120 "$TALL"
tui_keys E
tui_wait '#0 +trace_event_raw' 5
tui_wait_count '#0 +trace_event_raw' 2 5
tui_resize 120 40
tui_keys Space
tui_wait_gone ' PAUSED ' 3
tui_keys C
tui_wait_gone '#0 ' 5
tui_keys Right
tui_wait '#0 ' 5
tui_keys Enter
tui_wait_gone '#0 ' 5

say "breakdown by event, comm/pid, CPU"
tui_wait 'breakdown of ' 5
tui_wait '% cpu[0-9]+' 5
tui_keys b
tui_wait_gone 'breakdown of ' 5
tui_keys b
tui_wait 'breakdown of ' 5

say "order held while moving, selection follows its stack"
tui_keys Home Down Down
tui_wait 'order +held' 2
tui_wait_gone 'order +held' 6
FC=$(tui_func_col)
[ -n "$FC" ] || fail "no FUNCTION column in the table's title"
SEL1=$(tui_selected | tui_cut_col "$FC")
[ -n "$SEL1" ] || fail "no selected row found"
sleep 1.5
SEL2=$(tui_selected | tui_cut_col "$FC")
[ "$SEL1" = "$SEL2" ] || fail "selection moved to another stack: '$SEL1' -> '$SEL2'"

say "pause"
tui_keys Z
tui_wait ' PAUSED ' 3
tui_rows > "$TUI_WORK/p1"
sleep 1.5
tui_rows > "$TUI_WORK/p2"
cmp -s "$TUI_WORK/p1" "$TUI_WORK/p2" || { diff "$TUI_WORK/p1" "$TUI_WORK/p2"; fail "rows changed while paused"; }

say "sort (on the paused view): next column, invert, F6 picker"
tui_keys '>'
tui_wait 'sort TOTAL desc' 3
tui_sorted desc TOTAL
tui_keys I
tui_wait 'sort TOTAL asc' 3
tui_sorted asc TOTAL
tui_keys I '<'
tui_wait 'sort DELTA desc' 3
tui_sorted desc DELTA
tui_keys F6
tui_wait 'Sort by' 3
tui_type depth
tui_keys Enter
tui_wait 'sort DEPTH desc' 3
tui_sorted desc DEP
tui_keys F6
tui_type delta
tui_keys Enter
tui_wait 'sort DELTA desc' 3
tui_keys Space
tui_wait_gone ' PAUSED ' 3

say "delta / cumulative"
tui_keys z
tui_wait '\[CUMULATIVE\]' 3
tui_wait 'sort TOTAL desc' 3
tui_keys z
tui_wait '\[DELTA\]' 3
tui_wait 'sort DELTA desc' 3

say "event filter (picker)"
tui_keys f
tui_wait 'Filter by event' 3
tui_wait '\(all events\)' 2
tui_wait 'sched:sched_switch' 2
tui_type wakeup
tui_wait_gone '\(all events\)' 2
tui_keys Enter
tui_wait 'event sched:sched_wakeup' 3
tui_keys z
# one event: the header names it, the EVENT column goes, the breakdown has only it
tui_wait '^\+ +1 ' 10
tui_wait_gone '^ +# .*EVENT' 5
tui_wait '100% sched:sched_wakeup' 10
tui_rows | grep -q sched_switch && fail "sched_switch rows under an event filter on sched_wakeup"
tui_keys f
tui_type 'no_such_event'
tui_wait 'nothing matches' 3
tui_keys Escape
tui_wait_gone 'Filter by event' 3
tui_keys f
tui_wait 'Filter by event' 3
tui_keys Home Enter
tui_wait 'event all' 3
tui_keys z
tui_wait '\[DELTA\]' 3

say "filter on frames and comm"
tui_keys '\'
tui_wait 'Filter frames/comm' 3
tui_type 'zz_no_such_function_zz'
tui_keys Enter
tui_wait 'No stack matches the filters' 5
tui_keys x
tui_wait 'filters and the search cleared' 3
tui_wait '^\+ +1 ' 10
tui_keys F4
tui_type 'do_nanosleep'
tui_keys Enter
tui_wait 'filter do_nanosleep' 3
tui_wait '^\+ +1 ' 10
tui_keys E
tui_wait '#[0-9]+ +do_nanosleep\+' 5
# every stack on screen has the frame: as many matches as stack rows
tui_keys Z
tui_wait ' PAUSED ' 3
NSTACK=$(tui_rows | wc -l)
NFRAME=$(tui_stable | grep -c -E '#[0-9]+ +do_nanosleep\+')
[ "$NFRAME" -ge "$((NSTACK - 1))" ] || fail "$NSTACK stacks but only $NFRAME do_nanosleep frames"
tui_keys Space C x
tui_wait 'filters and the search cleared' 3

say "pid/comm filter"
tui_keys p
tui_wait 'Pid or comm' 3
tui_type sleep
tui_keys Enter
tui_wait 'comm sleep' 3
tui_wait '^\+ +1 .*sleep\([0-9]+\)' 10
tui_keys p C-u
tui_type "$APP"
tui_keys Enter
tui_wait "pid $APP" 3
tui_keys x
tui_wait 'event all' 3

say "search and next"
tui_keys C /
tui_wait 'Search \(' 3
tui_type 'do_nanosleep'
tui_keys Enter
tui_wait "search 'do_nanosleep'" 3
# the match is in a frame: its stack unfolds to show it
tui_wait '#[0-9]+ +do_nanosleep\+' 5
tui_keys n
tui_wait_gone 'not found' 1
tui_keys /
tui_keys C-u
tui_type 'zz_nothing_zz'
tui_wait "zz_nothing_zz +\\[not found\\]" 3
tui_keys Enter
tui_wait "search: 'zz_nothing_zz' not found" 3
tui_keys Escape
tui_keys Escape

say "caller tree"
tui_keys t
tui_wait 'CALLER TREE' 5
tui_wait 'view tree' 2
# the breakdown follows the selected node: every stack through it
tui_wait 'breakdown of .* stacks? through it\) by event, comm\(pid\), CPU' 5
tui_wait '[0-9.]+ +[0-9.kM]+ +[-0-9.kM]+ +[^ ]+ [a-z_]' 5
tui_keys Home Right
tui_keys E
tui_wait '__schedule' 5
# a search finds a function inside folded subtrees and unfolds the way to it
tui_keys C /
tui_type '__schedule'
tui_keys Enter
tui_wait_gone 'not found' 1
tui_wait '^ +[0-9.]+ +[0-9.kM]+ +[-0-9.kM]+ +[ ]+[^a-z_ ]* *__schedule' 5
tui_keys Escape
tui_keys C t
tui_wait 'CALLEE TREE' 5
tui_keys t
tui_wait 'view stacks' 5

say "delay"
tui_keys d
tui_wait 'Refresh delay' 3
tui_keys C-u
tui_type 0.3
tui_keys Enter
tui_wait 'delay 0.3s' 3
# the old value is shown, and typing replaces it (no C-u needed)
tui_keys d
tui_type 2
tui_keys Enter
tui_wait 'delay 2s' 3
tui_keys d
tui_type 0.3
tui_keys Enter
tui_wait 'delay 0.3s' 3
# a character whose code is a function key's (U+0112 = KEY_F(10)) does not quit
TM send-keys -t tui -l "$(printf '\304\222')"
sleep 0.3
tui_wait 'delay 0.3s' 2
tui_keys d C-u
tui_type abc
tui_keys Enter
tui_wait 'not a number' 3

say "redraw"
tui_keys Home C-l
tui_wait '^ +# ID +DELTA' 5
tui_wait '^[-+ ] +1 ' 5

say "reset (stacks mode: counts)"
tui_keys r
tui_wait 'press r again' 3
tui_keys j
tui_keys r
tui_wait 'press r again' 3
tui_keys r
tui_wait 'reset: counts start from zero' 5
tui_wait '^\+ +1 ' 10

say "stackmap toggle says why it cannot"
tui_keys s
if [ -e "$T/options/stackmap" ]; then
	tui_wait 'stackmap (on|off)|cannot turn stackmap' 5
else
	tui_wait 'kernel has no stackmap option' 5
fi

say "P asks the format; folded: the view as folded stacks"
tui_keys P
tui_wait 'Save the view as' 3
tui_type folded
tui_keys Enter
tui_wait 'wrote [0-9]+ folded stacks .* to \./stacktop-[0-9]{8}-[0-9]{6}\.folded' 5
F=$(ls "$TUI_WORK"/stacktop-*.folded 2>/dev/null | head -n 1)
[ -n "$F" ] || fail "no folded file in $TUI_WORK"
[ -s "$F" ] || fail "$F is empty"
grep -q -E '^[^ ]+(;[^ ]+)+ [0-9]+$' "$F" || fail "$F is not folded stacks: $(head -n 2 "$F")"
grep -q '__schedule' "$F" || fail "$F lacks __schedule"
# kernel addresses: for its owner only
[ "$(stat -c %a "$F")" = 600 ] || fail "$F is mode $(stat -c %a "$F"), expected 600"

say "P offers the flame graph page: html"
tui_keys P
tui_wait 'Save the view as' 3
tui_type html
tui_keys Enter
tui_wait 'wrote the view as html .* to \./stacktop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.html' 5
H=$(ls "$TUI_WORK"/stacktop-*.html 2>/dev/null | head -n 1)
[ -n "$H" ] || fail "no html file in $TUI_WORK"
head -c 15 "$H" | grep -q '<!DOCTYPE html>' || fail "$H is not the page"
grep -q '"format":"stacktop-flame"' "$H" || fail "$H has no flame graph data"
grep -q '"__schedule",0\]' "$H" || fail "$H lacks __schedule"
[ "$(stat -c %a "$H")" = 600 ] || fail "$H is mode $(stat -c %a "$H"), expected 600"

say "P, Enter: json, a snapshot that stacktop -r reads back"
tui_keys P
tui_wait 'Save the view as' 3
tui_keys Enter
tui_wait 'wrote the view as json .* to \./stacktop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.json' 5
J=$(ls "$TUI_WORK"/stacktop-*.json 2>/dev/null | head -n 1)
[ -n "$J" ] || fail "no json file in $TUI_WORK"
"$STACKTOP" -r "$J" --json > "$TUI_WORK/back.json" || fail "stacktop -r $J failed"
python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert a["stacks"] and [s["key"] for s in a["stacks"]] == [s["key"] for s in b["stacks"]], "ranking differs"
assert [s["total"] for s in a["stacks"]] == [s["total"] for s in b["stacks"]], "totals differ"
' "$J" "$TUI_WORK/back.json" || fail "the P snapshot does not read back the same"

say "mouse: click on a column title sorts, click selects, wheel scrolls"
tui_wait '^ +# ' 2
Y=$(tui_capture | grep -n -E '^ +# ' | head -n 1 | cut -d: -f1)
X=$(tui_capture | sed -n "${Y}p" | awk '{ print index($0, "TOTAL") }')
tui_click "$X" "$((Y - 1))"
tui_wait 'sorted by TOTAL' 3
tui_wait 'sort TOTAL desc' 3
tui_click "$X" "$((Y - 1))"
tui_wait 'sort TOTAL asc' 3
tui_keys '<' I
tui_wait 'sort DELTA desc' 3
tui_keys Z
tui_wait ' PAUSED ' 3
ROW3=$(tui_stable | tui_one_col | sed -n "$((Y + 3))p" | tui_cut_col "$FC")
tui_click 10 $((Y + 2))
tui_wait_sel() {
	_n=30
	while [ "$_n" -gt 0 ]; do
		[ "$(tui_selected | tui_cut_col "$FC")" = "$1" ] && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	fail "the clicked row '$1' is not selected: '$(tui_selected)'"
}
tui_wait_sel "$ROW3"
tui_keys Space
tui_wait_gone ' PAUSED ' 3
tui_wheel down 10 $((Y + 2))
tui_wait 'order +held' 2

say "resize: 80x24, small (40x10), too small, very wide"
tui_resize 80 24
tui_keys Home
# stacks mode at 80 columns: the ID column (always "-") is the first to go
tui_wait '^ +# +(ID +)?DELTA. +TOTAL +%' 5
tui_wait '^[-+ ] +1 ' 5
tui_wait 'FUNCTION' 2
tui_wait 'F1Help' 8
# under 80x24 (issue 27): a one-line header (rates and losses), the
# essential columns, the rows; under 40x10 only the message
tui_resize 40 10
tui_wait '^ events/s [0-9.kM]+ +lost ' 5
tui_wait '^ +[0-9.kM]+ .*<' 5
tui_wait 'F1Help' 5
tui_resize 79 24
tui_wait '^ events/s [0-9.kM]+ +lost ' 5
tui_wait_gone 'terminal too small' 3
tui_resize 39 10
tui_wait 'terminal too small: 39x10' 5
tui_resize 30 9
tui_wait 'stacktop needs 40x10' 5
tui_resize 250 50
tui_wait 'RATE/s +TREND +DEP' 5
# the selection follows its stack wherever the ranking moves it: go home first
tui_keys Home
tui_wait '^[-+ ] +1 ' 5
tui_resize 120 40

say "P, json: a snapshot that stacktop -r reads back"
tui_keys P
tui_wait 'Save the view as' 3
tui_type json
tui_keys Enter
tui_wait 'wrote the view as json .* to \./stacktop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.json' 5
J=$(ls "$TUI_WORK"/stacktop-*.json 2>/dev/null | head -n 1)
[ -n "$J" ] || fail "no json file in $TUI_WORK"
"$STACKTOP" -r "$J" --json > "$TUI_WORK/back.json" || fail "stacktop -r $J failed"
python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert a["stacks"], "no stacks"
assert [s["key"] for s in a["stacks"]] == [s["key"] for s in b["stacks"]], "ranking differs"
assert [s["total"] for s in a["stacks"]] == [s["total"] for s in b["stacks"]], "totals differ"
' "$J" "$TUI_WORK/back.json" || fail "the P snapshot does not read back the same"

say "quit restores the terminal and tracefs"
tui_keys q
tui_quit_restored
[ ! -e "$T/instances/stacktop.$APP" ] || fail "instance stacktop.$APP left behind"
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "top-level tracefs state changed"

say "F10 quits too; -M leaves the mouse alone"
tui_run --mode stacks -M -d 0.5
tui_wait '^\+ +1 ' 15
[ "$(tui_flag mouse_any_flag)" = 0 ] || fail "-M given but mouse reporting is on"
tui_keys F10
tui_quit_restored

say "SIGTERM: a clean exit; SIGSEGV: terminal and tracefs restored by the emergency path"
tui_run --mode stacks -d 0.5
tui_wait '^\+ +1 ' 15
APP=$(tui_app_pid)
[ -d "$T/instances/stacktop.$APP" ] || fail "no instance stacktop.$APP while running"
kill -TERM "$APP"
tui_quit_restored
[ ! -e "$T/instances/stacktop.$APP" ] || fail "instance stacktop.$APP left behind after SIGTERM"
tui_run --mode stacks -d 0.5
tui_wait '^\+ +1 ' 15
APP=$(tui_app_pid)
kill -SEGV "$APP"
tui_quit_restored 139
[ ! -e "$T/instances/stacktop.$APP" ] || fail "instance stacktop.$APP left behind after SIGSEGV"
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "top-level tracefs state changed"

echo "PASS"
