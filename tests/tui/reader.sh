#!/bin/sh
# tui-reader: the screen's refresh shows the interval just ended. Seven
# getpgid() calls (the event filtered on their argument: nobody else's
# calls match) are a few records on a page the kernel is still writing;
# the refresh after them shows DELTA 7, TOTAL 7 (the drain before a
# refresh takes the partial pages), the one after DELTA 0, TOTAL 7 (never
# counted again). Private instance; tracefs restored.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"
[ -e "$T/events/syscalls/sys_enter_getpgid" ] || skip "no syscalls:sys_enter_getpgid event"

tfs_snapshot "$T" "$TUI_WORK/before"
tui_start 120 30
tui_run --mode stacks -d 1 -e syscalls:sys_enter_getpgid --filter pid==424242
say "the screen up, nothing counted"
tui_wait 'events/s [0-9]' 20
tui_wait ' events 0 ' 5
python3 -c '
import os
for _ in range(7):
    try:
        os.getpgid(424242)
    except ProcessLookupError:
        pass
'
say "the next refresh: the seven calls in the interval's column"
tui_wait '^\+ +1 +- +7 +7 ' 10
tui_wait ' events 7 ' 1
say "the refresh after: none again"
tui_wait '^\+ +1 +- +0 +7 ' 10
tui_keys q
tui_quit_restored
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "tracefs state changed"
echo "PASS: a refresh shows the records of its interval, partial pages included, once"
