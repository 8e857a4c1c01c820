#!/bin/sh
# tui-diff: --diff SNAPSHOT - on a terminal is the screen in diff mode: a
# CHG% column with each stack's change of share against the snapshot, NEW
# for stacks the snapshot does not have; without --diff the column is not
# there. Several -r snapshots: an ORIGIN column and the breakdown by origin.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

tfs_snapshot "$T" "$TUI_WORK/before"
start_workload
# BEFORE: a snapshot of the same kernel a moment earlier
"$STACKTOP" -b -n 1 -d 0.5 --mode stacks -o "$TUI_WORK/snap.json" 2> "$TUI_WORK/err" ||
	{ cat "$TUI_WORK/err"; fail "snapshot failed"; }

tui_start 140 40
tui_run --diff "$TUI_WORK/snap.json" - --mode stacks -d 0.5
say "diff mode: CHG% column and its values"
tui_wait 'CHG%' 10
tui_wait 'CHG% is each stack.s change of share against BEFORE' 5
# rows: a signed change (stacks in the snapshot) in the CHG% column
tui_wait '^\+ +[0-9]+ +- +[0-9.kM]+ +[0-9.kM]+ +[0-9.]+ +[-+][0-9]+\.[0-9] ' 15
tui_keys q
tui_quit_restored
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "top-level tracefs state changed"

say "the screen without --diff has no CHG% column"
tui_run -r "$TUI_WORK/snap.json"
tui_wait 'FUNCTION (\[module\] )?< CALLERS' 10
tui_capture | grep -q 'CHG%' && fail "CHG% without --diff"
tui_keys q
tui_quit_restored
say "several -r snapshots: an ORIGIN column, the breakdown by origin"
python3 - "$TUI_WORK/snap.json" "$TUI_WORK/alpha.json" "$TUI_WORK/beta.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for path, host in ((sys.argv[2], "alpha"), (sys.argv[3], "beta")):
    d["host"] = host
    open(path, "w").write(json.dumps(d) + "\n")
PY
tui_run -r "$TUI_WORK/alpha.json" -r "$TUI_WORK/beta.json"
tui_wait 'COMM\(PID\) +ORIGIN +FUNCTION' 10
tui_wait '^\+ +1 .* (alpha|beta)\+ ' 5
tui_wait 'by event, comm\(pid\), CPU, origin' 5
tui_wait '50\.0% alpha' 5
tui_wait '50\.0% beta' 5
tui_keys q
tui_quit_restored
echo "PASS"
