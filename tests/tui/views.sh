#!/bin/sh
# tui-views: the views of issue 11 on the screen, on the real kernel: t
# cycles list -> caller tree -> callee tree -> list, ] and [ group by the
# first frames, w switches between off-CPU time and hits (--offcpu).
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

start_workload
tui_start 160 40
tui_run --mode stacks --offcpu -d 0.5
APP=$(tui_app_pid)

say "--offcpu: the table in time units"
tui_wait '^\+ +1 ' 15
tui_wait ' TIME. +TOTAL ' 5
tui_wait 'PER s' 2
# a row: "+   1 -   1.2s   3.4s ..." (values in ns, us, ms or s)
tui_wait '^\+ +1 +- +[0-9.]+(ns|us|ms|s) +[0-9.]+(ns|us|ms|s) ' 5

say "w: hits, and back"
tui_keys w
tui_wait 'ranked by hits' 3
tui_wait ' DELTA. +TOTAL ' 5
tui_wait '^\+ +1 +- +[0-9.kM]+ +[0-9.kM]+ ' 5
tui_keys w
tui_wait ' TIME. +TOTAL ' 5

say "] groups by the first frame, [ goes back"
tui_keys ']'
tui_wait 'grouped by the first 1 frame' 3
# every off-CPU stack starts in __schedule: one group
tui_wait '^\+ +1 .* __schedule *$' 5
tui_wait_gone '^\+ +2 ' 5
tui_keys ']'
tui_wait 'grouped by the first 2 frames' 3
tui_keys '[' '['
tui_wait 'whole stacks' 3
tui_wait '^\+ +2 ' 5

say "t: caller tree, callee tree, list"
tui_keys t
tui_wait 'CALLER TREE' 5
tui_keys t
tui_wait 'CALLEE TREE' 5
tui_wait 'CHILD% +SELF%' 2
# the callee tree's root is the leaf: __schedule, 100% of it as self
tui_wait '^ +100 +[0-9.]+(ns|us|ms|s) +100 +100 +. __schedule' 5
tui_keys Home Right
tui_wait '^ +[0-9.]+ +[0-9.]+(ns|us|ms|s) +[0-9.]+ +- +. schedule$' 5
tui_keys t
tui_wait 'view stacks' 5

tui_keys q
tui_quit_restored
[ ! -e "$T/instances/stacktop.$APP" ] || fail "instance stacktop.$APP left behind"
echo "PASS"
