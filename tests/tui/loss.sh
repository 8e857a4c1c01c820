#!/bin/sh
# tui-loss: the screen keeps up like the batch mode (issue 27 #2). A busy
# context-switch load (perf bench sched pipe -T: two threads of one process passing a byte,
# tens of thousands of switches a second) is traced at the same time by the
# screen (tmux, 120x30, started first: its start-up is in its count) and by
# a batch run of 5 intervals started once the screen shows its rates; then
# the screen saves its view as JSON. The screen's share of records lost,
# over a longer time that includes its start-up, is no more than the batch
# mode's in the same run plus 0.2 points (the screen has drawing to do on
# two busy cores). The trial of issue 27 saw the screen lose 58,352 in its
# first seconds where batch lost none; on this machine the build before the
# fix did not lose on this load either (0 of ~200,000, three runs, also
# with --buffer-kb 128, where both modes lose now and then): the test keeps
# the two modes together rather than reproducing that trial. Both in
# private instances; tracefs restored. Both read 16 MiB buffers: a reader
# kept off the CPU for a few tens of ms by other programs (a test run beside
# a benchmark's dd at 800k events/s: the screen lost 928 of 313,089 records,
# 0.3%, in the moment batch was not running) loses by chance with the
# default 4 MiB; a screen that reads slower than batch still overflows 16
# MiB within the run, which is what this test is for.
. "$(dirname "$0")/lib.sh"

T=$(tfs_root) || skip "no tracefs mounted"
[ -d "$T/instances" ] || skip "tracefs without instances"
command -v perf > /dev/null || skip "perf is not installed (scripts/deps.sh installs it)"

tfs_snapshot "$T" "$TUI_WORK/before"
perf bench sched pipe -T -l 1000000000 > /dev/null 2>&1 &
LOAD=$!
TUI_PIDS="$TUI_PIDS $LOAD"

tui_start 120 30
tui_run --mode stacks -d 1 --buffer-kb 16384
say "the screen under a switch load"
tui_wait 'events/s [0-9]' 20
tui_wait '^[-+ ] +1 ' 10
"$STACKTOP" --mode stacks -b -n 5 -d 1 --buffer-kb 16384 --json > "$TUI_WORK/batch.json" 2> "$TUI_WORK/batch.err" ||
	fail "the batch run failed: $(cat "$TUI_WORK/batch.err")"
tui_keys P
tui_wait 'Save the view as' 5
tui_type json
tui_keys Enter
tui_wait 'wrote .*stacktop-[0-9]{8}-[0-9]{6}\.json' 10
SNAP=$(ls "$TUI_WORK"/stacktop-*.json 2> /dev/null | head -n 1)
[ -s "$SNAP" ] || fail "no JSON saved from the screen"
tui_keys q
tui_quit_restored

say "a ring buffer too small: the loss in the alert colour, the fix in words"
tui_run --mode stacks -d 1 --buffer-kb 4
tui_wait 'lost events: the ring buffer \([0-9]+ KiB a CPU\) filled before stacktop read it; give it more room: --buffer-kb [0-9]+' 15
tui_keys q
tui_quit_restored
kill "$LOAD" 2> /dev/null
wait "$LOAD" 2> /dev/null

python3 - "$SNAP" "$TUI_WORK/batch.json" << 'PY' || fail "the screen lost more than the batch mode"
import json, sys
scr = json.load(open(sys.argv[1]))
reps = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
b = reps[-1]
def frac(d):
    hits, lost = d["hits"], d["lost"]
    return hits, lost, lost / float(hits + lost) if hits + lost else 0.0
sh, sl, sf = frac(scr)
bh, bl, bf = frac(b)
print("screen: %d hits, %d lost (%.3f%%); batch: %d hits, %d lost (%.3f%%)" %
      (sh, sl, 100 * sf, bh, bl, 100 * bf))
assert bh > 20000, "the load gave the batch run only %d switches: the case is void" % bh
assert sh >= bh, "the screen, tracing longer, counted fewer (%d) than batch (%d)" % (sh, bh)
assert sf <= bf + 0.002, "the screen lost %.3f%% of its records, batch %.3f%%" % (100 * sf, 100 * bf)
PY
tfs_snapshot "$T" "$TUI_WORK/after"
diff -u "$TUI_WORK/before" "$TUI_WORK/after" || fail "tracefs state changed"
echo "PASS: the screen keeps up with a switch load like the batch mode"
