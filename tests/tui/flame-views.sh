#!/bin/sh
# tui-flame-views: the screen's flame graph views (issue 28) on a snapshot
# with known counts (flame-snap.py, read back with -r): alphabetical then
# left-heavy (L) order of do_syscall_64's callees, the inverted graph (i:
# zeta_leaf, 900 hits over two callers, first), the tracing frames hidden
# (H), and 100 one-hit callees drawn as one '+100' box, in tmux at 120x40.
. "$(dirname "$0")/lib.sh"

python3 "$(dirname "$0")/flame-snap.py" "$TUI_WORK/snap.json" || fail "cannot write the snapshot"
tui_start 120 40
tui_run -r "$TUI_WORK/snap.json" --cumulative --no-color
tui_wait 'mode replay' 10
tui_keys v
say "by name: alpha_fn before beta_fn, the 100 small callees one +100 box"
tui_wait 'FLAME GRAPH  \(roots on top, callees below; by name;' 5
tui_wait '^alpha_fn +beta_fn +deep_00 +gam~? *many_fn' 5
tui_wait '^zeta_leaf +zeta_leaf +deep_01 .*\+100' 3
tui_wait '^trace_event_raw_event_x +trace_event_raw_event_x' 3
say "L: heaviest first (beta 600, alpha 300, deep 200, many 100, gamma 60)"
tui_keys L
tui_wait 'heaviest first; width' 5
tui_wait 'shown [0-9]+ frames, left-heavy' 3
tui_wait '^beta_fn +alpha_fn +deep_00 +many_fn +gam' 3
say "i: the inverted graph, zeta_leaf (900) first, its callers below"
tui_keys i
tui_wait 'view flame inverted' 5
tui_wait 'FLAME GRAPH  \(leaves on top, callers below;' 3
tui_wait '^zeta_leaf +deep_29 ' 3
tui_wait '^beta_fn +alpha_fn +deep_28' 3
tui_keys i
tui_wait 'FLAME GRAPH  \(roots on top' 5
say "H: the tracing machinery hidden, the rest as it was"
tui_keys H
tui_wait 'no tracing frames; width' 5
tui_wait_gone 'trace_event_raw_event_x' 3
tui_wait '^zeta_leaf +zeta_leaf +deep_01 .*\+100' 3
tui_keys q
tui_quit_restored
echo "PASS: left-heavy, inverted, hidden tracing and +N on the screen's flame graph"
