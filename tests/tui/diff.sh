#!/bin/sh
# tui-diff: --diff SNAPSHOT - on a terminal is the screen in diff mode: a
# CHG% column with each stack's change of share against the snapshot, NEW
# for stacks the snapshot does not have; without --diff the column is not
# there. A constructed pair of snapshots: ranked by the change of share, the
# GONE row listed with BEFORE's share, sortable by the other columns. Several -r snapshots: an ORIGIN column and the breakdown by origin.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"

# A constructed pair with known shares (as tests/live/diff.sh): BEFORE
# A 50, B 30, C 20 (of 100); AFTER A 40, B 60, D 100 (of 200); shares
# A 50 -> 20 (-30), B 30 -> 30 (0), C 20 -> 0 (-20, GONE), D 0 -> 50 (+50, NEW).
# The screen ranks by the change of share: D, A, C, B, as the batch diff.
python3 "$(dirname "$0")/../diff-pair.py" "$TUI_WORK/cb.json" "$TUI_WORK/ca.json" ||
	fail "cannot write the snapshot pair"
# the leaves of the ranked rows, in screen order
leaves() {
	tui_stable | awk '$2 ~ /^[0-9]+$/ && match($0, /leaf_[A-D]/) { printf "%s ", substr($0, RSTART, RLENGTH) }'
}
tui_start 160 40
tui_run --diff "$TUI_WORK/cb.json" "$TUI_WORK/ca.json"
say "diff mode ranks by the change of share; GONE rows with their share before"
tui_wait 'sort +CHG% desc' 10
tui_wait 'leaf_B' 10
tui_wait 'shown +3 of 3, 1 gone' 5
# rank, BEF%, CHG% and the leaf of each row, in screen order
# fields: fold mark, #, ID, DELTA, TOTAL, %, BEF%, CHG% [NEW|GONE], ...
order=$(tui_stable | awk '/leaf_[A-D]/ && $2 ~ /^[0-9]+$/ {
	m = ($9 == "NEW" || $9 == "GONE") ? " " $9 : ""
	match($0, /leaf_[A-D]/); print $2, $7, $8 m, substr($0, RSTART, RLENGTH) }')
want='1 - +50.0 NEW leaf_D
2 50.0 -30.0 leaf_A
3 20.0 -20.0 GONE leaf_C
4 30.0 +0.0 leaf_B'
[ "$order" = "$want" ] || { tui_capture; fail "diff rows:
$order
wanted:
$want"; }
say "an event filter: BEFORE's shares are of that event's hits too, GONE rows stay"
tui_keys f
tui_wait '\(all events\)' 5
tui_type 'switch'
tui_keys Enter
tui_wait 'event +sched:sched_switch' 5
tui_wait 'shown +3 of 3, 1 gone' 5
[ "$(leaves)" = "leaf_D leaf_A leaf_C leaf_B " ] || { tui_capture; fail "with an event filter: $(leaves)"; }
tui_keys x
tui_wait 'event +all' 5
say "sortable by the other columns: > cycles to DELTA, GONE stays listed (no hits: last)"
tui_keys '>'
tui_wait 'sort +DELTA desc' 5
order=$(leaves)
[ "$order" = "leaf_D leaf_B leaf_A leaf_C " ] || { tui_capture; fail "by DELTA: $order"; }
say "F6 lists CHG% and picks it; > and < go round to it"
tui_keys F6
tui_wait 'CHG% +change of share against BEFORE' 5
tui_type 'change'
tui_keys Enter
tui_wait 'sort +CHG% desc' 5
tui_keys '>'
tui_wait 'sort +DELTA desc' 5
tui_keys '<'
tui_wait 'sort +CHG% desc' 5
tui_keys I
tui_wait 'sort +CHG% asc' 5
order=$(leaves)
[ "$order" = "leaf_B leaf_C leaf_A leaf_D " ] || { tui_capture; fail "by CHG% ascending: $order"; }
say "diff mode with --sort: ranked by that column"
tui_keys q
tui_quit_restored
tui_run --diff "$TUI_WORK/cb.json" "$TUI_WORK/ca.json" --sort total
tui_wait 'sort +TOTAL desc' 10
tui_keys q
tui_quit_restored

say "-r: a snapshot's view comes back (its filter applied and shown, order, CPU); x clears it"
python3 - "$TUI_WORK/ca.json" "$TUI_WORK/cf.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["view"].update({"filter": "leaf_A", "ascending": True, "cpu": 0})
open(sys.argv[2], "w").write(json.dumps(d) + "\n")
PY
tui_run -r "$TUI_WORK/cf.json"
tui_wait 'filter +leaf_A' 10
tui_wait 'cpu +0 ' 5
tui_wait 'sort +DELTA asc' 5
tui_wait 'shown +1 of 1' 5
[ "$(leaves)" = "leaf_A " ] || { tui_capture; fail "the snapshot's filter is not applied: $(leaves)"; }
tui_keys x
tui_wait 'shown +3 of 3' 5
tui_wait_gone 'filter +leaf_A' 5
[ "$(leaves)" = "leaf_A leaf_B leaf_D " ] || { tui_capture; fail "after x: $(leaves)"; }
tui_keys q
tui_quit_restored

say "-r: a snapshot's comm filter comes back (every hit here is of comm w)"
python3 - "$TUI_WORK/ca.json" "$TUI_WORK/cc.json" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["view"].update({"comm": "=zz"})
open(sys.argv[2], "w").write(json.dumps(d) + "\n")
PY
tui_run -r "$TUI_WORK/cc.json"
tui_wait 'comm +=zz' 10
tui_wait 'shown +0 of 0' 5
tui_keys x
tui_wait 'shown +3 of 3' 5
tui_wait_gone 'comm +=zz' 5
tui_keys q
tui_quit_restored

tui_run --diff "$TUI_WORK/cb.json" "$TUI_WORK/ca.json"
tui_wait 'sort +CHG% desc' 10
say "a GONE row unfolds into BEFORE's frames"
tui_keys Down Down Enter
tui_wait 'caller_C\+0x0/0x80' 5
tui_keys q
tui_quit_restored

tfs_snapshot "$T" "$TUI_WORK/before"
start_workload
# BEFORE: a snapshot of the same kernel a moment earlier
"$STACKTOP" -b -n 1 -d 0.5 --mode stacks -o "$TUI_WORK/snap.json" 2> "$TUI_WORK/err" ||
	{ cat "$TUI_WORK/err"; fail "snapshot failed"; }

tui_run --diff "$TUI_WORK/snap.json" - --mode stacks -d 0.5
say "diff mode: CHG% column and its values"
tui_wait 'CHG%' 10
tui_wait 'CHG% is each stack.s change of share against BEFORE' 5
# rows: the share before (BEF%) and a signed change in the CHG% column
tui_wait '^[-+ ] +[0-9]+ +- +[0-9.kM]+ +[0-9.kM]+ +[0-9.]+ +([0-9.]+|-) +[-+][0-9]+\.[0-9]( NEW| GONE)? ' 15
tui_keys q
tui_quit_restored
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "top-level tracefs state changed"

say "the screen without --diff has no CHG% column"
tui_run -r "$TUI_WORK/snap.json"
tui_wait 'FUNCTION (\[module\] )?< CALLERS' 10
tui_capture | grep -q 'CHG%' && fail "CHG% without --diff"
# a recording has no refresh delay: the header gives its span and its file
tui_wait '^stacktop +mode replay +recorded [0-9.]+s +from .*snap\.json' 5
tui_capture | head -n 1 | grep -q ' delay ' && fail "the replay's header gives a refresh delay"
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
