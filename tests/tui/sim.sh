#!/bin/sh
# tui-sim: the real stacktop in tmux against the stackmap simulator (a FUSE
# tracefs of an RFC v4 kernel): stackmap header, kernel ids, expand, event
# filter, reset (and EBUSY when the kernel refuses), the stackmap toggle and
# its refusal, P, u (user stacks through the top-level option), quit with
# the simulated tracefs restored (userstacktrace left on by u included).
. "$(dirname "$0")/lib.sh"

[ -n "${SIM_BIN:-}" ] && [ -x "$SIM_BIN" ] || fail "no simulator (set SIM_BIN)"
[ -n "${SIM_LIB:-}" ] && [ -r "$SIM_LIB" ] || fail "no sim-lib.sh (set SIM_LIB)"
. "$SIM_LIB"

# sim-lib's trap replaces ours: chain the tmux cleanup in front of it
sim_start v4 --rate 300 --seed 7 || fail "the simulator did not start"
trap 'tui_cleanup; _sim_trap' EXIT

tfs_snapshot "$SIM_MNT" "$TUI_WORK/before"

sim_ctl pause || fail "sim control failed"
tui_start 130 40
tui_run --tracefs "$SIM_MNT" --kallsyms "$SIM_KALLSYMS" -d 0.5 -e sched:sched_switch -e kmem:kmalloc

say "no data yet: the view says why"
tui_wait 'mode stackmap' 10
tui_wait 'No events yet: waiting for sched:sched_switch,kmem:kmalloc' 10
sim_ctl resume

say "stackmap header and ranked rows with kernel ids"
tui_wait 'stackmap on v4 +entries [0-9]+/[0-9]+ +successes [0-9]+ +drops [0-9]+ +success [0-9]+% +fallbacks' 10
# the map's value: bytes per event read against full stacks
tui_wait 'map saves [0-9]+% \([0-9]+ of [0-9]+ B/ev\)' 10
tui_wait '^\+ +1 +[0-9]+(,[0-9+]+)? +[0-9]+ ' 15
tui_wait '^ +# ID +DELTA' 2

say "expand"
tui_keys Home Enter
tui_wait '#0 +[a-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+' 5
tui_keys Enter
tui_wait_gone '#0 ' 5

say "event filter"
tui_keys f
tui_wait 'Filter by event' 3
tui_type kmalloc
tui_keys Enter
tui_wait 'event kmem:kmalloc' 3
tui_wait '^\+ +1 ' 10
tui_wait_gone '^ +# .*EVENT' 5
tui_wait '100% kmem:kmalloc' 10
tui_rows | grep -q 'sched_switch' && fail "sched_switch rows under the kmalloc filter"
tui_keys x
tui_wait 'event all' 3

say "F: the kernel filter of the picked event, written at the top level"
tui_keys f
tui_wait 'Filter by event' 3
tui_type sched_switch
tui_keys Enter
tui_wait 'event sched:sched_switch' 3
tui_keys F
tui_wait 'Kernel filter \(empty: none' 3
tui_type 'prev_state &&& 3'
# keys typed ahead of the refusal (one write: a paste of "filter\nqx"):
# not commands (q would quit, x clear the view): the prompt opens again on
# the refused text, the kernel's reason beside it
tui_keys Enter q x
tui_wait 'Kernel filter .*prev_state &&& 3(qx)? +refused: Invalid value \(did you forget quotes\)\?' 5
tui_capture | grep -q '__RC=' && fail "the keys typed after a refused filter ran as commands (q quit)"
tui_wait 'event sched:sched_switch' 2
[ "$(cat "$SIM_MNT/events/sched/sched_switch/filter")" = none ] ||
	fail "a refused filter changed the filter file: $(cat "$SIM_MNT/events/sched/sched_switch/filter")"
# Esc leaves it; the status says what the kernel refused
tui_keys Escape
tui_wait 'refused the filter .prev_state &&& 3. on sched:sched_switch: Invalid value \(did you forget quotes\)\?' 5
tui_keys F
tui_wait 'Kernel filter \(empty: none' 3
tui_type 'prev_state == 1'
tui_keys Enter
tui_wait "kernel filter 'prev_state == 1'" 5
[ "$(cat "$SIM_MNT/events/sched/sched_switch/filter")" = 'prev_state == 1' ] ||
	fail "F did not write the filter: $(cat "$SIM_MNT/events/sched/sched_switch/filter")"
tui_keys F
tui_wait 'Kernel filter \(empty: none.*prev_state == 1' 3
tui_keys Escape
tui_keys x
tui_wait 'event all' 3

