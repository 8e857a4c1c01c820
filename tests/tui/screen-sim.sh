#!/bin/sh
# tui-screen-sim: screen defects of issue 8 that need stacks arriving in a
# known order, against the stackmap simulator: the selection stays on the top
# row until the user moves it, even when the first stack ever seen falls
# down the ranking.
. "$(dirname "$0")/lib.sh"

[ -n "${SIM_BIN:-}" ] && [ -x "$SIM_BIN" ] || fail "no simulator (set SIM_BIN)"
[ -n "${SIM_LIB:-}" ] && [ -r "$SIM_LIB" ] || fail "no sim-lib.sh (set SIM_LIB)"
. "$SIM_LIB"

sim_start v4 --rate 300 --seed 7 || fail "the simulator did not start"
trap 'tui_cleanup; _sim_trap' EXIT
sim_ctl pause || fail "sim control failed"
tui_start 130 40
tui_run --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" -d 0.5 -e sched:sched_switch -e kmem:kmalloc
tui_wait 'No events yet' 10

say "selection: the first stack seen does not keep it"
# one stack, alone: it is row 1 and selected
sim_ctl "emit 1 cpu 0"
tui_wait '^\+ +1 +[0-9]+ +1 +1 ' 10
FIRST=$(tui_rows | head -n 1 | tui_cut_col 60)
# an interval later it has no hits; then the load comes
tui_wait '^\+ +1 +[0-9]+ +0 +1 ' 10
sim_ctl "emit 4000"
tui_wait_count "$ROW_RE" 20 10
# a few refreshes later, no key pressed: still the top row, list not scrolled
tui_wait ' stacks [0-9]{2,}' 5
sleep 1.2
SEL=$(tui_selected)
echo "$SEL" | grep -q -E '^[-+ ] +1 ' || fail "the selection left the top row: '$SEL' (first stack: '$FIRST')"
tui_rows | head -n 1 | grep -q -E '^[-+ ] +1 ' || fail "the list does not start at row 1"

say "a stack the user moved to keeps the selection"
tui_keys Down Down
# the stack by its map id (the ID column): the rest of the row moves with
# the load (the COMM column's "+N" pids, the frames every row shares said
# once), and compared from a fixed column it failed 3 runs in 16
stack_id() { sed -E 's/^[-+ ] +[0-9]+ +([^ ]+) .*/\1/'; }
SEL=$(tui_selected | stack_id)
case $SEL in
'' | - | *[!0-9,+]*) fail "no stack id in the selected row: '$(tui_selected)'" ;;
esac
tui_wait_gone 'order +held' 6
sim_ctl "emit 2000"
sleep 1.2
[ "$(tui_selected | stack_id)" = "$SEL" ] ||
	fail "the selection left the stack the user chose ($SEL): '$(tui_selected)'"
tui_keys Home
tui_wait '^[-+ ] +1 ' 3

say "the breakdown names the selected row, not the frames every row shares"
# every sched_switch row starts "__schedule < schedule", said once in the
# column title; the row shows "... X < ...", and the breakdown is of X
# (a sched_switch row: which event tops the last interval depends on how the
# machine cut the intervals, a kmalloc row has no shared frames; the view
# frozen while the row is picked)
tui_keys Z
tui_wait ' PAUSED ' 3
K=$(tui_rows | grep -n -E ' \.\.\. [^ <~]' | head -n 1 | cut -d: -f1)
[ -n "$K" ] || { tui_rows; fail "no row leaves shared frames out"; }
while [ "$K" -gt 1 ]; do
	tui_keys Down
	K=$((K - 1))
done
sleep 0.3
SEL=$(tui_selected)
NAME=$(echo "$SEL" | sed -n 's/.* \.\.\. \([^ <~]*\).*/\1/p')
[ -n "$NAME" ] || fail "the selected row leaves no shared frames out: '$SEL'"
tui_wait "^ breakdown of $NAME \\(" 3
grep -q '^ breakdown of __schedule ' "$TUI_WORK/pane" && fail "the breakdown names the shared leaf"
# an expanded frame selected: that frame
tui_keys Right Down
tui_wait '^ breakdown of __schedule \(' 3
tui_keys Left Home Z
tui_wait_gone ' PAUSED ' 3

tui_keys q
tui_quit_restored

say "a loss found between two refreshes counts in its (+n) at once"
# one refresh at 0.5 s, the next a minute later: everything below is in between
tui_run --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" -d 60 -e sched:sched_switch -e kmem:kmalloc
tui_wait 'delay 60s' 10
tui_wait ' lost 0 \(\+0\) .* events 0 ' 5
sleep 1
# far more than the ring buffer holds: pages are overwritten before they are read
sim_ctl "emit 300000"
# x re-ranks from live data: the header shows the counters as they are now
n=50
while [ "$n" -gt 0 ]; do
	tui_keys x
	sleep 0.2
	LOST=$(tui_capture | sed -n 2p | grep -o -E 'lost [0-9.]+[kMG]? \(\+[0-9.]+[kMG]?\)')
	echo "$LOST" | grep -q -E '^lost [1-9]' && break
	n=$((n - 1))
done
[ "$n" -gt 0 ] || fail "no loss in the header: '$(tui_capture | sed -n 2p)'"
echo "$LOST" | grep -q -E '\(\+0\)' && fail "a new loss shows (+0): '$LOST'"
tui_keys q
tui_quit_restored
echo "PASS"