say "sort by kernel id"
tui_keys F6
tui_type ' id'
tui_keys Enter
tui_wait 'sort ID desc' 3
tui_keys F6
tui_type delta
tui_keys Enter
tui_wait 'sort DELTA desc' 3

say "reset: map, counts and a new generation"
tui_wait 'gen 0' 3
tui_keys r
tui_wait 'press r again to reset the kernel stack map' 3
tui_keys r
tui_wait 'reset: kernel map and counts start from zero' 5
tui_wait 'gen 1' 5
tui_wait '^\+ +1 +[0-9]+' 10

say "reset refused by the kernel: EBUSY in the status line"
sim_ctl "reset-busy 1" || fail "sim control failed"
tui_keys r r
tui_wait 'reset refused: EBUSY' 5
sim_ctl "reset-busy 0"
tui_wait 'gen 1' 2

say "a reset by another program: the core's message in the status line"
sim_ctl reset-map
tui_wait 'the stack map was reset by another program' 5
tui_wait 'gen 2' 5
tui_wait '^\+ +1 +[0-9]+' 10

say "tracing switched off behind our back"
echo 0 > "$SIM_MNT/tracing_on"
tui_wait 'tracing OFF' 5
echo 1 > "$SIM_MNT/tracing_on"
tui_wait_gone 'tracing OFF' 5

say "stackmap toggle, and why it cannot"
tui_keys s
tui_wait 'kernel stackmap option turned off' 5
tui_wait 'stackmap off' 5
tui_keys s
tui_wait 'kernel stackmap option turned on' 5
tui_wait 'stackmap on' 5
sim_ctl "hide options/stackmap"
tui_keys s
tui_wait 'cannot turn stackmap (on|off): kernel has no stackmap option' 5
sim_ctl "show options/stackmap"

say "P writes folded stacks (picked by name: Enter alone takes json)"
tui_keys P
tui_wait 'Save the view as' 3
tui_type folded
tui_keys Enter
tui_wait 'wrote [0-9]+ folded stacks' 5
F=$(ls "$TUI_WORK"/stacktop-*.folded 2>/dev/null | head -n 1)
[ -s "$F" ] || fail "no folded file written"
grep -q -E '^[^ ]+(;[^ ]+)+ [0-9]+$' "$F" || fail "$F is not folded stacks"

say "tree"
tui_keys t
tui_wait 'CALLER TREE' 5
tui_keys t
tui_wait 'CALLEE TREE' 5
tui_keys t
tui_wait 'view stacks' 3

say "80x24"
tui_resize 80 24
tui_keys Home
tui_wait 'stackmap on' 5
tui_wait '^\+ +1 ' 5
tui_resize 130 40

say "u: user stacks through the top-level userstacktrace option"
tui_keys u
tui_wait 'user stacks on: user frames below "--"' 5
[ "$(cat "$SIM_MNT/options/userstacktrace")" = 1 ] || fail "u did not turn on userstacktrace"
# the simulated pids are not this machine's: the frames stay numeric.
# "[unknown] 0x56" matches user frames only ("0x56" alone also matched
# kernel offsets, "+0x56/", of stacks without a user part), and the
# shallowest stack comes first: a kernel part of up to 96 simulated frames
# pushed the "--" below the pane (a failure seen at load 7)
tui_keys '\'
tui_wait 'Filter frames/comm' 3
tui_type '[unknown] 0x56'
tui_keys Enter
tui_wait 'filter \[unknown\] 0x56' 3
tui_wait '^\+ +1 ' 10
tui_keys F6
tui_wait 'Sort by' 3
tui_type depth
tui_keys Enter
tui_wait 'sort DEPTH desc' 3
tui_keys I
tui_wait 'sort DEPTH asc' 3
tui_keys Home Enter
tui_wait '#[0-9]+ +--$' 5
tui_wait '#[0-9]+ +\[unknown\] 0x56[0-9a-f]+$' 5
tui_keys Enter x
tui_wait 'filters and the search cleared' 3
tui_keys u
tui_wait 'user stacks off' 5
[ "$(cat "$SIM_MNT/options/userstacktrace")" = 0 ] || fail "u did not turn off userstacktrace"
tui_keys u
tui_wait 'user stacks on' 5

say "quit restores the terminal and the simulated tracefs"
tui_keys q
tui_quit_restored
tfs_snapshot "$SIM_MNT" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "the simulated tracefs was not restored"
[ "$(cat "$SIM_MNT/events/sched/sched_switch/filter")" = none ] ||
	fail "the filter F wrote was not restored: $(cat "$SIM_MNT/events/sched/sched_switch/filter")"
echo "PASS"
